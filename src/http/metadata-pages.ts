/**
 * ServiceStack's metadata feature as a real 4.5.14 host served it: `GET /` (302 to `/metadata`), `/metadata` (the
 * operations page), `/{format}/metadata?op=X` (an operation's page: routes, properties with their .NET types, samples
 * in that format), `/operations/metadata`, `/types` and `/types/metadata` (JSON). Everything is read from the contract
 * (src/contract/metadata-model.ts) and the format registry; every value written into a page is HTML-escaped.
 */
import escapeHtml from 'escape-html';
import { Router, type Request, type Response } from 'express';
import {
  metadataModel,
  sampleDto,
  type ClrType,
  type DtoProperty,
  type MetadataOperation,
} from '../contract/metadata-model.ts';
import { openApiContract } from '../contract/openapi-document.ts';
import { STYLED_PAGE_CSP } from '../formats/html-snapshot.ts';
import type { FormatEntry, FormatRegistry, WriteContext } from '../formats/registry.ts';
import { publicPath, requestBaseUrl } from './base-url.ts';

const CLR_NAMESPACE = 'ReportingService.ServiceModel';
const STYLE = `body { font: 13px/1.4 Arial, Helvetica, sans-serif; color: #444; margin: 0; padding: 10px 30px; }
h1 { font: 24px Helvetica, Arial; color: #069; } h2 { font: 18px Helvetica, Arial; }
table { border-collapse: collapse; margin: 10px 0; } th, td { border: 1px solid #ccc; padding: 4px 8px;
  text-align: left; vertical-align: top; }
th { background: #f1f1f1; } pre { background: #f8f8f8; border: 1px solid #ddd; padding: 8px; white-space: pre-wrap; }
caption { text-align: left; padding: 4px 0; }`;

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>
${STYLE}
</style>
</head>
<body>
${body}
</body>
</html>
`;
}

function sendHtml(res: Response, html: string): void {
  res.setHeader('Content-Security-Policy', STYLED_PAGE_CSP);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.send(Buffer.from(html, 'utf8'));
}

function sendJson(res: Response, value: unknown): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.send(Buffer.from(JSON.stringify(value), 'utf8'));
}

/** The formats an operation page exists for, in the host's order of links: XML, JSON, JSV, CSV. */
function pageFormats(formats: FormatRegistry): FormatEntry[] {
  const order = ['xml', 'json', 'jsv', 'csv'];
  return order.map((f) => formats.get(f)).filter((e): e is FormatEntry => !!e?.predefinedRoutes && !!e.writeDto);
}

/** The contract's title, which heads every page. */
const serviceTitle = (): string => openApiContract().document.info.title;

function serviceName(op: MetadataOperation): string {
  return `${op.requestDto.replace(/Request$/, '')}Service`;
}

function indexPage(req: Request, formats: FormatRegistry): string {
  const model = metadataModel();
  const base = publicPath(req);
  const title = serviceTitle();
  const links = pageFormats(formats).map((e) => [e.format.toUpperCase(), `${base}/${e.format}/metadata`] as const);
  const rows = model.operations
    .map(
      (op) =>
        `<tr><th>${escapeHtml(op.requestDto)}</th>${links
          .map(([name, path]) => {
            const href = escapeHtml(`${path}?op=${encodeURIComponent(op.requestDto)}`);
            return `<td><a href="${href}">${name}</a></td>`;
          })
          .join('')}</tr>`,
    )
    .join('');
  return page(
    `${title} metadata`,
    `<h1>${escapeHtml(title)}</h1>
<div class="operations">
<p>The following operations are supported. For a formal definition, please review the contract:
<a href="${base}/openapi.yaml">OpenAPI</a>, <a href="${base}/docs">API documentation</a>.</p>
<h3>Operations</h3><table><tbody>${rows}</tbody></table>
<h3>WSDLS:</h3>
<ul><li><a href="${base}/soap11">soap11</a></li><li><a href="${base}/soap12">soap12</a></li></ul>
<h3>Native types:</h3>
<ul><li><a href="${base}/types">types</a></li><li><a href="${base}/types/metadata">metadata</a></li><li>
<a href="${base}/types/csharp">csharp</a></li><li><a href="${base}/types/typescript">typescript</a></li></ul>
</div>`,
  );
}

function propertiesTable(dto: string, properties: DtoProperty[], where: (p: DtoProperty) => string): string {
  const rows = properties
    .map(
      (p) =>
        `<tr><td>${escapeHtml(p.name)}</td><td>${where(p)}</td><td>${escapeHtml(p.type.csharp)}</td><td>No</td>` +
        `<td></td></tr>`,
    )
    .join('');
  return (
    `<table class="params"><caption><b>${escapeHtml(dto)}</b> ` +
    `Parameters:</caption><thead><tr><th>Name</th><th>Parameter</th><th>Data ` +
    `Type</th><th>Required</th><th>Description</th></tr></thead><tbody>${rows}</tbody></table>`
  );
}

/** The DTOs a DTO refers to, depth first, each once. */
function nestedDtos(name: string, seen = new Set<string>()): string[] {
  for (const p of metadataModel().dtos.get(name) ?? []) {
    const dto = p.type.dto ?? p.type.item?.dto;
    if (dto && !seen.has(dto)) {
      seen.add(dto);
      nestedDtos(dto, seen);
    }
  }
  return [...seen];
}

/** A sample DTO in `entry`'s format, written by the format's own writer. */
function sample(entry: FormatEntry, dto: string, originalUrl: string): string {
  const ctx: WriteContext = {
    status: 200,
    dtoType: dto,
    originalUrl,
    publicPath: '',
    inService: false,
    wrapped: false,
    keyword: () => undefined,
  };
  const out = entry.writeDto!(sampleDto(dto), ctx);
  return String(typeof out === 'string' || Buffer.isBuffer(out) ? out : out.body);
}

function operationPage(req: Request, entry: FormatEntry, op: MetadataOperation): string {
  const model = metadataModel();
  const base = publicPath(req);
  const title = serviceTitle();
  const host = req.get('host') ?? 'localhost';
  const requestProps = model.dtos.get(op.requestDto) ?? [];
  const routeVariables = (path: string) => new Set([...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!.toLowerCase()));
  const variables = new Set(op.routes.flatMap((r) => [...routeVariables(r.path)]));
  const routes = op.routes
    .map((r) => `<tr><th>${escapeHtml(r.verbs)}</th><th>${escapeHtml(r.path)}</th></tr>`)
    .join('');
  const tables = [
    propertiesTable(op.requestDto, requestProps, (p) => (variables.has(p.name.toLowerCase()) ? 'path' : 'query')),
    ...[op.responseDto, ...nestedDtos(op.responseDto)].map((dto) =>
      propertiesTable(dto, model.dtos.get(dto) ?? [], () => 'form'),
    ),
  ].join('');
  const rest = op.routes[0];
  const requestLine = rest
    ? `${rest.verbs.split(',')[0]} ${rest.path}`
    : `POST /${entry.format}/reply/${op.requestDto}`;
  const mediaType = entry.mediaType;
  const postSample =
    `POST /${entry.format}/reply/${op.requestDto} HTTP/1.1 \nHost: ${host} ` +
    `\nAccept: ${mediaType}\nContent-Type: ${mediaType}\nContent-Length: ` +
    `length\n\n${sample(entry, op.requestDto, req.originalUrl)}`;
  const response =
    `HTTP/1.1 200 OK\nContent-Type: ${mediaType}\nContent-Length: ` +
    `length\n\n${sample(entry, op.responseDto, req.originalUrl)}`;
  return page(
    `${op.requestDto} ${entry.format.toUpperCase()} metadata`,
    `<h1>${escapeHtml(title)}</h1>
<div class="operation">
<p><a href="${base}/metadata">&lt;back to all web services</a></p>
<h2>${escapeHtml(op.requestDto)}</h2>
<table class="routes"><caption>The following routes are available for this service:</caption><tbody>${routes}</tbody>
</table>
${tables}
<div class="call-info"><p>To override the Content-type in your clients, use the HTTP <b>Accept</b> Header, append the
<b>.${escapeHtml(entry.format)}</b> suffix or <b>?format=${escapeHtml(entry.format)}</b></p></div>
<div class="example">
<h3>HTTP + ${escapeHtml(entry.format.toUpperCase())}</h3>
<p>The following are sample HTTP requests and responses. The placeholders shown need to be replaced with actual
values.</p>
<div class="request"><pre>${escapeHtml(`${requestLine} HTTP/1.1 \nHost: ${host} \nAccept: ${mediaType}`)}</pre></div>
<div class="request"><pre>${escapeHtml(postSample)}</pre></div>
<div class="response"><pre>${escapeHtml(response)}</pre></div>
</div>
</div>`,
  );
}

function metadataProperty(p: DtoProperty) {
  const type: ClrType = p.type;
  return {
    Name: p.name,
    Type: type.name,
    ...(type.valueType ? { IsValueType: true } : {}),
    ...(type.dto ? {} : { IsSystemType: true }),
    TypeNamespace: type.dto ? CLR_NAMESPACE : type.item ? 'System.Collections.Generic' : 'System',
    ...(type.genericArgs ? { GenericArgs: type.genericArgs } : {}),
  };
}

function metadataType(name: string, extra: Record<string, unknown> = {}) {
  return {
    Name: name,
    Namespace: CLR_NAMESPACE,
    Implements: [],
    ReturnVoidMarker: false,
    ...extra,
    Properties: (metadataModel().dtos.get(name) ?? []).map(metadataProperty),
  };
}

/** /types/metadata: ServiceStack's MetadataTypes document of the contract. */
export function metadataTypes(baseUrl: string) {
  const model = metadataModel();
  const operationDtos = new Set(model.operations.flatMap((op) => [op.requestDto, op.responseDto]));
  return {
    Config: {
      BaseUrl: baseUrl,
      AddDefaultXmlNamespace: 'http://schemas.servicestack.net/types',
      DefaultNamespaces: ['System', 'System.Collections.Generic', 'System.Runtime.Serialization', 'ServiceStack'],
    },
    Namespaces: ['System', 'System.Collections.Generic', CLR_NAMESPACE],
    Types: [...model.dtos.keys()].filter((name) => !operationDtos.has(name)).map((name) => metadataType(name)),
    Operations: model.operations.map((op) => ({
      Actions: op.verbs,
      Request: metadataType(op.requestDto, {
        ReturnMarkerTypeName: { Name: op.responseDto, Namespace: CLR_NAMESPACE },
        Routes: op.routes.map((r) => ({ Path: r.path, Verbs: r.verbs })),
      }),
      Response: metadataType(op.responseDto),
    })),
  };
}

export function metadataPages(formats: FormatRegistry): Router {
  const router = Router();
  // As the host answered it: 302 with Location, Vary: Accept and no body.
  router.get(
    '/',
    (req, res) =>
      void res
        .status(302)
        .setHeader('Location', `${requestBaseUrl(req)}/metadata`)
        .vary('Accept')
        .end(),
  );
  router.get('/metadata', (req, res) => sendHtml(res, indexPage(req, formats)));
  router.get('/operations/metadata', (_req, res) =>
    sendJson(
      res,
      metadataModel().operations.map((op) => ({
        Name: op.requestDto,
        ResponseName: op.responseDto,
        ServiceName: serviceName(op),
        Actions: op.verbs,
        Routes: op.routes.map((r) => r.path),
      })),
    ),
  );
  // Root-relative as the 4.5.14 host wrote them, under the public path as its virtual directory would be.
  router.get('/types', (req, res) => {
    const base = publicPath(req);
    sendJson(res, {
      Metadata: `${base}/types/metadata`,
      Csharp: `${base}/types/csharp`,
      TypeScript: `${base}/types/typescript`,
    });
  });
  router.get('/types/metadata', (req, res) => sendJson(res, metadataTypes(requestBaseUrl(req))));
  router.get('/:format/metadata', (req, res, next) => {
    const format = String(req.params.format).toLowerCase();
    const entry = pageFormats(formats).find((e) => e.format === format);
    if (!entry) return next();
    const name = typeof req.query.op === 'string' ? req.query.op.toLowerCase() : undefined;
    const op =
      name === undefined ? undefined : metadataModel().operations.find((o) => o.requestDto.toLowerCase() === name);
    // Without (or with an unknown) ?op=, the host answered its operations page.
    sendHtml(res, op ? operationPage(req, entry, op) : indexPage(req, formats));
  });
  return router;
}
