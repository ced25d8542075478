import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';

/** `METHOD template` of every operation whose openapi/ `security` requires a key (no empty `{}` alternative). */
export function securedOperations(doc: OpenAPIV3.DocumentV3): Set<string> {
  const out = new Set<string>();
  const global = (doc as { security?: Record<string, unknown>[] }).security;
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item ?? {})) {
      const security = (op as { security?: Record<string, unknown>[] })?.security ?? global;
      if (Array.isArray(security) && security.length > 0 && !security.some((s) => Object.keys(s).length === 0)) {
        out.add(`${method.toUpperCase()} ${template}`);
      }
    }
  }
  return out;
}
