/**
 * Red-team findings (issue 15) on the request path, each reproduced as the attacker sent it: a deeply nested SOAP
 * body (finding 1), deeply nested JSON, dates outside years 0100-9999, corrupt compressed bodies (finding 7).
 * Each attack used to hang the process or answer 500; each now gets a 4xx naming the reason.
 */
import { expect } from 'chai';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import request from 'supertest';
import { MAX_XML_DEPTH, MAX_XML_ELEMENTS } from '../../../src/soap/envelope.ts';
import { createTestApp, type TestApp } from '../../support/test-app.ts';
import { parseFault, soap12Envelope, SOAP12_NS } from '../../support/soap.ts';

const SOAP12_CT = 'application/soap+xml; charset=utf-8';
/** Sends a Buffer as it is (superagent would JSON-encode it under a JSON Content-Type; it writes what this returns). */
const asBytes = (body: Buffer) => body as unknown as string;

describe('hostile requests (issue 15)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ config: { bodyLimitBytes: 1_048_576 } });
  });
  after(() => t.close());

  describe('finding 1: nested SOAP bodies', () => {
    it(
      'a 410 KB body nesting 60,000 elements is refused at the depth cap (it held the event loop for a ' + 'minute)',
      async () => {
        const depth = 60_000;
        const body = soap12Envelope('<a>'.repeat(depth) + '</a>'.repeat(depth));
        expect(body.length).to.be.above(400_000);
        const res = await request(t.app).post('/soap12').set('Content-Type', SOAP12_CT).send(body);
        expect(res.status).to.equal(400);
        const fault = parseFault(res.text);
        expect(fault.code).to.equal(`{${SOAP12_NS}}Sender`);
        expect(fault.reason).to.contain(`deeper than ${MAX_XML_DEPTH} levels`);
      },
    );

    it('nesting up to the cap is read (the operation is named in the fault)', async () => {
      const levels = MAX_XML_DEPTH - 3; // Envelope, Body, then the operation element
      const body = soap12Envelope(`<Op>${'<a>'.repeat(levels)}${'</a>'.repeat(levels)}</Op>`);
      const res = await request(t.app).post('/soap12').set('Content-Type', SOAP12_CT).send(body);
      expect(parseFault(res.text).reason).to.contain("The operation 'Op' does not exist");
    });

    it('a flat body of 250,000 elements is refused at the element cap', async () => {
      const res = await request(t.app)
        .post('/soap12')
        .set('Content-Type', SOAP12_CT)
        .send(soap12Envelope('<a/>'.repeat(250_000)));
      expect(res.status).to.equal(400);
      expect(parseFault(res.text).reason).to.contain(`more than ${MAX_XML_ELEMENTS} elements`);
    });
  });

  describe('finding 7: nested JSON, out-of-range dates, corrupt encodings', () => {
    it('deeply nested JSON in a field is a 400 naming the field, not a stack overflow (500)', async () => {
      const depth = 200_000;
      const res = await request(t.app)
        .post('/json/reply/EchoRequest')
        .set('Content-Type', 'application/json')
        .send(`{"Message":${'['.repeat(depth)}${']'.repeat(depth)}}`);
      expect(res.status).to.equal(400);
      expect(res.body.ResponseStatus.ErrorCode).to.equal('SerializationException');
      expect(res.body.ResponseStatus.Errors[0].FieldName).to.equal('Message');
      expect(res.body.ResponseStatus.Errors[0].Message.length).to.be.below(300);
    });

    const flat = (query: string) =>
      request(t.app).get(`/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&UseCustomDateRange=true&${query}`);

    for (const [what, query, field] of [
      ['year 0 as /Date()/', 'StartDate=/Date(-62198755200000)/&EndDate=2024-01-01', 'StartDate'],
      ['a year before 0 as /Date()/', 'StartDate=/Date(-99999999999999)/&EndDate=2024-01-01', 'StartDate'],
      ['year 10000 as /Date()/', 'StartDate=2024-01-01&EndDate=/Date(253402300800000)/', 'EndDate'],
      ['the largest JS date as /Date()/', 'StartDate=2024-01-01&EndDate=/Date(8640000000000000)/', 'EndDate'],
      ['year 0000 as ISO', 'StartDate=0000-06-01&EndDate=2024-01-01', 'StartDate'],
    ] as const) {
      it(`a date outside years 0100-9999 (${what}) is a 400 naming ${field}`, async () => {
        const res = await flat(query);
        expect(res.status).to.equal(400);
        expect(res.body.ResponseStatus.Errors.map((e: { FieldName: string }) => e.FieldName)).to.deep.equal([field]);
      });
    }

    it(
      'years 0001-0099 are refused as /Date()/ as they are as ISO (the contract starts at 0100); 0100 is read ' +
        'both ways',
      async () => {
        const ms = (iso: string) => Date.parse(`${iso}T00:00:00Z`);
        for (const query of [
          'StartDate=0050-01-01&EndDate=0050-02-28',
          `StartDate=/Date(${ms('0050-01-01')})/&EndDate=/Date(${ms('0050-02-28')})/`,
        ]) {
          const res = await flat(query);
          expect(res.status, query).to.equal(400);
          expect(
            res.body.ResponseStatus.Errors.map((e: { FieldName: string }) => e.FieldName),
            query,
          ).to.deep.equal(['StartDate', 'EndDate']);
        }
        const iso = await flat('StartDate=0100-01-01&EndDate=0100-02-28').expect(200);
        const wcf = await flat(`StartDate=/Date(${ms('0100-01-01')})/&EndDate=/Date(${ms('0100-02-28')})/`).expect(200);
        // The same dates, each in the offset form 4.5.14 wrote for its kind (issue 24): a query ISO date Local,
        // /Date(ms)/ UTC.
        expect(iso.body.SelectedOptions.StartDate).to.equal(`/Date(${ms('0100-01-01')}+0000)/`);
        expect(wcf.body.SelectedOptions.StartDate).to.equal(`/Date(${ms('0100-01-01')})/`);
        const undated = (options: Record<string, unknown>) => ({
          ...options,
          StartDate: undefined,
          EndDate: undefined,
        });
        expect(undated(wcf.body.SelectedOptions)).to.deep.equal(undated(iso.body.SelectedOptions));
      },
    );

    for (const encoding of ['gzip', 'deflate', 'br']) {
      it(`a corrupt Content-Encoding: ${encoding} body is a 400, not a 500`, async () => {
        const res = await request(t.app)
          .post('/json/reply/EchoRequest')
          .set('Content-Type', 'application/json')
          .set('Content-Encoding', encoding)
          .serialize(asBytes)
          .send(Buffer.from('\x1f\x8b\x08\x00 not compressed at all'));
        expect(res.status).to.equal(400);
        expect(res.body.ResponseStatus.ErrorCode).to.equal('SerializationException');
      });
    }

    it('a valid compressed body is still read', async () => {
      const json = JSON.stringify({ Message: 'packed' });
      for (const [encoding, bytes] of [
        ['gzip', gzipSync(json)],
        ['deflate', deflateSync(json)],
        ['br', brotliCompressSync(json)],
      ] as const) {
        const res = await request(t.app)
          .post('/json/reply/EchoRequest')
          .set('Content-Type', 'application/json')
          .set('Content-Encoding', encoding)
          .serialize(asBytes)
          .send(bytes);
        expect(res.status, encoding).to.equal(200);
        expect(res.body.Message).to.equal('packed');
      }
    });
  });
});
