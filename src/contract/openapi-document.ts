/**
 * The hand-written OpenAPI document, loaded once. Two views of it:
 *  - loadOpenApiDocument(): as written, `$ref`s kept (a fresh copy per call): what the validator, /docs and the
 *    served contract take;
 *  - openApiContract(): dereferenced once by json-schema-ref-parser, every `$ref` replaced by the object it names
 *    (one object per target: the library keeps reference equality), with the `components/schemas` name of any schema
 *    object in it. The operation records, the binder's plan, the metadata model, the conformance kit and the
 *    generators read shapes from it; nothing resolves a `$ref` by hand.
 * The production build (scripts/build.mjs) writes the contract as JSON beside the YAML (its source), and dereferenced
 * in V8's serialization (node:v8), which keeps the objects the dereference shares shared: start-up reads that, without
 * loading the dereferencer or a YAML parser. From the sources, this module reads and dereferences the YAML with a
 * top-level await when it is first imported (the library is asynchronous only).
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize } from 'node:v8';
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

/** A dereferenced document with the names of its component schemas. */
function named(document: DereferencedDocument): OpenApiContract {
  const names = new Map<object, string>(
    Object.entries(document.components?.schemas ?? {}).map(([name, schema]) => [schema, name]),
  );
  return { document, schemaName: (schema) => names.get(schema) };
}

/** `raw` (left as it is) dereferenced, with the names of its component schemas. */
export async function dereferenceOpenApi(raw: OpenAPIV3.Document): Promise<OpenApiContract> {
  const { default: $RefParser } = await import('@apidevtools/json-schema-ref-parser');
  return named((await $RefParser.dereference(structuredClone(raw))) as unknown as DereferencedDocument);
}

/** The OpenAPI document at `file`, dereferenced (the generators read the repository they are given). */
export async function readOpenApiContract(file: string = OPENAPI_PATH): Promise<OpenApiContract> {
  const { parse } = await import('yaml');
  return dereferenceOpenApi(parse(await readFile(file, 'utf8')) as OpenAPIV3.Document);
}

const JSON_PATH = OPENAPI_PATH.replace(/\.yaml$/, '.json');
/** Where the production build writes the dereferenced contract (scripts/build.mjs). */
export const DEREFERENCED_PATH = OPENAPI_PATH.replace(/\.yaml$/, '.dereferenced.v8');

/** The contract as the build wrote it in JSON, else the YAML source. */
async function readWritten(): Promise<OpenAPIV3.Document> {
  if (existsSync(JSON_PATH)) return JSON.parse(readFileSync(JSON_PATH, 'utf8')) as OpenAPIV3.Document;
  const { parse } = await import('yaml');
  return parse(readFileSync(OPENAPI_PATH, 'utf8')) as OpenAPIV3.Document;
}

/** The build's dereferenced contract, when there is one that this Node reads (one Node's build, another's start). */
function builtContract(): DereferencedDocument | undefined {
  if (!existsSync(DEREFERENCED_PATH) || !existsSync(JSON_PATH)) return undefined;
  try {
    return deserialize(readFileSync(DEREFERENCED_PATH)) as DereferencedDocument;
  } catch {
    return undefined;
  }
}

const built = builtContract();
let written = built ? undefined : await readWritten();
const contract = built ? named(built) : await dereferenceOpenApi(written!);

/** A fresh deep copy each call, because express-openapi-validator mutates the document it is given. */
export function loadOpenApiDocument(): OpenAPIV3.Document {
  // With the build's dereferenced contract, the document as written is read when first asked for (its JSON).
  written ??= JSON.parse(readFileSync(JSON_PATH, 'utf8')) as OpenAPIV3.Document;
  return structuredClone(written);
}

/** The service's own contract (openapi/reporting-service.yaml), dereferenced once per process. */
export function openApiContract(): OpenApiContract {
  return contract;
}
