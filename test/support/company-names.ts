/**
 * A company's name as echo and the report's page answer it, and an import that renames the company, for the
 * names-after-import tests of both stores (test/wire/store/, test/system/store/names-after-import-postgres.test.ts).
 */
import request from 'supertest';
import type { TestApp } from './test-app.ts';

export const RENAME = 'kind,id,company_id,name\ncompany,1,,Renamed Bistro\n';
export const JOURNAL = 'entry,date,location,account,amount\nN1,2024-02-01,10,4000,-5\nN1,2024-02-01,10,1000,5\n';

export async function echoName(test: TestApp, key: string): Promise<string> {
  const res = await request(test.rawApp).get('/v1/echo/hi').set('X-ApiKey', key).expect(200);
  return (res.body as { CompanyName: string }).CompanyName;
}

/** The company name on the report's page (its link, as HTML). */
export async function reportName(test: TestApp): Promise<string> {
  const flat = await request(test.app)
    .get('/v1/Reporting/ProfitAndLoss/Flat?CompanyId=1&UseCustomDateRange=true&StartDate=2024-01-01&EndDate=2024-02-29')
    .expect(200);
  const page = await request(test.app)
    .get(`${new URL((flat.body as { Url: string }).Url).pathname}.html`)
    .expect(200);
  return /<p class="company">([^<]*)<\/p>/.exec(page.text)![1]!;
}
