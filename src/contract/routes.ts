/**
 * Route templates as the host matches them (ServiceStack's RestPath rules): literal segments compared
 * case-insensitively, empty segments ignored, variables taking one raw segment each.
 */

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
  const out: string[] = [];
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const want = route[i]!;
    const got = segments[i]!;
    if (want.literal !== undefined) {
      if (safeDecode(got).toLowerCase() !== want.literal.toLowerCase()) return undefined;
      out.push(want.literal);
    } else {
      out.push(got);
      params[want.variable!] = safeDecode(got);
    }
  }
  return { canonicalPath: `/${out.join('/')}`, params };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
