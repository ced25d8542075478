/**
 * A built flat report as a service answers it: the GetFlatResponse DTO (what JSON and XML write) together with
 * the report and its description, which the report's own formats (HTML page, CSV, XLSX) render.
 */
import type { GetFlatResponse } from '../contract/dtos.ts';
import { RichResult } from '../contract/service-result.ts';
import type { FlatOptions } from './flat-options.ts';
import type { FlatReport } from './flat-pnl.ts';
import type { ReportMeta } from './report-meta.ts';

export class FlatReportResult extends RichResult<GetFlatResponse> {
  constructor(
    dto: GetFlatResponse,
    readonly report: FlatReport,
    readonly options: FlatOptions,
    readonly meta: ReportMeta,
  ) {
    super(dto);
  }
}
