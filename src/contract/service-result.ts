/**
 * What a service answers: its response DTO, or a `RichResult` that carries the DTO and more (a built report).
 * Formats that write DTOs (JSON, XML, ...) write `dtoOf(result)`; richer formats (the report's HTML page, CSV and
 * XLSX) render the rest. Services never choose a format.
 */
export abstract class RichResult<Dto = unknown> {
  constructor(readonly dto: Dto) {}
}

export function dtoOf(result: unknown): unknown {
  return result instanceof RichResult ? result.dto : result;
}
