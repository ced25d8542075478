/**
 * ServiceStack.Text's JSON shape: nulls omitted, `/Date(...)/` written as `\/Date(...)\/`.
 * The escaped slash is how WCF-era clients recognise a date; JSON parsers read both forms the same.
 */
const LEGACY_DATE_STRING = /"\/Date\((-?\d+(?:[+-]\d{4})?)\)\/"/g;

function omitNulls(_key: string, value: unknown): unknown {
  return value === null ? undefined : value;
}

export function toLegacyJson(dto: unknown): string {
  return JSON.stringify(dto, omitNulls).replace(LEGACY_DATE_STRING, '"\\/Date($1)\\/"');
}
