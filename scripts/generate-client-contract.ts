/**
 * generated/client-contract.ts: every operation's method and path by operationId, and the JSON property names whose
 * openapi/ schema is a legacy `/Date(...)/` date
 * (`LegacyDate`, `LegacyDateInput`). The typed client (src/client/) maps exactly these to `Date` in its types
 * and at run time. Fails when one name is a date in one schema and something else in another.
 */
import path from 'node:path';
import { readOpenApiContract, type SchemaShape } from '../src/contract/openapi-document.ts';
import { readOperations } from '../src/contract/operations.ts';
import { GENERATED_HEADER, type Generator } from './generator.ts';

const DATE_SCHEMAS = new Set(['LegacyDate', 'LegacyDateInput']);

export async function clientContract(
  root: string,
): Promise<{ dates: string[]; operations: Record<string, { method: string; path: string }> }> {
  const contract = await readOpenApiContract(path.join(root, 'openapi', 'reporting-service.yaml'));
  const { schemas = {}, parameters = {} } = contract.document.components ?? {};
  const kinds = new Map<string, Set<boolean>>();
  const note = (name: string, schema: SchemaShape | undefined) => {
    const isDate = DATE_SCHEMAS.has((schema && contract.schemaName(schema)) ?? '');
    kinds.set(name, (kinds.get(name) ?? new Set()).add(isDate));
  };
  for (const schema of Object.values(schemas)) {
    for (const [name, property] of Object.entries(schema.properties ?? {})) note(name, property);
  }
  for (const parameter of Object.values(parameters)) note(parameter.name, parameter.schema);
  const conflicts = [...kinds].filter(([, k]) => k.size > 1).map(([n]) => n);
  if (conflicts.length) throw new Error(`openapi: ${conflicts.join(', ')} are dates in one place and not in another`);
  const operations = Object.fromEntries(
    readOperations(contract).all.map((op) => [op.operationId, { method: op.method, path: op.template }]),
  );
  return {
    dates: [...kinds]
      .filter(([, k]) => k.has(true))
      .map(([n]) => n)
      .sort(),
    operations,
  };
}

export const clientContractGenerator: Generator = {
  output: 'client-contract.ts',
  async render(root) {
    const { dates: names, operations } = await clientContract(root);
    return (
      `${GENERATED_HEADER}// Source: openapi/reporting-service.yaml (scripts/generate-client-contract.ts)\n\n` +
      '/** Method and path of every operation, by operationId. */\n' +
      `export const operationRoutes = ${JSON.stringify(operations, null, 2)} as const;\n\n` +
      'export type OperationId = keyof typeof operationRoutes;\n\n' +
      '/** JSON property names whose schema is a legacy `/Date(...)/` date. */\n' +
      `export const legacyDateProperties = ${JSON.stringify(names)} as const;\n\n` +
      'export type LegacyDateProperty = (typeof legacyDateProperties)[number];\n'
    );
  },
};
