/**
 * What a service answers: its response DTO, or a `RichResult` that carries the DTO and more (a built report), or
 * NOT_MODIFIED when a conditional GET finds the client holding the answer already. Formats that write DTOs (JSON, XML,
 * ...) write `dtoOf(result)`; richer formats (the report's HTML page, CSV and XLSX) render the rest. Services never
 * choose a format.
 */
export abstract class RichResult<Dto = unknown> {
  constructor(readonly dto: Dto) {}
}

export function dtoOf(result: unknown): unknown {
  return result instanceof RichResult ? result.dto : result;
}

/**
 * A conditional GET's check, given to services whose answer it may spare (src/http/conditional-get.ts): `material` is
 * what the answer would be made of (the ledger's version and the settled request, as JSON); it becomes, with the
 * answer's form, the answer's entity tag. True when the client holds that answer: the service builds nothing and
 * returns NOT_MODIFIED.
 */
export type Revalidate = (material: unknown) => boolean;

export const NOT_MODIFIED: unique symbol = Symbol('NOT_MODIFIED');
