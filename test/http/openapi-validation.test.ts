/**
 * The validation step hands express-openapi-validator the resolved operation: requests are still checked against the
 * operation's parameters and body, responses against its documented responses, and a malformed path escape is the
 * library's 400, exactly as through the library's own middleware.
 */
import { expect } from 'chai';
import express, { type ErrorRequestHandler } from 'express';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import request from 'supertest';
import { OpenAPIFramework } from 'express-openapi-validator/dist/framework/index.js';
import { SchemaPreprocessor } from 'express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js';
import { OpenApiValidator } from 'express-openapi-validator/dist/openapi.validator.js';
import { loadOpenApiDocument } from '../../src/contract/openapi-document.ts';
import { hasExternalRef, openApiValidation, schemaPreprocessor } from '../../src/http/openapi-validation.ts';
import { validatorDocument } from '../../src/http/validator-document.ts';

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'mini', version: '1' },
  paths: {
    '/items/{Id}': {
      post: {
        parameters: [
          { name: 'Id', in: 'path', required: true, schema: { type: 'integer' } },
          { name: 'n', in: 'query', schema: { type: 'integer', maximum: 10 } },
        ],
        requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { Name: { type: 'string', maxLength: 3 } } } } } },
        responses: {
          200: { description: 'ok', content: { 'application/json': { schema: { type: 'object', required: ['Ok'], properties: { Ok: { type: 'boolean' } } } } } },
        },
      },
    },
  },
} as unknown as OpenAPIV3.DocumentV3;

async function miniApp(validateResponses: boolean, answer: unknown) {
  const app = express();
  app.use(express.json());
  app.use(await openApiValidation(SPEC, { validateResponses }, (req) =>
    (req.path.startsWith('/items/') ? { method: req.method, template: '/items/{Id}' } : undefined)));
  app.post('/items/:Id', (req, res) => res.json({ ...(answer as object), Id: req.params.Id }));
  app.get('/other', (_req, res) => res.json({ anything: 1 }));
  const errors: ErrorRequestHandler = (err: { status?: number; message: string }, _req, res, _next) => {
    res.status(err.status ?? 500).json({ message: err.message });
  };
  app.use(errors);
  return app;
}

describe('OpenAPI validation with the operation handed over', () => {
  it('passes a valid request and gives the handler the decoded path variables', async () => {
    const res = await request(await miniApp(true, { Ok: true })).post('/items/7?n=3').send({ Name: 'abc' });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ Ok: true, Id: '7' });
  });

  it('refuses bad path, query and body values with the library\'s 400', async () => {
    const app = await miniApp(false, { Ok: true });
    for (const [url, body, path] of [
      ['/items/x', {}, 'Id'], ['/items/7?n=11', {}, 'n'], ['/items/7', { Name: 'abcd' }, 'Name'],
    ] as const) {
      const res = await request(app).post(url).send(body);
      expect(res.status, url).to.equal(400);
      expect(res.body.message, url).to.contain(path);
    }
  });

  it('answers a malformed path escape with the library\'s 400', async () => {
    const res = await request(await miniApp(false, { Ok: true })).post('/items/%E0%A4%A').send({});
    expect(res.status).to.equal(400);
    expect(res.body.message).to.equal("malformed uri'");
  });

  it('validates responses when asked, and only then', async () => {
    expect((await request(await miniApp(true, { Ok: 'yes' })).post('/items/7').send({})).status).to.equal(500);
    expect((await request(await miniApp(false, { Ok: 'yes' })).post('/items/7').send({})).status).to.equal(200);
  });

  it('leaves requests outside the contract alone', async () => {
    expect((await request(await miniApp(true, { Ok: true })).get('/other')).status).to.equal(200);
  });
});

describe('OpenAPI validation set-up: the shortcuts give the library\'s own documents', () => {
  const contract = () => validatorDocument(loadOpenApiDocument());

  it('the contract has only internal references, which the library\'s ref-parser bundle leaves as they are', async () => {
    const doc = contract();
    expect(hasExternalRef(doc)).to.equal(false);
    expect(hasExternalRef({ a: [{ $ref: 'other.yaml#/x' }] })).to.equal(true);
    const framework = new OpenAPIFramework({ apiDoc: structuredClone(doc), validateApiSpec: false, $refParser: { mode: 'bundle' } });
    const loaded = await (framework as unknown as { loadSpec(doc: unknown, parser: unknown): Promise<unknown> }).loadSpec(structuredClone(doc), { mode: 'bundle' });
    expect(loaded).to.deep.equal(doc);
  });

  it('the schema preprocessor with references filled in beforehand makes the same request and response documents', () => {
    for (const validateResponses of [true, false]) {
      const oav = new OpenApiValidator({ apiSpec: contract(), validateResponses, validateRequests: { allowUnknownQueryParameters: true, coerceTypes: false } });
      const options = (oav as unknown as { ajvOpts: { preprocessor: never } }).ajvOpts.preprocessor;
      const library = new SchemaPreprocessor(contract(), options, validateResponses as never).preProcess();
      const filledIn = schemaPreprocessor(contract(), options, validateResponses as never).preProcess();
      expect(filledIn.apiDoc).to.deep.equal(library.apiDoc);
      expect(filledIn.apiDocRes).to.deep.equal(library.apiDocRes);
      expect(JSON.stringify(filledIn)).to.equal(JSON.stringify(library));
    }
  });
});
