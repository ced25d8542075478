/**
 * The hand-written OpenAPI document, loaded once. Two views of it:
 *  - loadOpenApiDocument(): as written, `$ref`s kept (a fresh copy per call): what the validator, /docs and the
 *    served contract take;
 *  - openApiContract(): dereferenced once by json-schema-ref-parser, every `$ref` replaced by the object it names
 *    (one object per target: the library keeps reference equality), with the `components/schemas` name of any schema
 *    object in it. The operation records, the binder's plan, the metadata model, the conformance kit and the
 *    generators read shapes from it; nothing resolves a `$ref` by hand.
 * The library is asynchronous only, so this module dereferences the service's contract with a top-level await when it
 * is first imported: start-up reads it before anything asks. The production build writes the contract as JSON beside
 * the YAML (scripts/build.mjs), which is read instead when present: the YAML parser is not loaded to start.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import type { OpenAPIV3 } from 'openapi-types';

export const OPENAPI_PATH = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../openapi/reporting-service.yaml',
);

/** `T` with every `$ref` replaced by its target, as json-schema-ref-parser's dereference leaves a document. */
export type Dereferenced<T> = T extends OpenAPIV3.ReferenceObject
  ? never
  : T extends readonly (infer U)[]
    ? Dereferenced<U>[]
    : T extends object
      ? { [K in keyof T]: Dereferenced<T[K]> }
      : T;

export type DereferencedDocument = Dereferenced<OpenAPIV3.Document>;
export type SchemaShape = Dereferenced<OpenAPIV3.SchemaObject>;

export interface OpenApiContract {
  /** The document with every `$ref` replaced by its target. Shared: read only. */
  readonly document: DereferencedDocument;
  /**
   * The `components/schemas` name of a schema object of `document` (`EchoResponse`, `LegacyDate`); undefined for an
   * inline schema.
   */
  schemaName(schema: object): string | undefined;
}

/** `raw` (left as it is) dereferenced, with the names of its component schemas. */
export async function dereferenceOpenApi(raw: OpenAPIV3.Document): Promise<OpenApiContract> {
  const document = (await $RefParser.dereference(structuredClone(raw))) as unknown as DereferencedDocument;
  const names = new Map<object, string>(
    Object.entries(document.components?.schemas ?? {}).map(([name, schema]) => [schema, name]),
  );
  return { document, schemaName: (schema) => names.get(schema) };
}

/** The OpenAPI document at `file`, dereferenced (the generators read the repository they are given). */
export async function readOpenApiContract(file: string = OPENAPI_PATH): Promise<OpenApiContract> {
  const { parse } = await import('yaml');
  return dereferenceOpenApi(parse(await readFile(file, 'utf8')) as OpenAPIV3.Document);
}

/** The contract as the build wrote it in JSON, else the YAML source. */
async function readWritten(): Promise<OpenAPIV3.Document> {
  const json = OPENAPI_PATH.replace(/\.yaml$/, '.json');
  if (existsSync(json)) return JSON.parse(readFileSync(json, 'utf8')) as OpenAPIV3.Document;
  const { parse } = await import('yaml');
  return parse(readFileSync(OPENAPI_PATH, 'utf8')) as OpenAPIV3.Document;
}

const written = await readWritten();
const contract = await dereferenceOpenApi(written);

/** A fresh deep copy each call, because express-openapi-validator mutates the document it is given. */
export function loadOpenApiDocument(): OpenAPIV3.Document {
  return structuredClone(written);
}

/** The service's own contract (openapi/reporting-service.yaml), dereferenced once per process. */
export function openApiContract(): OpenApiContract {
  return contract;
}
