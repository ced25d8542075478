/**
 * The format registry is the one place a format is added: an entry's flags reach routing and negotiation without a
 * special case elsewhere. Shown with the pre-defined routes: the stock registry answers `/json/reply/{Op}` only; an
 * XML entry that declares `predefinedRoutes` makes `/xml/reply/{Op}` resolve to the same operation, answered in XML.
 */
import { expect } from 'chai';
import express, { type Request } from 'express';
import request from 'supertest';
import { contractOperations } from '../../../src/contract/operations.ts';
import { jsonFormat } from '../../../src/formats/json.ts';
import { jsonpFormat } from '../../../src/formats/jsonp.ts';
import { createFormatRegistry, type FormatEntry } from '../../../src/formats/registry.ts';
import { xmlFormat } from '../../../src/formats/xml.ts';
import { createNegotiator } from '../../../src/http/negotiate.ts';
import { contextOf } from '../../../src/http/request-context.ts';
import { resolveOperation } from '../../../src/http/resolve-operation.ts';

function probe(entries: FormatEntry[]) {
  const formats = createFormatRegistry(entries);
  const negotiate = createNegotiator(formats);
  const app = express();
  app.use(resolveOperation(contractOperations().all, formats));
  app.use((req: Request, res) => {
    const context = contextOf(res);
    const form = negotiate(req, context.operation, {
      extension: context.extensionFormat,
      prefix: context.prefixFormat,
    });
    res.json({ operation: context.operation?.operationId ?? null, url: req.url, format: form.entry.format });
  });
  app.use((error: Error & { status?: number }, _req: Request, res: express.Response, _next: express.NextFunction) => {
    res.status(error.status ?? 500).json({ error: error.message });
  });
  return app;
}

describe('format registry: entries reach routing and negotiation', () => {
  it(
    'When an entry does not declare predefinedRoutes, then /json/reply/{Op} resolves (any case) and ' +
      '/xml/reply/{Op} does not',
    async () => {
      const app = probe([jsonFormat, { ...xmlFormat, predefinedRoutes: false }, jsonpFormat]);
      expect((await request(app).get('/JSON/Reply/EchoRequest?Message=hi')).body).to.deep.equal({
        operation: 'EchoReplyGet',
        url: '/json/reply/EchoRequest?Message=hi',
        format: 'json',
      });
      expect((await request(app).get('/xml/reply/EchoRequest')).body.operation).to.equal(null);
    },
  );

  it(
    'When the XML entry declares predefinedRoutes, then /xml/reply/{Op} is the same operation, answered in ' + 'XML',
    async () => {
      const app = probe([jsonFormat, { ...xmlFormat, predefinedRoutes: true }, jsonpFormat]);
      expect(
        (await request(app).get('/xml/reply/EchoRequest?Message=hi').set('Accept', 'application/json')).body,
      ).to.deep.equal({ operation: 'EchoReplyGet', url: '/json/reply/EchoRequest?Message=hi', format: 'xml' });
      expect((await request(app).post('/Xml/reply/GetFlatRequest')).body).to.include({
        operation: 'GetFlatReplyPost',
        format: 'xml',
      });
      expect((await request(app).get('/json/reply/EchoRequest').set('Accept', 'application/xml')).body.format).to.equal(
        'json',
      );
    },
  );

  it(
    'When a format is asked for that the operation does not document, then negotiation falls through to the next ' +
      'rule',
    async () => {
      const app = probe([jsonFormat, xmlFormat, jsonpFormat]);
      const token = `${'a'.repeat(10)}.${'b'.repeat(43)}`;
      expect((await request(app).get(`/v1/Reporting/ProfitAndLoss/Flat/Reports/${token}?format=xml`)).body).to.include({
        operation: 'GetFlatReport',
        format: 'json',
      });
      expect((await request(app).get('/v1/echo/hello.xml')).body).to.include({ operation: 'Echo', format: 'xml' });
    },
  );

  it(
    'When a path ends in the suffix of a format the operation does not answer in, then it is a 404 naming its ' +
      'suffixes where the operation documents a 404, else part of the path',
    async () => {
      const app = probe([jsonFormat, xmlFormat, jsonpFormat]);
      const token = `${'a'.repeat(10)}.${'b'.repeat(43)}`;
      const link = await request(app).get(`/v1/Reporting/ProfitAndLoss/Flat/Reports/${token}.xml`);
      expect(link.status).to.equal(404);
      expect(link.body.error).to.equal(
        "This resource has no '.xml' form: end its path with .json instead (or use ?format= or Accept).",
      );
      const onlyJson = probe([jsonFormat, jsonpFormat]);
      expect((await request(onlyJson).get('/v1/echo/hello.xml')).body).to.include({
        operation: 'Echo',
        url: '/v1/echo/hello.xml',
        format: 'json',
      });
    },
  );
});
