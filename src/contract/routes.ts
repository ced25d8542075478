/**
 * Route templates as the host matches them (ServiceStack's RestPath rules): literal segments compared
 * case-insensitively, empty segments ignored, variables taking one raw segment each.
 */
import { unescape as urlDecodeLenient } from 'node:querystring';

export interface RouteSegment {
  /** The literal as written in openapi/ (matched case-insensitively). */
  literal?: string;
  variable?: string;
}

export function parseTemplate(template: string): RouteSegment[] {
  return template
    .split('/')
    .filter(Boolean)
    .map((part) => {
      const variable = /^\{(.+)\}$/.exec(part)?.[1];
      return variable ? { variable } : { literal: part };
    });
}

export interface RouteMatch {
  /** The path as openapi/ spells it, variables as sent (raw). */
  canonicalPath: string;
  /** Variable → decoded value. */
  params: Record<string, string>;
}

/** Matches `segments` (already split, raw) against a template's segments. */
export function matchRoute(route: readonly RouteSegment[], segments: readonly string[]): RouteMatch | undefined {
  if (route.length !== segments.length) return undefined;
  // The literals first: most routes tried are not the request's, and are left before anything is made.
  for (let i = 0; i < segments.length; i++) {
    const literal = route[i]!.literal;
    if (literal !== undefined && safeDecode(segments[i]!).toLowerCase() !== literal.toLowerCase()) return undefined;
  }
  const out: string[] = [];
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const want = route[i]!;
    const got = segments[i]!;
    if (want.literal !== undefined) {
      out.push(want.literal);
    } else {
      const value = safeDecode(got);
      // A segment decodeURIComponent refuses is carried on re-encoded, so the router downstream can decode it too.
      out.push(isDecodable(got) ? got : encodeURIComponent(value));
      params[want.variable!] = value;
    }
  }
  return { canonicalPath: `/${out.join('/')}`, params };
}

function isDecodable(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/**
 * A segment's text as .NET's UrlDecode read it on the 4.5.14 host: escapes that are not UTF-8 become U+FFFD
 * (`caf%E9` is `caf\uFFFD`), a `%` that starts no escape stays (`a%zzb`); node:querystring's unescape does the same.
 */
function safeDecode(segment: string): string {
  if (!segment.includes('%')) return segment; // nothing to decode
  return isDecodable(segment) ? decodeURIComponent(segment) : urlDecodeLenient(segment);
}
