/** The hand-written OpenAPI document, loaded once: the validator, the binder and the docs all read this object. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { OpenAPIV3 } from 'openapi-types';

export const OPENAPI_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../openapi/reporting-service.yaml');

let cached: OpenAPIV3.Document | undefined;

function readDocument(): OpenAPIV3.Document {
  return parse(readFileSync(OPENAPI_PATH, 'utf8')) as OpenAPIV3.Document;
}

/** A fresh deep copy each call, because express-openapi-validator mutates the document it is given. */
export function loadOpenApiDocument(): OpenAPIV3.Document {
  cached ??= readDocument();
  return structuredClone(cached);
}
