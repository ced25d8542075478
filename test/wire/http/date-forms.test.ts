/**
 * The accepted date forms, as documented on the docs page (/openapi.json's description, which /docs shows) and in the
 * README's error table: every example of the documented table binds through the server, day first and month first
 * are read as the table says, and a refused form keeps the legacy message word for word (issue 27).
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { createTestApp, type TestApp } from '../../support/test-app.ts';
import { REPO_ROOT } from '../../../scripts/lib/repo-root.ts';

const FLAT = '/v1/Reporting/ProfitAndLoss/Flat';
const msOf = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

describe('accepted date forms: documented, and read as documented', function () {
  this.timeout(30_000);
  let t: TestApp;
  let table: string[][];
  before(async () => {
    t = await createTestApp();
    const doc = (await request(t.app).get('/openapi.json')).body as { info: { description: string } };
    const section = doc.info.description.split('**Accepted date forms**')[1]!;
    table = section
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.startsWith('| ') && !l.startsWith('| form '))
      .map((l) =>
        l
          .split('|')
          .slice(1, -1)
          .map((c) => c.trim()),
      );
  });
  after(() => t?.close());

  const startDateOf = async (value: string) => {
    const res = await request(t.app)
      .get(FLAT)
      .query({ CompanyId: 1, UseCustomDateRange: 'true', StartDate: value, EndDate: '2099-12-31' });
    expect(res.status, `${value}: ${JSON.stringify(res.body.ResponseStatus)}`).to.equal(200);
    return Number(/\/Date\((-?\d+)/.exec(res.body.SelectedOptions.StartDate)![1]);
  };

  it('When the docs page is read, then it has the table of forms, and every example in it binds', async () => {
    expect(table.length).to.be.greaterThanOrEqual(7);
    const examples = table.flatMap((row) => [...row[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
    expect(examples).to.include.members(['01/02/2025', '01/31/2025', '1/2/2025', '20250131']);
    for (const example of examples) await startDateOf(example);
  });

  it('When dates are sent day first or month first, then they are read as the table says', async () => {
    expect(await startDateOf('01/02/2025')).to.equal(msOf('2025-02-01'));
    expect(await startDateOf('1/2/2025')).to.equal(msOf('2025-01-02'));
    expect(await startDateOf('01/31/2025')).to.equal(msOf('2025-01-31'));
    expect(await startDateOf('31 Jan 2025')).to.equal(msOf('2025-01-31'));
  });

  it(
    'When a form is refused, then the 400 keeps the legacy message, and the README error table lists the ' + 'forms',
    async () => {
      const res = await request(t.app)
        .get(FLAT)
        .query({ CompanyId: 1, UseCustomDateRange: 'true', StartDate: '31.01.2025', EndDate: '2025-12-31' });
      expect(res.status).to.equal(400);
      expect(res.body.ResponseStatus.Errors).to.deep.equal([
        {
          ErrorCode: 'SerializationException',
          FieldName: 'StartDate',
          Message: "'31.01.2025' is an Invalid value for 'StartDate'",
        },
      ]);
      const row = readFileSync(`${REPO_ROOT}/README.md`, 'utf8')
        .split('\n')
        .find((l) => l.includes("is an Invalid value for 'StartDate'"))!;
      for (const form of ['`yyyy-MM-dd', '`yyyyMMdd`', '**day first**', '**month first**', '`01/31/2025`'])
        expect(row).to.include(form);
    },
  );
});
