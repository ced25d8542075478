/**
 * The side-by-side view of two bodies, on the compare HTML report and the shadow page (/_shadow): its heading names
 * the sides in readable text (issue 38: diff2html wrote the arrows of a non-ASCII name as `/342/206/220`).
 */
import { expect } from 'chai';
import { exchangeSection } from '../../src/compare/html-report.ts';
import type { ExchangeRecord } from '../../src/compare/types.ts';

const record: ExchangeRecord = {
  id: 0,
  request: { method: 'GET', url: '/v1/echo/hi', origin: { source: 'test' } },
  endpoint: 'GET /v1/echo/{Message}',
  outcome: 'different',
  differences: [{ path: '$.CompanyName', segments: ['$', 'CompanyName'], kind: 'changed', old: 'A', new: 'B' }],
  noise: [],
  allowed: [],
  bodies: { old: '{\n  "CompanyName": "A"\n}', new: '{\n  "CompanyName": "B"\n}' },
};

describe('the side-by-side view of two bodies', () => {
  it('names its sides "old body → new body", with no octal escapes', () => {
    const page = exchangeSection(record).toString();
    const names = [...page.matchAll(/<span class="d2h-file-name">([^<]*)<\/span>/g)].map((m) => m[1]);
    expect(names.length).to.be.greaterThan(0);
    for (const name of names) expect(name).to.equal('old body → new body');
    expect(page).not.to.match(/\/\d{3}\/\d{3}\/\d{3}/);
  });
});
