/**
 * How a DTO (a response or an ErrorResponse) is written in each format the DTO routes speak. One entry per
 * format; the legacy response writer picks one by negotiation.
 */
import type { WireFormat } from './format.ts';
import { toLegacyJson } from './legacy-json.ts';
import { xmlDtoWriter } from './xml-writer.ts';

export interface DtoWriteContext {
  /** The request DTO's name, e.g. `GetFlatRequest`. */
  dtoName: string;
  status: number;
}

export interface DtoWriter {
  contentType: string;
  write(dto: unknown, context: DtoWriteContext): string;
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

const jsonWriter: DtoWriter = { contentType: JSON_CONTENT_TYPE, write: (dto) => toLegacyJson(dto) };

export const dtoWriters: Partial<Record<WireFormat, DtoWriter>> = {
  json: jsonWriter,
  xml: xmlDtoWriter(),
};

/** The formats DTO routes can answer in, default first. */
export const DTO_FORMATS = Object.keys(dtoWriters) as WireFormat[];
