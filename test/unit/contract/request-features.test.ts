/**
 * The compiled request validators implement the part of OpenAPI the contract uses, as express-openapi-validator reads
 * it; anything else in a request's parameters or body (a new style or explode, readOnly, discriminator, a composition,
 * a non-JSON body, ...) must stop the start and this test, never be checked half.
 */
import { expect } from 'chai';
import type { OpenAPIV3 } from 'openapi-types';
import { dereferenceOpenApi, loadOpenApiDocument } from '../../../src/contract/openapi-document.ts';
import { contractOperations, type Operation } from '../../../src/contract/operations.ts';
import { requestSchemas, unsupportedRequestFeatures } from '../../../src/contract/request-schemas.ts';
import { requestValidation } from '../../../src/http/request-validation.ts';

type Doc = OpenAPIV3.Document & Record<string, unknown>;
const get = (doc: Doc) => doc.paths['/v1/Reporting/ProfitAndLoss/Flat']!.get!;
const post = (doc: Doc) => doc.paths['/json/reply/GetFlatRequest']!.post!;
const params = (doc: Doc) => doc.components!.parameters as Record<string, OpenAPIV3.ParameterObject>;
const schemas = (doc: Doc) => doc.components!.schemas as Record<string, OpenAPIV3.SchemaObject>;
/**
 * The contract's operation records with their definitions taken from `raw` dereferenced: the binder, which reads the
 * records too, refuses some of these contracts on its own; this checks the validators' refusal alone.
 */
async function operationsOf(raw: OpenAPIV3.Document) {
  const { document } = await dereferenceOpenApi(raw);
  return contractOperations().all.map((op) => {
    const item = document.paths[op.template] as Record<string, Operation>;
    return { ...op, definition: item[op.method.toLowerCase()]! };
  });
}
const flatRequest = (doc: Doc) => schemas(doc).GetFlatRequest!.properties as Record<string, OpenAPIV3.SchemaObject>;

/** One change each, and the words the refusal must name. */
const FEATURES: [string, (doc: Doc) => void, string][] = [
  ['a deepObject style', (d) => void (params(d).OrderByParam!.style = 'deepObject'), 'style `deepObject`'],
  ['an array not exploded', (d) => void (params(d).LocationsParam!.explode = false), 'explode `false`'],
  ['a pipe-delimited array', (d) => void (params(d).FiltersParam!.style = 'pipeDelimited'), 'style `pipeDelimited`'],
  ['readOnly', (d) => void (flatRequest(d).OrderBy = { type: 'string', readOnly: true }), '`readOnly`'],
  ['writeOnly', (d) => void (flatRequest(d).OrderBy = { type: 'string', writeOnly: true }), '`writeOnly`'],
  ['nullable', (d) => void (flatRequest(d).UseAccountMapping = { type: 'boolean', nullable: true }), '`nullable`'],
  ['a default', (d) => void (flatRequest(d).UseAccountMapping = { type: 'boolean', default: true }), '`default`'],
  [
    'a discriminator',
    (d) => void (schemas(d).GetFlatRequest!.discriminator = { propertyName: 'OrderBy' }),
    '`discriminator`',
  ],
  ['oneOf', (d) => void (flatRequest(d).CompanyId = { oneOf: [{ type: 'integer' }, { type: 'string' }] }), '`oneOf`'],
  ['a date-time format', (d) => void (flatRequest(d).StartDate = { type: 'string', format: 'date-time' }), 'format'],
  [
    'an XML body',
    (d) => void (post(d).requestBody = { content: { 'application/xml': { schema: { type: 'object' } } } }),
    'application/xml',
  ],
  [
    'a cookie parameter',
    (d) => void get(d).parameters!.push({ name: 'session', in: 'cookie', schema: { type: 'string' } }),
    'parameters in cookie',
  ],
  [
    'an array in a header',
    (d) => void get(d).parameters!.push({ name: 'X-Tenants', in: 'header', schema: { type: 'array', items: {} } }),
    'an array in header',
  ],
  [
    'a header parameter of another style',
    (d) => void get(d).parameters!.push({ name: 'X-Tenant', in: 'header', style: 'form', schema: { type: 'string' } }),
    'style `form`',
  ],
  [
    'a parameter by content',
    (d) =>
      void get(d).parameters!.push({
        name: 'Where',
        in: 'query',
        content: { 'application/json': { schema: { type: 'object' } } },
      }),
    '`content`',
  ],
  [
    'an object in the query',
    (d) => void get(d).parameters!.push({ name: 'Where', in: 'query', schema: { type: 'object' } }),
    'an object in query',
  ],
];

describe('request validation: the contract uses only what the compiled validators implement', () => {
  it("the service's own contract: nothing unsupported, and its validation steps are made", async () => {
    const operations = contractOperations().all;
    expect(unsupportedRequestFeatures(operations)).to.deep.equal([]);
    expect(requestValidation(operations)).to.be.a('function');
  });

  it('a header parameter is checked under `headers`, in lower case as Node and the reference name it', async () => {
    const raw = loadOpenApiDocument() as Doc;
    get(raw).parameters!.push({
      name: 'X-Tenant',
      in: 'header',
      required: true,
      schema: { type: 'string', pattern: '^[a-z]+$' },
    });
    const operations = await operationsOf(raw);
    expect(unsupportedRequestFeatures(operations)).to.deep.equal([]);
    const { parameters } = requestSchemas(operations).get('GET /v1/Reporting/ProfitAndLoss/Flat')!;
    // ajv-draft-04 is CommonJS: its module is the class (as src/http/request-validation.ts loads it).
    const Ajv = (await import('ajv-draft-04')).default as unknown as typeof import('ajv-draft-04').default;
    const validate = new Ajv({ strict: false, coerceTypes: true, validateFormats: false }).compile(parameters);
    const request = (headers: Record<string, string>) => ({ query: { CompanyId: 1 }, headers, params: {} });
    expect(validate(request({ 'x-tenant': 'acme' }))).to.equal(true);
    expect(validate(request({ 'x-tenant': 'ACME' }))).to.equal(false);
    expect(validate.errors?.[0]?.instancePath).to.equal('/headers/x-tenant');
    expect(validate(request({}))).to.equal(false);
    expect(validate.errors?.[0]?.params).to.deep.equal({ missingProperty: 'x-tenant' });
  });

  for (const [feature, change, named] of FEATURES) {
    it(`a contract with ${feature} is refused, naming it`, async () => {
      const raw = loadOpenApiDocument() as Doc;
      change(raw);
      const operations = await operationsOf(raw);
      const problems = unsupportedRequestFeatures(operations);
      expect(problems.join('; ')).to.include(named);
      expect(() => requestValidation(operations)).to.throw(/do not implement/);
    });
  }
});
