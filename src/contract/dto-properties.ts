/** A DTO type's property names in declaration order, as openapi/ lists them (ServiceStack's CSV header, metadata). */
import { openApiContract } from './openapi-document.ts';

let cache: Map<string, readonly string[]> | undefined;

export function dtoProperties(dtoType: string): readonly string[] {
  if (!cache) {
    const schemas = openApiContract().document.components?.schemas ?? {};
    cache = new Map(Object.entries(schemas).map(([name, schema]) => [name, Object.keys(schema.properties ?? {})]));
  }
  return cache.get(dtoType) ?? [];
}
