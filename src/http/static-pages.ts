/**
 * What the service serves besides the contract's operations, all from this machine (no CDN): the API docs page
 * (`/docs`, Swagger UI from swagger-ui-dist, rendering openapi/), the contract itself (`/openapi.json`,
 * `/openapi.yaml`), and the report page's assets (`/assets/…`: chart.js from node_modules, the page's script
 * and style). Mounted before the legacy 404 handler.
 */
import { Router, type Response } from 'express';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPENAPI_PATH, loadOpenApiDocument } from '../contract/openapi-document.ts';
import { publicPath } from './base-url.ts';

const require = createRequire(import.meta.url);
const CHART_JS_DIST = path.dirname(require.resolve('chart.js'));
/**
 * swagger-ui-dist's documented getAbsoluteFSPath(); its main module loads Swagger UI's bundle, so on first use only.
 */
let swaggerUiDist: string | undefined;
const swaggerUiDir = () =>
  (swaggerUiDist ??= (require('swagger-ui-dist') as { getAbsoluteFSPath(): string }).getAbsoluteFSPath());
const REPORT_ASSETS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../reports/assets');

export const REPORT_ASSETS = {
  css: '/assets/report-page.css',
  chartJs: '/assets/chart.umd.min.js',
  pageJs: '/assets/report-page.js',
} as const;

/**
 * The files of swagger-ui-dist the docs page loads, and nothing else of the package (its index.html and
 * swagger-initializer.js open the petstore demo; oauth2-redirect.html is a page of its own).
 */
const DOCS_ASSET_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png'] as const;
/** Scripts, styles and images are not documents: nothing may run or load in their context. */
const ASSET_CSP = "default-src 'none'; frame-ancestors 'none'";

const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src " +
  "'self'; base-uri 'none'; frame-ancestors 'self'";

const docsPage = (prefix: string) => `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Reporting Service · API documentation</title>
<link rel="icon" type="image/png" href="${prefix}/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="${prefix}/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="${prefix}/docs/docs.css">
</head>
<body>
<header class="docs-bar">
  <strong>Reporting Service API</strong>
  <nav>
    <a href="${prefix}/openapi.json">OpenAPI (JSON)</a>
    <a href="${prefix}/openapi.yaml">OpenAPI (YAML)</a>
    <a href="${prefix}/soap12?wsdl" id="wsdl-link">SOAP 1.2 WSDL</a>
  </nav>
</header>
<div id="swagger-ui"></div>
<script src="${prefix}/docs/assets/swagger-ui-bundle.js"></script>
<script src="${prefix}/docs/docs.js"></script>
</body>
</html>
`;

const docsScript = (
  prefix: string,
) => `// Swagger UI over the service's own contract; validatorUrl null: no call to the online validator.
window.ui = SwaggerUIBundle({
  url: '${prefix}/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

const DOCS_STYLE = `.docs-bar { display: flex; gap: 24px; align-items: center; padding: 12px 24px;
  background: #1b2a3a; color: #fff;
  font: 15px system-ui, sans-serif; }
.docs-bar nav { display: flex; gap: 16px; }
.docs-bar a { color: #9fd3ff; }
`;

function sendText(res: Response, type: string, body: string, csp?: string): void {
  res.setHeader('Content-Type', type);
  if (csp) res.setHeader('Content-Security-Policy', csp);
  res.send(Buffer.from(body, 'utf8'));
}

export function staticPages(): Router {
  const router = Router();
  // Made on first use: a start does not pay for what a first request does not ask for.
  let contractJson: string | undefined;
  let contractYaml: string | undefined;
  const yamlText = () => (contractYaml ??= readFileSync(OPENAPI_PATH, 'utf8'));
  // Under a path prefix the contract's server is that prefix, so Swagger UI and generated clients call it there.
  const contractJsonAt = (prefix: string) =>
    prefix
      ? JSON.stringify({ ...loadOpenApiDocument(), servers: [{ url: prefix }] }, null, 2)
      : (contractJson ??= JSON.stringify(loadOpenApiDocument(), null, 2));
  const contractYamlAt = async (prefix: string) => {
    if (!prefix) return yamlText();
    const { parseDocument } = await import('yaml');
    const doc = parseDocument(yamlText());
    doc.setIn(['servers'], doc.createNode([{ url: prefix }]));
    return doc.toString({ lineWidth: 0 });
  };

  router.get(['/docs', '/docs/'], (req, res) =>
    sendText(res, 'text/html; charset=utf-8', docsPage(publicPath(req)), DOCS_CSP),
  );
  router.get('/docs/docs.js', (req, res) =>
    sendText(res, 'text/javascript; charset=utf-8', docsScript(publicPath(req)), ASSET_CSP),
  );
  router.get('/docs/docs.css', (_req, res) => sendText(res, 'text/css; charset=utf-8', DOCS_STYLE, ASSET_CSP));
  for (const file of DOCS_ASSET_FILES) {
    router.get(`/docs/assets/${file}`, (_req, res) => {
      res.setHeader('Content-Security-Policy', ASSET_CSP);
      res.sendFile(path.join(swaggerUiDir(), file), { maxAge: '1h' });
    });
  }
  router.get('/openapi.json', (req, res) =>
    sendText(res, 'application/json; charset=utf-8', contractJsonAt(publicPath(req))),
  );
  router.get('/openapi.yaml', async (req, res) =>
    sendText(res, 'application/yaml; charset=utf-8', await contractYamlAt(publicPath(req))),
  );
  router.get(REPORT_ASSETS.chartJs, (_req, res) =>
    res.sendFile(path.join(CHART_JS_DIST, 'chart.umd.min.js'), { maxAge: '1h' }),
  );
  router.get(REPORT_ASSETS.pageJs, (_req, res) =>
    res.sendFile(path.join(REPORT_ASSETS_DIR, 'report-page.js'), { maxAge: '1h' }),
  );
  router.get(REPORT_ASSETS.css, (_req, res) =>
    res.sendFile(path.join(REPORT_ASSETS_DIR, 'report-page.css'), { maxAge: '1h' }),
  );
  return router;
}
