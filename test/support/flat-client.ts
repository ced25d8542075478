/** Calls the flat report through each of its HTTP routes, so one test can run against all three. */
import request from 'supertest';
import type { Express } from 'express';
import type { GetFlatRequest, GetFlatResponse } from '../../src/contract/dtos.ts';

export type FlatRoute =
  | 'GET /v1/Reporting/ProfitAndLoss/Flat'
  | 'GET /json/reply/GetFlatRequest'
  | 'POST /json/reply/GetFlatRequest';
export const FLAT_ROUTES: FlatRoute[] = [
  'GET /v1/Reporting/ProfitAndLoss/Flat',
  'GET /json/reply/GetFlatRequest',
  'POST /json/reply/GetFlatRequest',
];

function toQuery(dto: GetFlatRequest): Record<string, string> {
  return Object.fromEntries(
    Object.entries(dto).map(([k, v]) => [k, Array.isArray(v) ? `[${v.join(',')}]` : String(v)]),
  );
}

export async function callFlat(
  app: Express,
  route: FlatRoute,
  dto: GetFlatRequest,
): Promise<{
  status: number;
  body: GetFlatResponse & { ResponseStatus?: { ErrorCode: string; Errors: { FieldName: string }[] } };
}> {
  const [method, path] = route.split(' ') as [string, string];
  const res =
    method === 'POST' ? await request(app).post(path).send(dto) : await request(app).get(path).query(toQuery(dto));
  return { status: res.status, body: res.body };
}

/** RowName → Values, for asserting figures. */
export function figures(body: GetFlatResponse): Record<string, number[]> {
  return Object.fromEntries(body.ReportModel.Rows.map((r) => [r.RowName, r.Values]));
}
