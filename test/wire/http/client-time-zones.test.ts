/**
 * Dates from clients outside UTC (issue 38): each of the four 4.5.14 C# clients, in UTC, New York and Tokyo, sends a
 * StartDate and EndDate with a time in its own offset, as it writes a local DateTime, and reads back the day it sent
 * at 00:00 in that offset, in every format; the report's months are those days'. A deliberate deviation: the real
 * 4.5.14 host kept the time (its answers, recorded below, read back as the time sent; the README's deviations table).
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

/**
 * A `/Date(ms[±hhmm])/` as ServiceStack.Text's JsonServiceClient reads it (DateTimeSerializer.ParseWcfJsonDate): the
 * milliseconds plus the offset, as a wall clock (`yyyy-MM-dd HH:mm`); without an offset, the instant in `timeZone`.
 */
function wcfWallClock(text: string, timeZone: string): string {
  const m = /^\/Date\((-?\d+)(?:([+-])(\d\d)(\d\d))?\)\/$/.exec(text);
  expect(m, text).not.to.equal(null);
  if (!m![2]) return wallClock(Number(m![1]), timeZone);
  const offsetMs = (m![2] === '-' ? -1 : 1) * (Number(m![3]) * 60 + Number(m![4])) * 60_000;
  return wallClock(Number(m![1]) + offsetMs, 'UTC');
}

/** An ISO 8601 date or date-time as a client in `timeZone` reads it: a date alone is that local day at 00:00. */
function isoWallClock(text: string, timeZone: string): string {
  return /^\d{4}-\d\d-\d\d$/.test(text) ? `${text} 00:00` : wallClock(isoInstant(text), timeZone);
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
  /** The StartDate and EndDate of an answer, as written. */
  dates(text: string): [string, string];
  /** One date as the client in `zone` reads it back: `yyyy-MM-dd HH:mm` local. */
  read(value: string, zone: Zone): string;
  columns(text: string): string[];
  /** The StartDate and EndDate the real 4.5.14 host (UTC server) answered to the same request, by zone name. */
  host45: Record<string, [string, string]>;
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
    dates: (text) => {
      const options = JSON.parse(text).SelectedOptions;
      return [options.StartDate, options.EndDate];
    },
    read: (value, z) => wcfWallClock(value, z.timeZone),
    columns: (text) => JSON.parse(text).ReportModel.ColumnNames,
    // The host read `/Date(ms-0500)/` as its wall clock (22:30) and wrote that as its own local time (+0000).
    host45: {
      UTC: ['/Date(1735684200000+0000)/', '/Date(1751327999000+0000)/'],
      'New York': ['/Date(1735684200000+0000)/', '/Date(1751327999000+0000)/'],
      Tokyo: ['/Date(1735684200000+0000)/', '/Date(1751327999000+0000)/'],
    },
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
    dates: (text) => {
      const options = JSON.parse(text).SelectedOptions;
      return [options.StartDate, options.EndDate];
    },
    read: (value, z) => {
      expect(value).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.0000000[+-]\d\d:\d\d$/);
      return wallClock(isoInstant(value), z.timeZone);
    },
    columns: (text) => JSON.parse(text).ReportModel.ColumnNames,
    host45: {
      UTC: ['2024-12-31T22:30:00.0000000+00:00', '2025-06-30T23:59:59.0000000+00:00'],
      'New York': ['2025-01-01T03:30:00.0000000+00:00', '2025-07-01T03:59:59.0000000+00:00'],
      Tokyo: ['2024-12-31T13:30:00.0000000+00:00', '2025-06-30T14:59:59.0000000+00:00'],
    },
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
    dates: (text) =>
      ['StartDate', 'EndDate'].map((name) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)![1]!) as [
        string,
        string,
      ],
    // DataContractSerializer's local DateTime: the time and the offset, which the client converts to its own.
    read: (value, z) => {
      expect(value).to.match(/T\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
      return wallClock(isoInstant(value), z.timeZone);
    },
    columns: (text) => [...text.matchAll(/<d3p1:string>([^<]*)<\/d3p1:string>/g)].map((m) => m[1]!),
    host45: {
      UTC: ['2024-12-31T22:30:00+00:00', '2025-06-30T23:59:59+00:00'],
      'New York': ['2025-01-01T03:30:00+00:00', '2025-07-01T03:59:59+00:00'],
      Tokyo: ['2024-12-31T13:30:00+00:00', '2025-06-30T14:59:59+00:00'],
    },
  },
  {
    name: 'JsvServiceClient',
    path: '/jsv/reply/GetFlatRequest',
    type: 'application/jsv',
    body: (z) =>
      `{CompanyId:1,UseCustomDateRange:True,StartDate:${START_DAY}T${START_TIME}${z.start},` +
      `EndDate:${END_DAY}T${END_TIME}${z.end}}`,
    dates: (text) => [jsvMember(text, 'StartDate'), jsvMember(text, 'EndDate')],
    // ToShortestXsdDateTimeString writes a midnight as its date alone, which the client reads as that local day.
    read: (value, z) => isoWallClock(value, z.timeZone),
    columns: (text) => /ColumnNames:\[([^\]]*)\]/.exec(text)![1]!.split(','),
    host45: {
      UTC: ['2024-12-31T22:30:00+00:00', '2025-06-30T23:59:59+00:00'],
      'New York': ['2025-01-01T03:30:00+00:00', '2025-07-01T03:59:59+00:00'],
      Tokyo: ['2024-12-31T13:30:00+00:00', '2025-06-30T14:59:59+00:00'],
    },
  },
  {
    name: 'CsvServiceClient',
    path: '/csv/reply/GetFlatRequest',
    type: 'text/csv',
    body: (z) =>
      'CompanyId,UseCustomDateRange,StartDate,EndDate\r\n' +
      `1,True,${START_DAY}T${START_TIME}${z.start},${END_DAY}T${END_TIME}${z.end}\r\n`,
    dates: (text) => {
      const [row] = parseCsv(text, { columns: true }) as Record<string, string>[];
      const options = row!.SelectedOptions!;
      return [jsvMember(options, 'StartDate'), jsvMember(options, 'EndDate')];
    },
    read: (value, z) => isoWallClock(value, z.timeZone),
    host45: {
      UTC: ['2024-12-31T22:30:00+00:00', '2025-06-30T23:59:59+00:00'],
      'New York': ['2025-01-01T03:30:00+00:00', '2025-07-01T03:59:59+00:00'],
      Tokyo: ['2024-12-31T13:30:00+00:00', '2025-06-30T14:59:59+00:00'],
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
          `days at 00:00 (the 4.5.14 host: the times sent), the report's months theirs`,
        async () => {
          const res = await request(t.app)
            .post(client.path)
            .set('Content-Type', client.type)
            .set('Accept', client.type)
            .send(client.body(zone))
            .expect(200);
          expect(res.headers['content-type']).to.match(new RegExp(`^${client.type}`));
          const read = (dates: [string, string]) => dates.map((value) => client.read(value, zone));
          expect(read(client.dates(res.text))).to.deep.equal([`${START_DAY} 00:00`, `${END_DAY} 00:00`]);
          // The 4.5.14 host's answer to the same request kept the time: the client read back what it sent.
          expect(read(client.host45[zone.name]!)).to.deep.equal([`${START_DAY} 22:30`, `${END_DAY} 23:59`]);
          const columns = client.columns(res.text);
          expect(columns[0]).to.equal('Dec 2024');
          expect(columns.at(-1)).to.equal('Jun 2025');
        },
      );
    }
  }

  // The 4.5.14 host wrote the instant as its own (UTC) local time: `/Date(1735702200000+0000)/` for the first, and
  // `2024-12-31T22:30:00+09:00` on its HTML page became `/Date(1735651800000+0000)/` (13:30 UTC).
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
