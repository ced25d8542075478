/**
 * This service's own volatile fields, known to the tool as noise before any request is replayed: what differs between
 * two correct instances, or two calls of one, and says nothing about the answer.
 * - the report link's signature (`…/Reports/<payload>.<HMAC>`: each store or REPORT_LINK_SECRET signs with its own
 *   secret), wherever the link appears: `Url`, the HTML snapshot's text, a CSV cell, a `Location` header;
 * - `BuildTime`, the report's own timing in milliseconds, as a field in any format and inside text;
 * - the request id header (`X-Request-Id`, a new UUID per request).
 * A difference is noise when it is one of these paths, or when its two values are equal once the volatile parts are
 * masked (a payload that differs is still a difference: another report). Exported for every tool that compares two
 * answers of this service (`npm run compare`, the shadow proxy).
 */
import { REQUEST_ID_HEADER } from '../../../../src/tooling-exports.ts';
import { fieldKey } from './rules.ts';
import type { FieldDiff } from './types.ts';

export interface VolatileField {
  name: string;
  /** The text with this field's volatile part replaced by a placeholder. */
  mask?(text: string): string;
  /** Whether a difference at this place is this field, whatever its values. */
  at?(diff: FieldDiff): boolean;
}

/** `<payload>.<43 characters of base64url HMAC-SHA256>` after `/Reports/` (src/reports/report-link.ts). */
const LINK_SIGNATURE = /(\/Reports\/[A-Za-z0-9_-]+\.)[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g;
/**
 * `BuildTime` (any case convention; `Build Time` in the HTML snapshot) then markup, entities (`&quot;` of the page's
 * JSON data source) or punctuation, then its number.
 */
const BUILD_TIME_TEXT = /(build[ _]?time(?:&[a-z]+;|&#\d+;|<\/?[a-z]+>|[^0-9a-z&<])*)-?\d+(?:\.\d+)?/gi;

export const BUILT_IN_NOISE: readonly VolatileField[] = [
  { name: 'report link signature', mask: (text) => text.replace(LINK_SIGNATURE, '$1{signature}') },
  {
    name: 'BuildTime',
    at: (diff) =>
      diff.kind === 'changed' &&
      typeof diff.segments?.at(-1) === 'string' &&
      fieldKey(String(diff.segments.at(-1))) === 'buildtime',
    mask: (text) => text.replace(BUILD_TIME_TEXT, '$1{ms}'),
  },
  { name: 'request id', at: (diff) => diff.path.toLowerCase() === `header ${REQUEST_ID_HEADER.toLowerCase()}` },
];

/** The text with every volatile part masked (`{signature}`, `{ms}`). */
export function maskVolatile(text: string, fields: readonly VolatileField[] = BUILT_IN_NOISE): string {
  return fields.reduce((out, field) => (field.mask ? field.mask(out) : out), text);
}

/**
 * The volatile fields that explain this difference (`report link signature`, `BuildTime, report link signature`), else
 * undefined.
 */
export function builtInNoise(diff: FieldDiff, fields: readonly VolatileField[] = BUILT_IN_NOISE): string | undefined {
  const at = fields.filter((f) => f.at?.(diff));
  if (at.length) return at.map((f) => f.name).join(', ');
  if (diff.kind !== 'changed' || typeof diff.old !== 'string' || typeof diff.new !== 'string') return undefined;
  if (maskVolatile(diff.old, fields) !== maskVolatile(diff.new, fields)) return undefined;
  const { old, new: neu } = diff as { old: string; new: string };
  const present = fields.filter((f) => f.mask && (f.mask(old) !== old || f.mask(neu) !== neu));
  return present.map((f) => f.name).join(', ') || undefined;
}
