/**
 * ServiceStack's metadata pages (issue 10, group 3), as a real ServiceStack 4.5.14 self-host served them for the
 * spec's DTOs: GET / → 302 /metadata, the HTML operations page, per-format operation pages with samples filled as
 * the host filled them, /operations/metadata, /types and /types/metadata as JSON, the WSDLs linked.
 */
import { expect } from 'chai';
import request from 'supertest';
import { expectNativeTypesIndex } from '../../support/native-types-index.ts';
import { createTestApp, type TestApp } from '../../support/test-app.ts';

describe('ServiceStack 4.5 metadata pages (as a real 4.5.14 host served them)', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('GET / answers 302 to /metadata (absolute, as the host wrote Location)', async () => {
    const res = await request(t.app).get('/').set('Host', 'reports.example.com').expect(302);
    expect(res.headers.location).to.equal('http://reports.example.com/metadata');
    expect(res.text).to.equal('');
    expect(res.headers.vary).to.equal('Accept');
  });

  it('/metadata lists every operation with a link to its page in XML, JSON, JSV and CSV, and the WSDLs', async () => {
    const res = await request(t.app).get('/metadata').expect(200);
    expect(res.headers['content-type']).to.equal('text/html; charset=utf-8');
    for (const op of ['EchoRequest', 'GetFlatRequest']) {
      expect(res.text).to.contain(
        `<tr><th>${op}</th><td><a href="/xml/metadata?op=${op}">XML</a></td><td><a ` +
          `href="/json/metadata?op=${op}">JSON</a></td><td><a href="/jsv/metadata?op=${op}">JSV</a></td><td><a ` +
          `href="/csv/metadata?op=${op}">CSV</a></td></tr>`,
      );
    }
    expect(res.text).to.contain('<a href="/soap11">soap11</a>').and.contain('<a href="/soap12">soap12</a>');
  });

  it(
    "/json/metadata?op=GetFlatRequest: routes, properties with .NET types, and the host's sample " + 'response',
    async () => {
      const res = await request(t.app).get('/json/metadata?op=GetFlatRequest').expect(200);
      expect(res.text).to.contain('<tr><th>GET</th><th>/v1/Reporting/ProfitAndLoss/Flat</th></tr>');
      expect(res.text).to.contain('<tr><td>Filters</td><td>query</td><td>List&lt;Guid&gt;</td>');
      expect(res.text).to.contain('<tr><td>StartDate</td><td>query</td><td>DateTime</td>');
      expect(res.text).to.contain('<tr><td>CompanyId</td><td>query</td><td>int</td>');
      // The host's sample: strings "String", dates DateTime.MinValue, GUIDs empty, lists of one item.
      expect(res.text).to.contain(
        '{&quot;Url&quot;:&quot;String&quot;,&quot;SelectedOptions&quot;:{&quot;ReportType&quot;:&quot;String&' +
          'quot;,&quot;DateFrequency&quot;:&quot;String&quot;,&quot;UseAccountMapping&quot;:false,',
      );
      expect(res.text).to.contain('&quot;StartDate&quot;:&quot;\\/Date(-62135596800000-0000)\\/&quot;');
      expect(res.text).to.contain(
        '&quot;Filters&quot;:[&quot;00000000000000000000000000000000&quot;],&quot;Locations&quot;:[0]}',
      );
    },
  );

  it('/xml/metadata?op=EchoRequest shows the samples as DataContract XML, /jsv/ as JSV, /csv/ as CSV', async () => {
    const xml = await request(t.app).get('/xml/metadata?op=EchoRequest').expect(200);
    expect(xml.text).to.contain(
      '&lt;EchoResponse xmlns:i=&quot;http://www.w3.org/2001/XMLSchema-instance&quot; ' +
        'xmlns=&quot;http://schemas.servicestack.net/types&quot;&gt;',
    );
    const jsv = await request(t.app).get('/jsv/metadata?op=EchoRequest').expect(200);
    expect(jsv.text).to.contain(
      '{Message:String,CompanyName:String,ResponseStatus:{ErrorCode:String,Message:String,StackTrace:String,' +
        'Errors:[{ErrorCode:String,FieldName:String,Message:String}]}}',
    );
    const csv = await request(t.app).get('/csv/metadata?op=EchoRequest').expect(200);
    expect(csv.text).to.contain('Message,CompanyName,ResponseStatus');
  });

  it('/json/metadata without ?op= is the operations page', async () => {
    const res = await request(t.app).get('/json/metadata').expect(200);
    expect(res.text).to.contain('<th>GetFlatRequest</th>');
  });

  it('/operations/metadata lists the operations as JSON', async () => {
    const res = await request(t.app).get('/operations/metadata').expect(200);
    expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(res.body).to.deep.equal([
      {
        Name: 'EchoRequest',
        ResponseName: 'EchoResponse',
        ServiceName: 'EchoService',
        Actions: ['GET', 'POST'],
        Routes: ['/v1/echo/{Message}'],
      },
      {
        Name: 'GetFlatRequest',
        ResponseName: 'GetFlatResponse',
        ServiceName: 'GetFlatService',
        Actions: ['GET', 'POST'],
        Routes: ['/v1/Reporting/ProfitAndLoss/Flat'],
      },
    ]);
  });

  it('/types indexes the native-types routes this service serves, each of which answers', () =>
    expectNativeTypesIndex(t.app));

  it(
    '/types/metadata is the MetadataTypes document: operations with routes, DTO properties with their .NET ' + 'types',
    async () => {
      const res = await request(t.app).get('/types/metadata').set('Host', 'reports.example.com').expect(200);
      expect(res.body.Config.BaseUrl).to.equal('http://reports.example.com');
      const flat = res.body.Operations.find((o: { Request: { Name: string } }) => o.Request.Name === 'GetFlatRequest');
      expect(flat.Request.Routes).to.deep.equal([{ Path: '/v1/Reporting/ProfitAndLoss/Flat', Verbs: 'GET' }]);
      expect(flat.Request.ReturnMarkerTypeName.Name).to.equal('GetFlatResponse');
      expect(flat.Request.Properties.find((p: { Name: string }) => p.Name === 'Filters')).to.deep.equal({
        Name: 'Filters',
        Type: 'List`1',
        IsSystemType: true,
        TypeNamespace: 'System.Collections.Generic',
        GenericArgs: ['Guid'],
      });
      expect(flat.Request.Properties.find((p: { Name: string }) => p.Name === 'CompanyId')).to.deep.equal({
        Name: 'CompanyId',
        Type: 'Int32',
        IsValueType: true,
        IsSystemType: true,
        TypeNamespace: 'System',
      });
      expect(res.body.Types.map((t: { Name: string }) => t.Name)).to.include.members([
        'SelectedOptions',
        'ReportModel',
      ]);
    },
  );
});
