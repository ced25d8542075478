/**
 * ServiceStack 4.5's built-in formats, in its Accept preference order (JSON the default, then HTML, XML, JSV, CSV);
 * HTML and CSV answer any DTO and also render the report link's page and download. The one list the app registers
 * (src/app.ts) and the compare tool's battery generates its requests from
 * (packages/migration-tools/src/compare/sources/battery.ts).
 */
import type { HtmlAssets } from '../reports/render-html.ts';
import { csvDtoForm } from './csv-dto.ts';
import { htmlSnapshotForm } from './html-snapshot.ts';
import { jsonFormat } from './json.ts';
import { jsonpFormat } from './jsonp.ts';
import { jsvFormat } from './jsv.ts';
import type { FormatEntry } from './registry.ts';
import { reportCsvFormat, reportHtmlFormat, reportXlsxFormat } from './report-formats.ts';
import { xmlFormat } from './xml.ts';

/** `assets`: the paths of the report page's script, style and chart library (src/http/static-pages.ts). */
export function builtInFormats(assets: HtmlAssets): FormatEntry[] {
  return [
    jsonFormat,
    { ...reportHtmlFormat(assets), ...htmlSnapshotForm },
    xmlFormat,
    jsvFormat,
    { ...reportCsvFormat, ...csvDtoForm },
    reportXlsxFormat,
    jsonpFormat,
  ];
}
