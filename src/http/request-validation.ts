/**
 * Request validation on each operation's route: a pair of ajv validators per operation, built from the contract's
 * operation records (src/contract/request-schemas.ts) and compiled once, on the operation's first request (the start's
 * warm-up sends one), in the dialect and with the options express-openapi-validator uses for OpenAPI 3.0 (ajv-draft-04;
 * parameters coerced, the body not; first error only), its errors reported as it reports them (the parity test holds
 * them together). It checks the bound values: it runs after the legacy binder.
 */
import type { RequestHandler } from 'express';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import type { OperationRecord } from '../contract/operations.ts';
import { operationName, requestSchemas } from '../contract/request-schemas.ts';
import { fromValidatorItems, type ValidatorItem } from './request-errors.ts';
import { contextOf } from './request-context.ts';

const INT32 = 2 ** 31;
const INT64 = 2 ** 63;
const MAX_FLOAT = (2 - 2 ** -23) * 2 ** 127;
const MIN_POSITIVE_FLOAT = 2 ** -126;

/** The numeric formats as express-openapi-validator defines them (its `formats`). */
const FORMATS = {
  int32: { type: 'number', validate: (n: number) => Number.isInteger(n) && n < INT32 && n >= -INT32 },
  int64: { type: 'number', validate: (n: number) => Number.isInteger(n) && n <= INT64 - 1 && n >= -INT64 },
  float: {
    type: 'number',
    validate: (n: number) => n === 0 || (Math.abs(n) <= MAX_FLOAT && Math.abs(n) >= MIN_POSITIVE_FLOAT),
  },
  double: { type: 'number', validate: (n: number) => typeof n === 'number' },
} as const;

/** express-openapi-validator's request options (its AjvOptions.request with this service's settings). */
const OPTIONS: Options = {
  strict: false,
  strictNumbers: true,
  strictTuples: true,
  allowUnionTypes: false,
  validateSchema: false,
  useDefaults: true,
  removeAdditional: false,
};

/** ajv-draft-04's class (CommonJS: the module itself, its default export). */
type AjvClass = typeof import('ajv-draft-04').default;
type Ajv = InstanceType<AjvClass>;

function createAjv(Ajv: AjvClass, coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ ...OPTIONS, coerceTypes });
  for (const [name, format] of Object.entries(FORMATS)) ajv.addFormat(name, format);
  return ajv;
}

/** An ajv error as express-openapi-validator reports it: the enum's values in the message, the missing field's path. */
function toItem(error: ErrorObject): ValidatorItem {
  const params = error.params as { allowedValues?: unknown[]; missingProperty?: string; additionalProperty?: string };
  const message =
    error.keyword === 'enum' && params.allowedValues
      ? `${error.message}: ${params.allowedValues.join(', ')}`
      : error.message;
  const named = params.missingProperty ?? params.additionalProperty;
  return {
    path: named !== undefined ? `${error.instancePath}/${named}` : error.instancePath,
    message,
    errorCode: `${error.keyword}.openapi.validation`,
  };
}

export type RequestValidation = (op: OperationRecord) => RequestHandler;

/** An operation's pair: its parameters' validator and its body's. */
type Validators = [ValidateFunction, ValidateFunction];

/**
 * The validation step of each of `operations`. The contract is checked now (an unsupported feature throws); ajv is
 * loaded, and each operation's pair compiled, on its first request, not before the server listens.
 */
export function requestValidation(operations: readonly OperationRecord[]): RequestValidation {
  const schemas = requestSchemas(operations);
  let ajvs: Promise<{ parameters: Ajv; body: Ajv }> | undefined;
  const compile = async (name: string): Promise<Validators> => {
    ajvs ??= import('ajv-draft-04').then(({ default: Ajv }) => ({
      parameters: createAjv(Ajv as unknown as AjvClass, true),
      body: createAjv(Ajv as unknown as AjvClass, false),
    }));
    const { parameters, body } = schemas.get(name)!;
    const ajv = await ajvs;
    return [ajv.parameters.compile(parameters), ajv.body.compile(body)];
  };
  return (op) => {
    // The pair once compiled; until then the promise of it, which every request meanwhile waits for.
    let validators: Validators | Promise<Validators> | undefined;
    return function validateRequest(req, res, next) {
      // The reference matches HEAD to no documented operation and so leaves it unchecked.
      if (req.method === 'HEAD') return next();
      if (!Array.isArray(validators)) {
        validators ??= compile(operationName(op)).then((made) => (validators = made));
        return void validators.then(() => validateRequest(req, res, next), next);
      }
      const [parameters, body] = validators;
      const context = contextOf(res);
      const data = {
        query: req.query,
        headers: req.headers,
        params: context.params,
        cookies: undefined,
        body: req.body,
      };
      const parametersValid = parameters(data);
      const bodyValid = body(data);
      if (parametersValid && bodyValid) return next();
      const errors = [...(parameters.errors ?? []), ...(body.errors ?? [])];
      next(fromValidatorItems(errors.map(toItem), context.sentNames));
    };
  };
}
