/**
 * JSV (ServiceStack.Text's TypeSerializer, `application/jsv`) as a tree, read with the service's own JSV reader
 * (src/formats/jsv.ts), so a JSV answer is compared field by field by path (`$.ReportModel.BuildTime`) as JSON is, and
 * the same rules and noise apply. Scalars stay text, as a JSV client reads them (`True`, `1.50`, `2025-01-01`).
 */
import { parseJsv, toJsv } from '../../../../../src/tooling-exports.ts';
import type { BodyComparer } from './comparer.ts';

export const jsvComparer: BodyComparer = {
  name: 'jsv',
  accepts: (mediaType) => mediaType === 'application/jsv' || mediaType === 'text/jsv',
  parse(body) {
    const tree = parseJsv(body);
    return { tree, pretty: prettyJsv(tree) };
  },
};

/** One member per line, nested values indented, so the side-by-side view shows the changed member. */
function prettyJsv(value: unknown, indent = ''): string {
  if (typeof value !== 'object' || value === null) return toJsv(value);
  const inner = `${indent}  `;
  if (Array.isArray(value))
    return value.length ? `[\n${value.map((v) => inner + prettyJsv(v, inner)).join(',\n')}\n${indent}]` : '[]';
  const members = Object.entries(value);
  return members.length
    ? `{\n${members.map(([k, v]) => `${inner}${toJsv(k)}:${prettyJsv(v, inner)}`).join(',\n')}\n${indent}}`
    : '{}';
}
