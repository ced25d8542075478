/** The hand-written OpenAPI document, loaded once: the validator, the binder and the docs all read this object. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';

export const OPENAPI_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../openapi/reporting-service.yaml');

// The production build (scripts/build.mjs) writes the parsed document beside its copy of the YAML: JSON.parse of it
// takes a few ms at start-up where the YAML parser took ~70. From the sources there is none and the YAML is read.
const PARSED_PATH = OPENAPI_PATH.replace(/\.yaml$/, '.parsed.json');

let cached: OpenAPIV3.DocumentV3 | undefined;

function readDocument(): OpenAPIV3.DocumentV3 {
  if (existsSync(PARSED_PATH)) return JSON.parse(readFileSync(PARSED_PATH, 'utf8')) as OpenAPIV3.DocumentV3;
  return parse(readFileSync(OPENAPI_PATH, 'utf8')) as OpenAPIV3.DocumentV3;
}

/** A fresh deep copy each call, because express-openapi-validator mutates the document it is given. */
export function loadOpenApiDocument(): OpenAPIV3.DocumentV3 {
  cached ??= readDocument();
  return structuredClone(cached);
}
