/**
 * Company affinity at the proxy: the shipped nginx site (deploy/nginx/) hashes a report's CompanyId (consistent
 * hashing) to one of two instances (the systemd unit's ExecStart, production build) over one real PostgreSQL holding
 * many companies. Each company's reports reach one instance, so each holds about half the companies' indexes (read
 * from each instance's /metrics, memory printed); requests naming no company stay round-robin; when an instance dies,
 * its companies are answered by the other one.
 */
import { expect } from 'chai';
import { createApiKey } from '../../../src/auth/api-keys.ts';
import type { LedgerBatch } from '../../../src/domain/ledger.ts';
import { PostgresLedgerStore } from '../../../src/store/postgres/postgres-store.ts';
import { freePort } from '../../../scripts/lib/free-port.ts';
import { httpsRequest } from '../../support/https-client.ts';
import { startNginx, type RunningNginx } from '../../../scripts/lib/nginx.ts';
import { skipPostgres, startPostgresServer, type PostgresServer } from '../../../scripts/lib/postgres-server.ts';
import { ensureProductionBuild, type ServerProcess } from '../../../scripts/lib/server-process.ts';
import { startUnitInstance } from '../../../scripts/lib/systemd-unit.ts';

const COMPANIES = 60;

/** Companies 1..COMPANIES, each with its own location and chart and a year of monthly entries. */
function manyCompanies(): LedgerBatch {
  const batch: Required<Pick<LedgerBatch, 'companies' | 'locations' | 'accounts' | 'entries'>> = {
    companies: [],
    locations: [],
    accounts: [],
    entries: [],
  };
  for (let c = 1; c <= COMPANIES; c++) {
    batch.companies.push({ id: c, name: `Co ${c}`, baseCurrency: 'USD', fiscalYearStartMonth: 1, timeZone: 'UTC' });
    batch.locations.push({ id: c, companyId: c, name: `Site ${c}` });
    for (const [n, type] of [
      [1, 'Bank'],
      [4, 'Income'],
      [6, 'Expense'],
    ] as const) {
      const id = c * 10 + n;
      batch.accounts.push({
        id,
        companyId: c,
        number: String(id),
        name: `${type} ${c}`,
        type,
        parentId: null,
        isActive: true,
        standardAccountId: null,
      });
    }
    for (let m = 1; m <= 12; m++) {
      const date = `2024-${String(m).padStart(2, '0')}-15`;
      const [sale, cost] = [c * 1_000 + m, c * 300 + m];
      batch.entries.push({
        companyId: c,
        locationId: c,
        date,
        lines: [
          { accountId: c * 10 + 4, cents: -sale },
          { accountId: c * 10 + 6, cents: cost },
          { accountId: c * 10 + 1, cents: sale - cost },
        ],
      });
    }
  }
  return batch;
}

const report = (company: number | string, name = 'CompanyId') =>
  `/reporting/v1/Reporting/ProfitAndLoss/Flat?${name}=${company}&UseCustomDateRange=true` +
  '&StartDate=2024-01-01&EndDate=2024-12-31&IncludeComputedColumns=true';

describe('deployment: nginx sends each company to one instance (hash $company consistent)', function () {
  this.timeout(300_000);
  let pg: PostgresServer;
  let nginx: RunningNginx;
  let ports: [number, number];
  let instances: ServerProcess[] = [];
  let key: string;
  const viaNginx = (pathAndQuery: string, headers: Record<string, string> = {}) =>
    httpsRequest(nginx.httpsUrl + pathAndQuery, { ca: nginx.certificate, headers: { 'X-ApiKey': key, ...headers } });
  /** Which instance logged the request with this X-Request-Id (index into `instances`). */
  const servedBy = async (requestId: string): Promise<number> => {
    for (let waited = 0; waited < 5000; waited += 20) {
      const owner = instances.findIndex((p) => p.output().includes(`"reqId":"${requestId}"`));
      if (owner !== -1) return owner;
      await new Promise((r) => setTimeout(r, 20));
    }
    return -1;
  };
  /** A figure of an instance's /metrics (the unit sets METRICS=key). */
  const metric = async (instance: number, name: string): Promise<number> => {
    const res = await fetch(`http://127.0.0.1:${ports[instance]}/reporting/metrics`, { headers: { 'X-ApiKey': key } });
    const text = await res.text();
    const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
    if (value === undefined) throw new Error(`no ${name} in /metrics of instance ${instance}`);
    return Number(value);
  };
  /** The report's Net Income total: twelve months of (sales - costs) = 84.00 per company id. */
  const expectNetIncome = (text: string, company: number) => {
    const { Rows } = (JSON.parse(text) as { ReportModel: { Rows: { RowName: string; Values: number[] }[] } })
      .ReportModel;
    expect(Rows.find((r) => r.RowName === 'Net Income')?.Values.at(-1), `company ${company}`).to.equal(company * 84);
  };

  before(async function () {
    if (skipPostgres) this.skip();
    await ensureProductionBuild();
    pg = await startPostgresServer('affinity');
    const store = new PostgresLedgerStore(pg.url);
    try {
      await store.migrate();
      await store.load(manyCompanies());
      key = (
        await createApiKey(store, { name: 'affinity', companyIds: Array.from({ length: COMPANIES }, (_, i) => i + 1) })
      ).key;
    } finally {
      await store.close();
    }
    ports = [await freePort(), await freePort()];
    instances = await Promise.all(ports.map((port) => startUnitInstance(port, { DATABASE_URL: pg.url })));
    nginx = await startNginx({ http: await freePort(), https: await freePort(), upstreams: ports });
  });

  after(async () => {
    await nginx?.stop();
    await Promise.all(instances.map((p) => p.stop()));
    await pg?.destroy();
  });

  it('every report of a company reaches one instance; each instance holds about half the companies', async () => {
    const owner = new Map<number, number>();
    for (let round = 0; round < 2; round++) {
      for (let c = 1; c <= COMPANIES; c++) {
        const id = `affinity-${round}-${c}-${Date.now()}`;
        // The parameter's name in any case names the same company.
        const res = await viaNginx(round === 0 ? report(c) : report(c, 'companyid'), { 'X-Request-Id': id });
        expect(res.status, res.text).to.equal(200);
        expectNetIncome(res.text, c);
        const by = await servedBy(id);
        expect(by, `an instance logged ${id}`).to.be.oneOf([0, 1]);
        if (round === 0) owner.set(c, by);
        else expect(by, `company ${c}'s second report`).to.equal(owner.get(c));
      }
    }
    const held = [await metric(0, 'reporting_index_companies'), await metric(1, 'reporting_index_companies')];
    const served = [0, 1].map((i) => [...owner.values()].filter((o) => o === i).length);
    expect(held, 'companies held per instance = companies sent to it').to.deep.equal(served);
    expect(held[0]! + held[1]!).to.equal(COMPANIES);
    for (const count of held) expect(count).to.be.within(COMPANIES * 0.25, COMPANIES * 0.75);
    for (const i of [0, 1]) {
      const [bytes, rss] = [await metric(i, 'reporting_index_bytes'), await metric(i, 'process_resident_memory_bytes')];
      console.log(
        `      instance ${i}: ${held[i]} of ${COMPANIES} companies, index ${(bytes / 2 ** 20).toFixed(2)} MiB, ` +
          `RSS ${(rss / 2 ** 20).toFixed(0)} MiB`,
      );
    }
  });

  it('requests naming no company alternate between the instances', async () => {
    const owners: number[] = [];
    for (let i = 0; i < 6; i++) {
      const id = `no-company-${i}-${Date.now()}`;
      const res = await viaNginx('/reporting/v1/echo/hi', { 'X-Request-Id': id });
      expect(res.status).to.equal(200);
      owners.push(await servedBy(id));
    }
    expect(owners).to.not.include(-1);
    for (let i = 1; i < owners.length; i++) expect(owners[i], `request ${i}`).to.not.equal(owners[i - 1]);
  });

  it("an instance killed: its companies' reports are answered by the other one", async () => {
    const victim = 1;
    await instances[victim]!.kill();
    await instances[victim]!.exited;
    for (let c = 1; c <= COMPANIES; c++) {
      const id = `failover-${c}-${Date.now()}`;
      const res = await viaNginx(report(c), { 'X-Request-Id': id });
      expect(res.status, `company ${c}: ${res.text}`).to.equal(200);
      expectNetIncome(res.text, c);
      expect(await servedBy(id)).to.equal(1 - victim);
    }
    expect(await metric(1 - victim, 'reporting_index_companies')).to.equal(COMPANIES);
  });
});
