/**
 * A batch's answer list is measured as it grows (MAX_BATCH_ANSWER_BYTES) in its negotiated format: a format with a
 * ListWriter (JSON, JSONP, XML, JSV, CSV) writes each answer once, and the list sent is made of those texts, its bytes
 * those counted and the same as the list written whole; a format without one (none documented for batches today) is
 * measured by writing the list, and counted exactly too.
 */
import { expect } from 'chai';
import express from 'express';
import { pino } from 'pino';
import request from 'supertest';
import { contractOperations } from '../../../src/contract/operations.ts';
import { builtInFormats } from '../../../src/formats/built-in.ts';
import { createFormatRegistry, type FormatEntry } from '../../../src/formats/registry.ts';
import { contextOf } from '../../../src/http/request-context.ts';
import { resolveOperation } from '../../../src/http/resolve-operation.ts';
import { createResponseWriter } from '../../../src/http/response-writer.ts';
import { REPORT_ASSETS } from '../../../src/http/static-pages.ts';

/** Answers whose texts differ in each format: multi-byte, quoted and escaped characters, a formula-like cell. */
const ANSWERS = ['a', 'b,"c"\nd', '€ <&> {x:[1]}', '=1+2', ''].map((Message) => ({
  Message,
  CompanyName: 'Acme Pty',
  ResponseStatus: {},
}));

/** How often each format wrote a list whole, and an answer as a list item. */
interface Writes {
  lists: number;
  items: number;
}

/**
 * The built-in entries, each counting its writes into `writes` (and otherwise writing as it does); `without` the
 * ListWriter of that format.
 */
function countingFormats(writes: Writes, without?: string): FormatEntry[] {
  return builtInFormats(REPORT_ASSETS).map((entry) => ({
    ...entry,
    writeDto:
      entry.writeDto &&
      ((dto, ctx) => {
        if (Array.isArray(dto)) writes.lists++;
        return entry.writeDto!(dto, ctx);
      }),
    listWriter:
      entry.format === without || !entry.listWriter
        ? undefined
        : (first, ctx) => {
            const writer = entry.listWriter!(first, ctx);
            return {
              ...writer,
              item: (dto) => {
                writes.items++;
                return writer.item(dto);
              },
            };
          },
  }));
}

/** An app answering `/{format}/reply/EchoRequest[]` with ANSWERS: measured one by one first unless `?whole`. */
function batchApp(writes: Writes, without?: string): express.Express {
  const formats = createFormatRegistry(countingFormats(writes, without));
  const operations = contractOperations();
  const writer = createResponseWriter({ formats, operations, debug: false, logger: pino({ level: 'silent' }) });
  const app = express();
  app.use(resolveOperation(operations.all, formats));
  app.use(writer.install);
  app.use((req, res) => {
    contextOf(res).serviceStarted = true;
    const answers = [...ANSWERS];
    if (req.query.whole === undefined) {
      const meter = writer.listMeter(res);
      let counted = 0;
      for (const answer of answers) counted = meter(answer);
      res.setHeader('X-Counted', String(counted));
    }
    res.json(answers);
  });
  return app;
}

describe("a batch's answer list is counted as it is written", () => {
  const cases = [
    { format: 'json', query: '' },
    { format: 'json', query: '&callback=cb' },
    { format: 'xml', query: '' },
    { format: 'jsv', query: '' },
    { format: 'csv', query: '' },
  ];
  for (const { format, query } of cases) {
    it(`${format}${query}: each answer written once, the list sent is the bytes counted, as whole`, async () => {
      const writes: Writes = { lists: 0, items: 0 };
      const app = batchApp(writes);
      const metered = await request(app).post(`/${format}/reply/EchoRequest[]?x=1${query}`).buffer(true).expect(200);
      expect(writes).to.deep.equal({ lists: 0, items: ANSWERS.length });
      expect(metered.headers['content-length']).to.equal(metered.headers['x-counted']);
      const whole = await request(app).post(`/${format}/reply/EchoRequest[]?whole${query}`).buffer(true).expect(200);
      expect(writes.lists).to.equal(1);
      expect(metered.text).to.equal(whole.text);
    });
  }

  it('jsv without its ListWriter: the list is measured by writing it, and counted exactly', async () => {
    const writes: Writes = { lists: 0, items: 0 };
    const app = batchApp(writes, 'jsv');
    const metered = await request(app).post('/jsv/reply/EchoRequest[]').buffer(true).expect(200);
    expect(writes.items).to.equal(0);
    // Each as a list of one, the first also as a list of two, then the list whole.
    expect(writes.lists).to.equal(ANSWERS.length + 2);
    expect(metered.headers['content-length']).to.equal(metered.headers['x-counted']);
  });
});
