/**
 * Dates from clients outside UTC (issue 38): each of the four 4.5.14 C# clients, in UTC, New York and Tokyo, sends a
 * StartDate and EndDate with a time in its own offset, as it writes a local DateTime, and reads back the day it sent
 * at 00:00 in that offset, in every format; the report's months are those days'. (A deliberate deviation: the 4.5.14
 * host echoed the instant; the README's deviations table.) The client's reading is done in its zone with Intl.
 */
import { expect } from 'chai';
import request from 'supertest';
import { parse as parseCsv } from 'csv-parse/sync';
import { createTestApp, type TestApp } from '../../support/test-app.ts';

interface Zone {
  name: string;
  timeZone: string;
  /** The offset of the sent dates (December and June: New York's changes). */
  start: string;
  end: string;
}

const ZONES: Zone[] = [
  { name: 'UTC', timeZone: 'UTC', start: '+00:00', end: '+00:00' },
  { name: 'New York', timeZone: 'America/New_York', start: '-05:00', end: '-04:00' },
  { name: 'Tokyo', timeZone: 'Asia/Tokyo', start: '+09:00', end: '+09:00' },
];

/** The local times sent: late on the last day of 2024 (the next day in UTC west of it), a second before midnight. */
const START_DAY = '2024-12-31';
const START_TIME = '22:30:00';
const END_DAY = '2025-06-30';
const END_TIME = '23:59:59';

/** `/Date(ms±hhmm)/`, as ServiceStack.Text wrote a local DateTime in a zone of that offset. */
function wcf(day: string, time: string, offset: string): string {
  return `/Date(${Date.parse(`${day}T${time}${offset}`)}${offset.replace(':', '')})/`;
}

/** `yyyy-MM-dd HH:mm` of an instant on the wall clock of a time zone: what a client there reads. */
function wallClock(ms: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  }).formatToParts(ms);
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}`;
}

/** An ISO 8601 time with up to 7 fraction digits (.NET's), as an instant. */
function isoInstant(text: string): number {
  const ms = Date.parse(text.replace(/(\.\d{3})\d+/, '$1'));
  expect(ms, text).not.to.be.NaN;
  return ms;
}

/** A JSV member's text (`StartDate:2024-12-31`) within a JSV object. */
function jsvMember(jsv: string, name: string): string {
  const m = new RegExp(`[{,]${name}:([^,}]*)`).exec(jsv);
  expect(m, `${name} in ${jsv}`).not.to.equal(null);
  return m![1]!;
}

interface Client {
  name: string;
  path: string;
  type: string;
  body(zone: Zone): string;
  /** The StartDate and EndDate read back, as the client in `zone` reads them: `yyyy-MM-dd HH:mm` local. */
  readBack(text: string, zone: Zone): [string, string];
  columns(text: string): string[];
}

const CLIENTS: Client[] = [
  {
    name: 'JsonServiceClient',
    path: '/json/reply/GetFlatRequest',
    type: 'application/json',
    body: (z) =>
      JSON.stringify({
        CompanyId: 1,
        UseCustomDateRange: true,
        StartDate: wcf(START_DAY, START_TIME, z.start),
        EndDate: wcf(END_DAY, END_TIME, z.end),
      }).replace(/\//g, '\\/'),
    readBack: (text, z) => {
      const options = JSON.parse(text).SelectedOptions;
      return [options.StartDate, options.EndDate].map((d: string) => {
        const m = /^\/Date\((-?\d+)([+-]\d{4})?\)\/$/.exec(d)!;
        expect(m, d).not.to.equal(null);
        return wallClock(Number(m[1]), z.timeZone);
      }) as [string, string];
    },
    columns: (text) => JSON.parse(text).ReportModel.ColumnNames,
  },
  {
    name: 'JsonServiceClient with ?jsconfig=DateHandler:ISO8601',
    path: '/json/reply/GetFlatRequest?jsconfig=DateHandler:ISO8601',
    type: 'application/json',
    body: (z) =>
      JSON.stringify({
        CompanyId: 1,
        UseCustomDateRange: true,
        StartDate: `${START_DAY}T${START_TIME}.0000000${z.start}`,
        EndDate: `${END_DAY}T${END_TIME}.0000000${z.end}`,
      }),
    readBack: (text, z) => {
      const options = JSON.parse(text).SelectedOptions;
      expect(options.StartDate).to.match(/^\d{4}-\d\d-\d\dT00:00:00\.0000000[+-]\d\d:\d\d$/);
      return [options.StartDate, options.EndDate].map((d: string) => wallClock(isoInstant(d), z.timeZone)) as [
        string,
        string,
      ];
    },
    columns: (text) => JSON.parse(text).ReportModel.ColumnNames,
  },
  {
    name: 'XmlServiceClient',
    path: '/xml/reply/GetFlatRequest',
    type: 'application/xml',
    body: (z) =>
      '<GetFlatRequest xmlns:i="http://www.w3.org/2001/XMLSchema-instance" ' +
      'xmlns="http://schemas.servicestack.net/types"><CompanyId>1</CompanyId>' +
      `<EndDate>${END_DAY}T${END_TIME}${z.end}</EndDate><StartDate>${START_DAY}T${START_TIME}${z.start}</StartDate>` +
      '<UseCustomDateRange>true</UseCustomDateRange></GetFlatRequest>',
    readBack: (text, z) =>
      ['StartDate', 'EndDate'].map((name) => {
        const value = new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)![1]!;
        // DataContractSerializer's local DateTime: the time and the offset, which the client converts to its own.
        expect(value).to.match(/T00:00:00[+-]\d\d:\d\d$/);
        return wallClock(isoInstant(value), z.timeZone);
      }) as [string, string],
    columns: (text) => [...text.matchAll(/<d2p1:string>([^<]*)<\/d2p1:string>/g)].map((m) => m[1]!),
  },
  {
    name: 'JsvServiceClient',
    path: '/jsv/reply/GetFlatRequest',
    type: 'application/jsv',
    body: (z) =>
      `{CompanyId:1,UseCustomDateRange:True,StartDate:${START_DAY}T${START_TIME}${z.start},` +
      `EndDate:${END_DAY}T${END_TIME}${z.end}}`,
    // ToShortestXsdDateTimeString writes a midnight as its date alone, which the client reads as that local day.
    readBack: (text) => [`${jsvMember(text, 'StartDate')} 00:00`, `${jsvMember(text, 'EndDate')} 00:00`],
    columns: (text) => /ColumnNames:\[([^\]]*)\]/.exec(text)![1]!.split(','),
  },
  {
    name: 'CsvServiceClient',
    path: '/csv/reply/GetFlatRequest',
    type: 'text/csv',
    body: (z) =>
      'CompanyId,UseCustomDateRange,StartDate,EndDate\r\n' +
      `1,True,${START_DAY}T${START_TIME}${z.start},${END_DAY}T${END_TIME}${z.end}\r\n`,
    readBack: (text) => {
      const [row] = parseCsv(text, { columns: true }) as Record<string, string>[];
      const options = row!.SelectedOptions!;
      return [`${jsvMember(options, 'StartDate')} 00:00`, `${jsvMember(options, 'EndDate')} 00:00`];
    },
    columns: (text) => {
      const [row] = parseCsv(text, { columns: true }) as Record<string, string>[];
      return /ColumnNames:\[([^\]]*)\]/.exec(row!.ReportModel!)![1]!.split(',');
    },
  },
];

describe('Dates from clients in UTC, New York and Tokyo read back as the day sent (issue 38)', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  for (const zone of ZONES) {
    for (const client of CLIENTS) {
      it(
        `${client.name} in ${zone.name}: ${START_DAY} ${START_TIME} and ${END_DAY} ${END_TIME} read back as those ` +
          `days at 00:00, the report's months theirs`,
        async () => {
          const res = await request(t.app)
            .post(client.path)
            .set('Content-Type', client.type)
            .set('Accept', client.type)
            .send(client.body(zone))
            .expect(200);
          expect(res.headers['content-type']).to.match(new RegExp(`^${client.type}`));
          expect(client.readBack(res.text, zone)).to.deep.equal([`${START_DAY} 00:00`, `${END_DAY} 00:00`]);
          const columns = client.columns(res.text);
          expect(columns[0]).to.equal('Dec 2024');
          expect(columns.at(-1)).to.equal('Jun 2025');
        },
      );
    }
  }

  it('a query date with an offset (as a JsonServiceClient GET sends it) is written back in that offset', async () => {
    const res = await request(t.app)
      .get('/v1/Reporting/ProfitAndLoss/Flat')
      .query({ CompanyId: 1, UseCustomDateRange: true, StartDate: '2024-12-31T22:30:00-05:00', EndDate: END_DAY })
      .expect(200);
    expect(res.body.SelectedOptions.StartDate).to.equal(`/Date(${Date.parse('2024-12-31T00:00:00-05:00')}-0500)/`);
    expect(res.body.SelectedOptions.EndDate).to.equal(`/Date(${Date.parse(`${END_DAY}T00:00:00Z`)}+0000)/`);
    const html = await request(t.app)
      .get('/v1/Reporting/ProfitAndLoss/Flat.html')
      .query({ CompanyId: 1, UseCustomDateRange: true, StartDate: '2024-12-31T22:30:00+09:00', EndDate: END_DAY })
      .expect(200);
    expect(html.text).to.contain('2024/12/31 00:00');
  });
});
