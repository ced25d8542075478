/**
 * The contract's routes as the host matches them: templates from openapi/, literal segments compared
 * case-insensitively, empty segments ignored (ServiceStack's RestPath rules).
 */
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';

export interface RouteTemplate {
  /** The path as written in openapi/, e.g. `/v1/echo/{Message}`. */
  template: string;
  segments: { literal?: string; variable?: string }[];
  methods: Set<string>;
  /** True for ServiceStack's pre-defined `/{format}/reply/{Op}` routes. */
  predefined: boolean;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export function routeTemplates(doc: OpenAPIV3.DocumentV3): RouteTemplate[] {
  return Object.entries(doc.paths).map(([template, item]) => ({
    template,
    segments: template.split('/').filter(Boolean).map((part) => {
      const variable = /^\{(.+)\}$/.exec(part)?.[1];
      return variable ? { variable } : { literal: part.toLowerCase() };
    }),
    methods: new Set(HTTP_METHODS.filter((m) => item && m in item).map((m) => m.toUpperCase())),
    predefined: /^\/json\/reply\//i.test(template),
  }));
}

/** Returns the canonical path for `segments` (already split, raw), or undefined. */
export function matchRoute(route: RouteTemplate, segments: string[]): string | undefined {
  if (route.segments.length !== segments.length) return undefined;
  const out: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const want = route.segments[i]!;
    const got = segments[i]!;
    if (want.literal !== undefined) {
      if (safeDecode(got).toLowerCase() !== want.literal) return undefined;
      out.push(route.template.split('/').filter(Boolean)[i]!);
    } else {
      out.push(got);
    }
  }
  return '/' + out.join('/');
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
