/**
 * Red team round 3 (issue 25), findings 1, 2 and 8 (charsets), each sent as the attacker sent it to the app listening
 * on a real port:
 *  1. a ~100-byte multipart field `CompanyId[100000000]` made multer build a sparse array of length 10^8 that the
 *     binder then wrote out as text (35-96 s frozen, 3-4 GB); `X[4294967294]` then `X[a]` made append-field walk
 *     4·10^9 holes. Now a bracketed index at or above MAX_ARRAY_ITEMS is a 400 naming the key as sent, in multipart
 *     and urlencoded bodies, in JSON property names and in the query; nothing is sized by it.
 *  2. multipart bodies ignored the body limit (1,000 fields × 1 MB accepted): now the body, each field, the number
 *     of fields and parts, field names and file parts each have a limit, and going over one is a 413 naming it.
 *  8. a body in a charset other than UTF-8 / ISO-8859-1 (UTF-7, UTF-16) is a 415, not decoded.
 */
import { expect } from 'chai';
import http from 'node:http';
import { listenTestApp, type ListeningTestApp } from '../../support/listening.ts';

interface Answer {
  status: number;
  body: {
    ResponseStatus?: { ErrorCode: string; Message: string; Errors?: { FieldName: string; Message: string }[] };
    [k: string]: unknown;
  };
}

describe('hostile bodies (issue 25, findings 1, 2, 8)', function () {
  this.timeout(30_000);
  let t: ListeningTestApp;
  const headers = () => ({ 'X-ApiKey': t.apiKey });
  before(async () => {
    t = await listenTestApp({ config: { bodyLimitBytes: 1_048_576, maxArrayItems: 1000 } });
  });
  after(() => t.close());

  async function send(path: string, init: RequestInit): Promise<Answer> {
    const res = await fetch(`${t.url}${path}`, {
      ...init,
      headers: { ...headers(), ...(init.headers as Record<string, string> | undefined) },
    });
    return { status: res.status, body: (await res.json()) as Answer['body'] };
  }
  const formOf = (fields: [string, string][]) => {
    const form = new FormData();
    for (const [name, value] of fields) form.append(name, value);
    return form;
  };
  const multipart = (fields: [string, string][]) =>
    send('/json/reply/GetFlatRequest', { method: 'POST', body: formOf(fields) });
  const fieldNames = (answer: Answer) => (answer.body.ResponseStatus?.Errors ?? []).map((e) => e.FieldName);

  describe('finding 1: huge array indices', () => {
    it('a multipart field CompanyId[100000000] (the 100-byte freeze) is a 400 naming the field', async () => {
      const answer = await multipart([['CompanyId[100000000]', '1']]);
      expect(answer.status).to.equal(400);
      expect(answer.body.ResponseStatus!.ErrorCode).to.equal('SerializationException');
      expect(fieldNames(answer)).to.deep.equal(['CompanyId[100000000]']);
      expect(answer.body.ResponseStatus!.Errors![0]!.Message).to.contain('above the limit of 1000 items');
    });

    it(
      'X[4294967294] followed by X[a] (append-field walked 4·10^9 holes) is a 400, and three such fields name all ' +
        'three',
      async () => {
        const answer = await multipart([
          ['Locations[4294967294]', '1'],
          ['Locations[a]', '2'],
          ['Filters[99999999]', 'x'],
          ['StartDate[100000000]', 'y'],
        ]);
        expect(answer.status).to.equal(400);
        expect(fieldNames(answer)).to.have.members([
          'Locations[4294967294]',
          'Filters[99999999]',
          'StartDate[100000000]',
        ]);
      },
    );

    it('an index of 10,000 digits is refused by its text (never read as a number of items)', async () => {
      const key = `Locations[${'9'.repeat(10_000)}]`;
      const answer = await send('/json/reply/GetFlatRequest', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `CompanyId=1&${key}=1`,
      });
      expect(answer.status).to.equal(400);
      expect(fieldNames(answer)[0]).to.equal(`${key.slice(0, 200)}…`);
    });

    for (const [body, what] of [
      ['urlencoded', 'application/x-www-form-urlencoded'],
      ['JSON property name', 'application/json'],
    ] as const) {
      it(`in a ${body} body: Locations[100000000] is a 400 naming it, Locations[999] binds`, async () => {
        const encode = (key: string) =>
          what === 'application/json'
            ? JSON.stringify({ CompanyId: 1, [key]: 10 })
            : `CompanyId=1&${encodeURIComponent(key)}=10`;
        const refused = await send('/json/reply/GetFlatRequest', {
          method: 'POST',
          headers: { 'Content-Type': what },
          body: encode('Locations[100000000]'),
        });
        expect(refused.status).to.equal(400);
        expect(fieldNames(refused)).to.deep.equal(['Locations[100000000]']);
        const kept = await send('/json/reply/GetFlatRequest', {
          method: 'POST',
          headers: { 'Content-Type': what },
          body: encode('Locations[999]'),
        });
        expect(kept.status).to.equal(200);
      });
    }

    it(
      'in the query: Locations[1000] is a 400 naming it (the limit is 1000 items: indices 0-999), Locations[999] ' +
        'binds',
      async () => {
        const refused = await send('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&Locations[1000]=10', {
          method: 'GET',
        });
        expect(refused.status).to.equal(400);
        expect(fieldNames(refused)).to.deep.equal(['Locations[1000]']);
        const kept = await send('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&Locations[999]=10', { method: 'GET' });
        expect(kept.status).to.equal(200);
        expect((kept.body.SelectedOptions as { Locations: number[] }).Locations).to.deep.equal([10]);
      },
    );

    it('multipart fields bind as form fields: repeated and bracketed names join as in the query', async () => {
      const answer = await multipart([
        ['CompanyId', '1'],
        ['Locations[0]', '10'],
        ['locations', '20'],
      ]);
      expect(answer.status).to.equal(200);
      expect((answer.body.SelectedOptions as { Locations: number[] }).Locations).to.deep.equal([10, 20]);
    });
  });

  describe('finding 2: the multipart body budget', () => {
    const limitOf = (answer: Answer) => {
      expect(answer.status).to.equal(413);
      expect(answer.body.ResponseStatus!.ErrorCode).to.equal('RequestEntityTooLarge');
      return answer.body.ResponseStatus!.Message;
    };

    it('1,001 fields is a 413 naming the fields limit', async () => {
      const fields = Array.from({ length: 1001 }, (_, i) => [`f${i}`, 'x'] as [string, string]);
      expect(limitOf(await multipart(fields))).to.equal("The request body exceeds its 'fields' limit of 1000.");
    });

    it('a body over BODY_LIMIT_BYTES is a 413 naming it, declared (Content-Length) or streamed (chunked)', async () => {
      const big = 'x'.repeat(600_000);
      expect(
        limitOf(
          await multipart([
            ['Message', big],
            ['Other', big],
          ]),
        ),
      ).to.equal("The request body exceeds its 'body bytes' limit of 1048576.");
      const streamed = await chunkedMultipart(t.url, t.apiKey, 3, 500_000);
      expect(limitOf(streamed)).to.equal("The request body exceeds its 'body bytes' limit of 1048576.");
    });

    it(
      'a field name over 256 bytes is a 413 naming the field name limit; a file part is a 413 naming the files ' +
        'limit',
      async () => {
        expect(
          limitOf(await send('/json/reply/EchoRequest', { method: 'POST', body: formOf([['n'.repeat(300), 'x']]) })),
        ).to.equal("The request body exceeds its 'field name bytes' limit of 256.");
        const form = new FormData();
        form.append('Message', 'hi');
        form.append('upload', new Blob(['data']), 'a.txt');
        expect(limitOf(await send('/json/reply/EchoRequest', { method: 'POST', body: form }))).to.equal(
          "The request body exceeds its 'files' limit of 0.",
        );
      },
    );

    it('2,001 parts is a 413 naming the parts limit', async () => {
      const boundary = 'p4rts';
      const body = `${`--${boundary}\r\nContent-Type: text/plain\r\n\r\nx\r\n`.repeat(2001)}--${boundary}--\r\n`;
      const answer = await send('/json/reply/EchoRequest', {
        method: 'POST',
        headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
        body,
      });
      expect(limitOf(answer)).to.equal("The request body exceeds its 'parts' limit of 2000.");
    });

    it('within the budget a multipart body binds (1,000 fields of 800 bytes)', async () => {
      const fields = Array.from({ length: 999 }, (_, i) => [`f${i}`, 'x'.repeat(800)] as [string, string]);
      const answer = await multipart([['CompanyId', '1'], ...fields]);
      expect(answer.status).to.equal(200);
    });
  });

  describe('finding 8: declared charsets', () => {
    for (const charset of ['utf-7', 'UTF-16LE', 'utf-16', 'windows-1252', 'shift_jis']) {
      for (const media of [
        'application/json',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
      ]) {
        it(`${media} in ${charset} is a 415 naming the charset`, async () => {
          const answer = await send('/json/reply/EchoRequest', {
            method: 'POST',
            headers: { 'Content-Type': `${media}; charset=${charset}` },
            body: '{"Message":"+AGEAYgBj-"}',
          });
          expect(answer.status).to.equal(415);
          expect(answer.body.ResponseStatus).to.include({
            ErrorCode: 'UnsupportedMediaType',
            Message: `charset '${charset.toLowerCase()}' is not supported.`,
          });
        });
      }
    }

    it('UTF-8, US-ASCII and ISO-8859-1 are read', async () => {
      for (const charset of ['utf-8', 'UTF8', 'us-ascii']) {
        const answer = await send('/json/reply/EchoRequest', {
          method: 'POST',
          headers: { 'Content-Type': `application/json; charset=${charset}` },
          body: '{"Message":"abc"}',
        });
        expect(answer.body.Message).to.equal('abc');
      }
      const latin1 = await send('/json/reply/EchoRequest', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=iso-8859-1' },
        body: 'Message=caf%E9',
      });
      expect(latin1.body.Message).to.equal('café');
    });

    // Deviations (README): the 4.5.14 host, run beside this service for issue 38, read every body as UTF-8 whatever
    // it declared (`é` as ISO-8859-1 became U+FFFD) and switched to UTF-16 on a byte-order mark.
    it('deviation: a body declared ISO-8859-1 is decoded as declared (the host: U+FFFD)', async () => {
      const json = await send('/json/reply/EchoRequest', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json; charset=iso-8859-1' },
        body: Buffer.from('{"Message":"caf\u00e9"}', 'latin1'),
      });
      expect(json.body.Message).to.equal('café');
    });
    it('deviation: a form escape that is not UTF-8 is kept as sent (the host: U+FFFD)', async () => {
      const form = await send('/json/reply/EchoRequest', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'Message=caf%E9',
      });
      expect(form.body.Message).to.equal('caf%E9');
    });
    it('deviation: a UTF-16 body with a byte-order mark, no UTF-16 charset, is read as UTF-8 (host: 200)', async () => {
      const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"Message":"caf\u00e9"}', 'utf16le')]);
      for (const type of ['application/json', 'application/json; charset=utf-8']) {
        const answer = await send('/json/reply/EchoRequest', {
          method: 'POST',
          headers: { 'Content-Type': type },
          body: utf16,
        });
        expect(answer.status).to.equal(400);
        expect(answer.body.ResponseStatus!.ErrorCode).to.equal('SerializationException');
      }
    });
  });
});

/** A multipart body streamed in `parts` chunks of `size` bytes without a Content-Length. */
function chunkedMultipart(base: string, apiKey: string, parts: number, size: number): Promise<Answer> {
  const boundary = 'b0undary';
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}/json/reply/EchoRequest`,
      {
        method: 'POST',
        headers: {
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Transfer-Encoding': 'chunked',
          'X-ApiKey': apiKey,
        },
      },
      (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (d: string) => (text += d))
          .on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Answer['body'] }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error),
    );
    for (let i = 0; i < parts; i++)
      req.write(`--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\n${'y'.repeat(size)}\r\n`);
    req.end(`--${boundary}--\r\n`);
  });
}
