/**
 * What the migration tools (packages/migration-tools: compare, shadow) may use of the service, and nothing else: the
 * contract's operations and requests, the wire formats, the report page's HTML helpers and assets, key redaction and
 * the CLIs' way to end. test/unit/architecture/ holds the tools to this file.
 */
export { KEY_LIKE, REDACTED, redactApiKey } from './auth/api-keys.ts';
export {
  HYPHENATED_GUID,
  operationRequests,
  WSDL_REQUESTS,
  wireRequests,
  type ContractRequest,
  type OperationRequests,
} from './conformance/requests.ts';
export type { FieldSpec, ScalarKind } from './contract/binding-plan.ts';
/** @internal the tools' tests */
export type { GetFlatResponse } from './contract/dtos.ts';
export { Keywords } from './contract/keywords.ts';
/** @internal the tools' tests */
export { loadOpenApiDocument } from './contract/openapi-document.ts';
export { contractOperations } from './contract/operations.ts';
export { matchRoute } from './contract/routes.ts';
export { builtInFormats } from './formats/built-in.ts';
export { DATE_HANDLERS } from './formats/jsconfig.ts';
/** @internal the tools' tests */
export { applyJsConfig } from './formats/jsconfig.ts';
export { parseJsv, toJsv } from './formats/jsv.ts';
export { createFormatRegistry, type FormatEntry, type FormatRegistry, type WriteContext } from './formats/registry.ts';
export { REPORT_ASSETS } from './http/static-pages.ts';
export { runCli, usageError } from './ops/cli-failure.ts';
export { REQUEST_ID_HEADER } from './ops/request-log.ts';
export { html, SafeHtml } from './reports/html.ts';
/** @internal the tools' tests */
export { encodeReportToken, type ReportLinkPayload } from './reports/report-link.ts';
