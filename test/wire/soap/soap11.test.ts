/**
 * /soap11 beside /soap12, as a real ServiceStack 4.5.14 host served it: the same contract as a SOAP 1.1 WSDL. The
 * host's /soap11 WSDL differed from its /soap12 one exactly in these names (diffed side by side): name="Soap11",
 * BasicHttpBinding_ISyncReply, soap: (WSDL SOAP 1.1) binding/operation/body/address elements, address …/soap11.
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import request from 'supertest';
import * as soap from 'soap';
import type { Express } from 'express';
import { listenSoapApp, SOAP11_NS } from '../../support/soap.ts';

describe('SOAP 1.1 WSDL /soap11', () => {
  let app: Express;
  let server: Server;
  let base: string;
  before(async () => ({ app, server, base } = await listenSoapApp()));
  after(() => new Promise((resolve) => server.close(resolve)));

  for (const path of ['/soap11', '/soap11?wsdl', '/SOAP11?WSDL']) {
    it(`GET ${path} serves the SOAP 1.1 WSDL as text/xml with the request's address`, async () => {
      const res = await request(app).get(path).set('Host', 'reports.example.com:8443').expect(200);
      expect(res.headers['content-type']).to.equal('text/xml; charset=utf-8');
      expect(res.text).to.match(/^<\?xml version="1.0" encoding="utf-8"\?>/);
      expect(res.text).to.contain('<wsdl:definitions name="Soap11"');
      expect(res.text).to.contain('<wsdl:binding name="BasicHttpBinding_ISyncReply" type="svc:ISyncReply">');
      expect(res.text).to.contain('<soap:binding transport="http://schemas.xmlsoap.org/soap/http" />');
      expect(res.text).to.contain(
        '<wsdl:port name="BasicHttpBinding_ISyncReply" binding="svc:BasicHttpBinding_ISyncReply">',
      );
      expect(res.text).to.contain('<soap:address location="http://reports.example.com:8443/soap11" />');
      expect(res.text).not.to.match(/<soap12:|WSHttpBinding/);
    });
  }

  it(
    'a real SOAP client (node-soap) loads it and sees SyncReply on the SOAP 1.1 binding, with no ' + 'operations',
    async () => {
      const client = await soap.createClientAsync(`${base}/soap11?wsdl`);
      expect(client.describe()).to.deep.equal({ SyncReply: { BasicHttpBinding_ISyncReply: {} } });
    },
  );

  it('/soap12 is unchanged beside it', async () => {
    const res = await request(app).get('/soap12').expect(200);
    expect(res.text).to.contain('<wsdl:definitions name="Soap12"');
  });

  it('a SOAP 1.1 message POSTed to /soap11 gets a SOAP 1.1 fault (no operation is callable)', async () => {
    const envelope =
      `<?xml version="1.0"?><soap:Envelope xmlns:soap="${SOAP11_NS}"><soap:Body><EchoRequest ` +
      `xmlns="http://schemas.servicestack.net/types"><Message>hi</Message></EchoRequest></soap:Body>` +
      `</soap:Envelope>`;
    const res = await request(app)
      .post('/soap11')
      .set('Content-Type', 'text/xml; charset=utf-8')
      .set('SOAPAction', '"EchoRequest"')
      .send(envelope);
    expect(res.status).to.be.within(400, 599);
    expect(res.headers['content-type']).to.equal('text/xml; charset=utf-8');
    expect(res.text).to.contain(SOAP11_NS);
    expect(res.text).to.match(/<(\w+:)?Fault\b/);
    expect(res.text).to.contain('NotImplementedException');
  });
});
