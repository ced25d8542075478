/**
 * The rules derived from openapi/, per operation: it answers its documented success status and content type with
 * the DTO's required members (`op:{id}:200`); a bad request answers 400 with a ResponseStatus (`op:{id}:400`, where
 * 400 is documented); a secured operation refuses a request without a key with 401 (`op:{id}:401`).
 */
import { check, hasResponseStatus, NotApplicable, requireApiKey, type ConformanceRule } from './rule.ts';
import { operationRequests, type OperationRequests } from './requests.ts';

const NEEDS_KEY = 'requires an API key (--api-key)';

function successRule({ record, operationId, template, method, needsKey, sample }: OperationRequests): ConformanceRule {
  const ok = record.responses.get('200');
  const okType = ok?.dtoType;
  const okMedia = ok?.mediaTypes[0];
  return {
    name: `op:${operationId}:200`,
    description: `${method} ${template} answers 200 ${okMedia ?? ''} with a ${okType ?? 'body'}`,
    async run(context) {
      if (!sample) throw new NotApplicable('no sample request can be built from the contract (e.g. a signed token)');
      if (needsKey) requireApiKey(context, NEEDS_KEY);
      const res = await context.send(sample);
      check(res.status === 200, `status ${res.status}, expected 200`);
      check(okMedia && res.contentType.startsWith(okMedia), `Content-Type '${res.contentType}', expected ${okMedia}`);
      const required = ok?.schema?.required ?? [];
      for (const name of required) check(res.json && name in (res.json as object), `${okType}.${name} missing`);
    },
  };
}

function badRequestRule({ operationId, template, method, needsKey, bad }: OperationRequests): ConformanceRule {
  return {
    name: `op:${operationId}:400`,
    description: `${method} ${template}: a bad request answers 400 with a ResponseStatus`,
    async run(context) {
      if (!bad) throw new NotApplicable('no input of this operation can be malformed');
      if (needsKey) requireApiKey(context, NEEDS_KEY);
      const res = await context.send(bad);
      check(res.status === 400, `status ${res.status}, expected 400`);
      check(
        res.contentType.startsWith('application/json'),
        `Content-Type '${res.contentType}', expected application/json`,
      );
      check(hasResponseStatus(res.json), 'no ResponseStatus with ErrorCode and Message');
    },
  };
}

function missingKeyRule({ operationId, template, method, sample }: OperationRequests): ConformanceRule {
  return {
    name: `op:${operationId}:401`,
    description: `${method} ${template}: no API key answers 401 with a ResponseStatus`,
    async run(context) {
      if (!sample) throw new NotApplicable('no sample request can be built from the contract');
      const res = await context.send({ ...sample, key: false });
      check(res.status === 401, `status ${res.status}, expected 401`);
      check(hasResponseStatus(res.json), 'no ResponseStatus with ErrorCode and Message');
    },
  };
}

/** Every operation's rules, in document order: 200, then 400 and 401 where the contract documents them. */
export function contractRules(companyId: number): ConformanceRule[] {
  return operationRequests(companyId).flatMap((op) => [
    successRule(op),
    ...(op.record.responses.has('400') ? [badRequestRule(op)] : []),
    ...(op.record.responses.has('401') && op.needsKey ? [missingKeyRule(op)] : []),
  ]);
}
