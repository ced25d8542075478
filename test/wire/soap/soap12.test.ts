import { expect } from 'chai';
import type { Server } from 'node:http';
import request from 'supertest';
import * as soap from 'soap';
import { SaxesParser } from 'saxes';
import express, { type Express } from 'express';
import { mountSoap12 } from '../../../src/soap/mount-soap12.ts';
import { listenSoapApp, parseFault, soap12Envelope, SOAP11_NS, SOAP12_NS, TYPES_NS } from '../../support/soap.ts';

const SOAP12_CT = 'application/soap+xml; charset=utf-8';
const SENDER = `{${SOAP12_NS}}Sender`;

/** Strict, namespace-aware well-formedness check; returns the root element's {uri}local. */
function rootOf(xml: string): string {
  const parser = new SaxesParser({ xmlns: true });
  let root = '';
  parser.on('opentag', (tag) => {
    if (!root) root = `{${tag.uri}}${tag.local}`;
  });
  parser.write(xml).close();
  return root;
}

describe('SOAP 1.2 endpoint /soap12', () => {
  let app: Express;
  let server: Server;
  let base: string;

  before(async () => ({ app, server, base } = await listenSoapApp()));
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  describe('WSDL', () => {
    it('node-soap client loads it from ?wsdl and describes SyncReply with no operations', async () => {
      const client = await soap.createClientAsync(`${base}/soap12?wsdl`);
      expect(client.describe()).to.deep.equal({ SyncReply: { WSHttpBinding_ISyncReply: {} } });
    });

    for (const path of ['/soap12', '/soap12?wsdl', '/soap12?WSDL', '/SOAP12?Wsdl']) {
      it(`GET ${path} serves the WSDL as text/xml with the request's address`, async () => {
        const res = await request(app).get(path).set('Host', 'reports.example.com:8443').expect(200);
        expect(res.headers['content-type']).to.equal('text/xml; charset=utf-8');
        const wsdl = res.text;
        expect(rootOf(wsdl)).to.equal('{http://schemas.xmlsoap.org/wsdl/}definitions');
        expect(wsdl).to.match(/^<\?xml version="1.0" encoding="utf-8"\?>/);
        expect(wsdl).to.contain('<soap12:address location="http://reports.example.com:8443/soap12" />');
        expect(wsdl).to.contain('<wsdl:definitions name="Soap12"');
        expect(wsdl).to.contain('<wsdl:portType name="ISyncReply"></wsdl:portType>');
        expect(wsdl).to.contain('<wsdl:binding name="WSHttpBinding_ISyncReply" type="svc:ISyncReply">');
        expect(wsdl).to.contain('<soap12:binding transport="http://schemas.xmlsoap.org/soap/http" />');
        expect(wsdl).to.contain('<wsdl:service name="SyncReply">');
        expect(wsdl).not.to.contain('<wsdl:message');
      });
    }

    it('inlines the three schemas (self-contained: no schemaLocation left)', async () => {
      const res = await request(app).get('/soap12?wsdl').expect(200);
      expect(res.text).not.to.contain('schemaLocation');
      for (const ns of [
        'targetNamespace="http://schemas.microsoft.com/2003/10/Serialization/"',
        'targetNamespace="http://schemas.servicestack.net/types"',
        'targetNamespace="http://schemas.microsoft.com/2003/10/Serialization/Arrays"',
      ]) {
        expect(res.text).to.contain(`<xs:schema xmlns:tns=`).and.to.contain(ns);
      }
      expect(res.text).to.contain('<xs:complexType name="GetFlatResponse">');
      expect(res.text).to.contain('<xs:simpleType name="guid">');
    });

    it('uses https when Express says the request is secure (trust proxy)', async () => {
      app.set('trust proxy', true);
      try {
        const res = await request(app)
          .get('/soap12')
          .set('X-Forwarded-Proto', 'https')
          .set('Host', 'api.example.com')
          .expect(200);
        expect(res.text).to.contain('location="https://api.example.com/soap12"');
      } finally {
        app.set('trust proxy', false);
      }
    });

    it('does not reflect a Host header that is not host[:port]', async () => {
      const res = await request(app).get('/soap12').set('Host', 'evil"><x a="').expect(200);
      expect(res.text).to.contain('location="http://localhost/soap12"');
      expect(() => rootOf(res.text)).not.to.throw();
    });
  });

  describe('POST', () => {
    it('an EchoRequest envelope gets a 400 env:Sender fault naming the operation', async () => {
      const res = await request(app)
        .post('/soap12')
        .set('Content-Type', SOAP12_CT)
        .send(soap12Envelope(`<EchoRequest xmlns="${TYPES_NS}"><Message>hi</Message></EchoRequest>`))
        .expect(400);
      expect(res.headers['content-type']).to.equal(SOAP12_CT);
      const fault = parseFault(res.text);
      expect(fault.envelopeNs).to.equal(SOAP12_NS);
      expect(fault.code).to.equal(SENDER);
      expect(fault.subcode).to.equal(`{${TYPES_NS}}NotImplementedException`);
      expect(fault.reason).to.equal("The operation 'EchoRequest' does not exist for this service");
      expect(fault.reasonLang).to.equal('en');
    });

    it('takes the operation name from the action= parameter first', async () => {
      const res = await request(app)
        .post('/soap12')
        .set(
          'Content-Type',
          'application/soap+xml; charset=utf-8; action="http://schemas.servicestack.net/types/GetFlatRequest"',
        )
        .send(soap12Envelope(`<EchoRequest xmlns="${TYPES_NS}"/>`))
        .expect(400);
      expect(parseFault(res.text).reason).to.equal("The operation 'GetFlatRequest' does not exist for this service");
    });

    it('escapes the operation name it reflects', async () => {
      const res = await request(app)
        .post('/soap12')
        .set('Content-Type', 'application/soap+xml; action="x/<b>&amp;"')
        .send(soap12Envelope('<Foo/>'))
        .expect(400);
      expect(parseFault(res.text).reason).to.equal("The operation '<b>&amp;' does not exist for this service");
    });

    it("node-soap's own HTTP client and parser read the fault as env:Sender", async () => {
      const client = await soap.createClientAsync(`${base}/soap12?wsdl`);
      const http = new soap.HttpClient();
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        http.request(
          `${base}/soap12`,
          soap12Envelope(`<EchoRequest xmlns="${TYPES_NS}"/>`),
          (error: unknown, res: { status: number }, body: string) =>
            error ? reject(error) : resolve({ status: res.status, body }),
          { 'Content-Type': SOAP12_CT },
        );
      });
      expect(status).to.equal(400);
      expect(() => client.wsdl.xmlToObject(body)).to.throw(
        /^env:Sender: svc:NotImplementedException: The operation 'EchoRequest' does not exist/,
      );
    });

    it('malformed XML gets env:Sender', async () => {
      const res = await request(app)
        .post('/soap12')
        .set('Content-Type', SOAP12_CT)
        .send('<soap:Envelope xmlns:soap="x"><unclosed>')
        .expect(400);
      expect(res.headers['content-type']).to.equal(SOAP12_CT);
      expect(parseFault(res.text).code).to.equal(SENDER);
    });

    it('an empty body gets env:Sender', async () => {
      const res = await request(app).post('/soap12').set('Content-Type', SOAP12_CT).send('').expect(400);
      expect(parseFault(res.text).code).to.equal(SENDER);
      expect(parseFault(res.text).reason).to.match(/empty/);
    });

    it('an Envelope without Body, or with an empty Body, gets env:Sender', async () => {
      const noBody = `<env:Envelope xmlns:env="${SOAP12_NS}"><env:Header/></env:Envelope>`;
      const res1 = await request(app).post('/soap12').set('Content-Type', SOAP12_CT).send(noBody).expect(400);
      expect(parseFault(res1.text)).to.include({ code: SENDER, reason: 'The SOAP 1.2 Envelope has no Body.' });
      const res2 = await request(app)
        .post('/soap12')
        .set('Content-Type', SOAP12_CT)
        .send(soap12Envelope(''))
        .expect(400);
      expect(parseFault(res2.text).code).to.equal(SENDER);
    });

    it('a SOAP 1.1 envelope gets a VersionMismatch fault, the Upgrade header naming SOAP 1.2 (HTTP 500)', async () => {
      const env11 =
        `<s:Envelope xmlns:s="${SOAP11_NS}">` + `<s:Body><EchoRequest xmlns="${TYPES_NS}"/></s:Body></s:Envelope>`;
      const res = await request(app)
        .post('/soap12')
        .set('Content-Type', 'text/xml; charset=utf-8')
        .set('SOAPAction', '"EchoRequest"')
        .send(env11)
        .expect(500);
      // SOAP 1.2 part 1, appendix A: the fault to a SOAP 1.1 message is a SOAP 1.1 fault, so a 1.1 client reads it.
      expect(res.headers['content-type']).to.equal('text/xml; charset=utf-8');
      const fault = parseFault(res.text);
      expect(fault.envelopeNs).to.equal(SOAP11_NS);
      expect(fault.faultcode11).to.equal(`{${SOAP11_NS}}VersionMismatch`);
      expect(res.text).to.contain('<env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/">');
      expect(res.text).to.contain('<faultcode>env:VersionMismatch</faultcode>');
      expect(fault.upgradeQNameNs).to.equal(SOAP12_NS);
      expect(res.text).to.match(/<upg:Upgrade xmlns:upg="http:\/\/www.w3.org\/2003\/05\/soap-envelope">/);
    });

    it('a root element that is not a SOAP Envelope gets a SOAP 1.2 env:VersionMismatch with env:Upgrade', async () => {
      const res = await request(app).post('/soap12').set('Content-Type', SOAP12_CT).send('<EchoRequest/>').expect(500);
      expect(res.headers['content-type']).to.equal(SOAP12_CT);
      const fault = parseFault(res.text);
      expect(fault.code).to.equal(`{${SOAP12_NS}}VersionMismatch`);
      expect(fault.upgradeQNameNs).to.equal(SOAP12_NS);
      expect(res.text).to.contain('<env:Header><env:Upgrade>');
    });

    it('a text/plain body gets 415 with a SOAP fault', async () => {
      const res = await request(app)
        .post('/soap12')
        .set('Content-Type', 'text/plain')
        .send(soap12Envelope('<EchoRequest/>'))
        .expect(415);
      expect(res.headers['content-type']).to.equal(SOAP12_CT);
      expect(parseFault(res.text).subcode).to.equal(`{${TYPES_NS}}UnsupportedMediaType`);
    });

    it('a gzip-encoded body gets 415', async () => {
      await request(app)
        .post('/soap12')
        .set('Content-Type', SOAP12_CT)
        .set('Content-Encoding', 'gzip')
        .send('x')
        .expect(415);
    });

    it('the 404 handler installed after mountSoap12 still sees other paths', async () => {
      await request(app).get('/soap12/nothing').expect(404);
      await request(app).get('/other').expect(404);
    });

    it('describe() asked twice has node-soap describe the service once', async () => {
      const twice = express();
      const mount = await mountSoap12(twice, { bodyLimitBytes: 1_000 });
      const first = mount.describe();
      expect(mount.describe()).to.equal(first);
      await first;
      const routes = (twice.router as unknown as { stack: unknown[] }).stack.length;
      await mount.describe();
      expect((twice.router as unknown as { stack: unknown[] }).stack.length).to.equal(routes);
    });
  });

  describe('hostile XML', () => {
    const passwdMarker = 'root:';

    const post = (body: string | Buffer, contentType = SOAP12_CT) =>
      request(app).post('/soap12').set('Content-Type', contentType).send(body);

    it('an external entity (XXE) is refused at its DOCTYPE and no file is read', async () => {
      const xxe =
        `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>` +
        soap12Envelope(`<EchoRequest xmlns="${TYPES_NS}"><Message>&e;</Message></EchoRequest>`).replace(
          /^<\?xml[^>]*>/,
          '',
        );
      const res = await post(xxe);
      expect(res.status).to.equal(400);
      expect(parseFault(res.text).code).to.equal(SENDER);
      expect(parseFault(res.text).reason).to.match(/DOCTYPE/);
      expect(res.text).not.to.contain(passwdMarker);
    });

    it('an external entity used as the operation name leaks nothing either', async () => {
      const xxe =
        `<!DOCTYPE soap:Envelope [<!ENTITY e SYSTEM "file:///etc/passwd">]><soap:Envelope ` +
        `xmlns:soap="${SOAP12_NS}"><soap:Body><x>&e;</x></soap:Body></soap:Envelope>`;
      const res = await post(xxe, 'text/xml');
      expect(res.status).to.equal(400);
      expect(res.text).not.to.contain(passwdMarker);
    });

    it('billion laughs is refused at its DOCTYPE, before any entity is expanded', async () => {
      const lol =
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
        Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join(
          '',
        ) +
        ']>' +
        soap12Envelope('<EchoRequest><Message>&lol9;</Message></EchoRequest>').replace(/^<\?xml[^>]*>/, '');
      const res = await post(lol);
      expect(res.status).to.equal(400);
      expect(parseFault(res.text).code).to.equal(SENDER);
      expect(parseFault(res.text).reason).to.match(/DOCTYPE/);
      expect(res.text.length).to.be.below(4000);
    });

    it('an undeclared entity reference is malformed (no HTML entities)', async () => {
      const res = await post(soap12Envelope('<EchoRequest><Message>&nbsp;</Message></EchoRequest>'));
      expect(res.status).to.equal(400);
      expect(parseFault(res.text).code).to.equal(SENDER);
    });

    it('a 10 MB body is refused with 413 and a SOAP fault', async () => {
      const big = soap12Envelope(`<EchoRequest><Message>${'a'.repeat(10 * 1024 * 1024)}</Message></EchoRequest>`);
      const res = await post(big);
      expect(res.status).to.equal(413);
      expect(res.headers['content-type']).to.equal(SOAP12_CT);
      expect(parseFault(res.text)).to.include({ code: SENDER, subcode: `{${TYPES_NS}}RequestEntityTooLarge` });
    });

    it('a 10 MB chunked body (no Content-Length) is cut off at the limit, answered before it is all sent', async () => {
      const { request: httpRequest } = await import('node:http');
      const TEN_MB = 10 * 1024 * 1024;
      let sent = 0;
      const { status, body, sentBeforeAnswer } = await new Promise<{
        status: number;
        body: string;
        sentBeforeAnswer: number;
      }>((resolve, reject) => {
        const req = httpRequest(
          `${base}/soap12`,
          { method: 'POST', headers: { 'Content-Type': SOAP12_CT, 'Transfer-Encoding': 'chunked' } },
          (res) => {
            const sentBeforeAnswer = sent;
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (body += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sentBeforeAnswer }));
          },
        );
        req.on('error', (error: NodeJS.ErrnoException) => {
          // The server may close the connection while we are still sending; the answer has been read by then.
          if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
        });
        const chunk = Buffer.alloc(64 * 1024, 'a');
        const pump = () => {
          while (sent < TEN_MB) {
            sent += chunk.length;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          req.end();
        };
        req.write(`<soap:Envelope xmlns:soap="${SOAP12_NS}"><soap:Body><x>`);
        pump();
      });
      expect(status).to.equal(413);
      expect(parseFault(body).subcode).to.equal(`{${TYPES_NS}}RequestEntityTooLarge`);
      expect(sentBeforeAnswer, 'bytes sent when the answer came').to.be.below(TEN_MB);
    });
  });
});
