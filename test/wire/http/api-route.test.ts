/**
 * ServiceStack 6+'s pre-defined `/api/{Op}` route (PredefinedRoutesFeature.JsonApiRoute; a 4.5 host had none), served
 * beside `/{format}/reply/{Op}` so newer ServiceStack clients work with their default base path; and the `Allow`
 * header RFC 9110 requires on every 405 the pre-defined routes answer.
 */
import { expect } from 'chai';
import request from 'supertest';
import { DINE_IN } from '../../fixtures/worked-example.ts';
import { createTestApp, TEST_COMPANY_NAME, type TestApp } from '../../support/test-app.ts';

describe('/api/{Op} (ServiceStack 6+ pre-defined route) and Allow on 405', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('GET /api/EchoRequest binds the query string and answers JSON, as /json/reply/EchoRequest does', async () => {
    const api = await request(t.app).get('/api/EchoRequest?Message=hi').expect(200);
    const reply = await request(t.app).get('/json/reply/EchoRequest?Message=hi').expect(200);
    expect(api.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(api.text).to.equal(reply.text);
    expect(api.body).to.deep.equal({ Message: 'hi', CompanyName: TEST_COMPANY_NAME, ResponseStatus: {} });
  });

  it(
    'POST /api/GetFlatRequest reads a JSON body (whatever its Content-Type, as /json/reply/) and needs a key like ' +
      'the others',
    async () => {
      const body = JSON.stringify({
        CompanyId: 1,
        UseCustomDateRange: true,
        StartDate: '/Date(1704067200000)/',
        EndDate: '2024-02-29',
        Filters: [DINE_IN],
      });
      const res = await request(t.app)
        .post('/api/GetFlatRequest')
        .set('Content-Type', 'text/plain')
        .send(body)
        .expect(200);
      expect(res.body.ReportModel.ColumnNames).to.deep.equal(['Jan 2024', 'Feb 2024']);
      const anonymous = await request(t.rawApp)
        .post('/api/GetFlatRequest')
        .set('Content-Type', 'application/json')
        .send(body)
        .expect(401);
      expect(anonymous.body.ResponseStatus.ErrorCode).to.equal('Unauthorized');
    },
  );

  it(
    'an extension picks the format, as ServiceStack 6 reads /api/{Op}.{ext}; ?format= and JSONP work as on ' +
      '/json/reply/',
    async () => {
      const xml = await request(t.app).get('/api/EchoRequest.xml?Message=hi').expect(200);
      expect(xml.headers['content-type']).to.match(/^application\/xml/);
      expect(xml.text).to.contain('<Message>hi</Message>');
      const csv = await request(t.app).get('/api/EchoRequest?Message=hi&format=csv').expect(200);
      expect(csv.headers['content-type']).to.match(/^text\/csv/);
      const jsonp = await request(t.app).get('/api/EchoRequest?Message=hi&callback=cb').expect(200);
      expect(jsonp.headers['content-type']).to.equal('text/javascript');
      expect(jsonp.text).to.equal(`cb({"Message":"hi","CompanyName":"${TEST_COMPANY_NAME}","ResponseStatus":{}})`);
    },
  );

  it('validation errors name the field as on /json/reply/', async () => {
    const res = await request(t.app).get('/api/GetFlatRequest?CompanyId=abc').expect(400);
    expect(res.body.ResponseStatus.Errors.map((e: { FieldName: string }) => e.FieldName)).to.deep.equal(['CompanyId']);
  });

  it(
    'an unknown operation is 405 NotImplementedException with an empty Allow; a verb the operation lacks is 405 ' +
      'listing its verbs',
    async () => {
      const unknown = await request(t.app).get('/api/NoSuchRequest').expect(405);
      expect(unknown.body.ResponseStatus).to.deep.equal({
        ErrorCode: 'NotImplementedException',
        Message: "The operation 'NoSuchRequest' does not exist for this service",
      });
      expect(unknown.headers.allow).to.equal('');
      const put = await request(t.app).put('/api/EchoRequest').send({}).expect(405);
      expect(put.body.ResponseStatus.Message).to.equal(
        'Could not find method named Put(EchoRequest) or Any(EchoRequest) on Service EchoService',
      );
      expect(put.headers.allow).to.equal('GET, HEAD, POST');
    },
  );

  it(
    'only /api/ in lower case with one operation name, as ServiceStack matched it; the /api index is not ' + 'served',
    async () => {
      for (const path of ['/API/EchoRequest', '/api/v1/EchoRequest', '/api', '/api/']) {
        const res = await request(t.app).get(path).expect(404);
        expect(res.headers['content-type'], path).to.match(/^text\/plain/);
      }
    },
  );

  it('every 405 of the 4.5 pre-defined routes carries Allow too', async () => {
    const put = await request(t.app).put('/json/reply/EchoRequest').send({}).expect(405);
    expect(put.headers.allow).to.equal('GET, HEAD, POST');
    const del = await request(t.app).delete('/xml/reply/GetFlatRequest').expect(405);
    expect(del.headers.allow).to.equal('GET, HEAD, POST');
    const unknown = await request(t.app).get('/json/reply/Nope').expect(405);
    expect(unknown.headers.allow).to.equal('');
  });
});
