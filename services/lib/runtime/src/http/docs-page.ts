import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { escapeHtml } from "../pages/escape-html.js";
import type { App } from "./app.js";

/**
 * `GET /docs` on every public port: Swagger UI (`swagger-ui-dist`, served from node_modules, no
 * CDN) rendering the port's own OpenAPI document, with "Try it out" against the document's
 * `servers` URL. Everything it loads comes from this server; its CSP allows nothing else.
 */
export const DOCS_PATH = "/docs";

/** The assets under `/docs/`: Swagger UI's bundle and stylesheet, and the constant script that starts it. */
const SWAGGER_UI_FILES = {
  "swagger-ui-bundle.js": "application/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
} as const;
const START_SCRIPT_NAME = "docs.js";

/** The routes the docs page adds (no schema: they are not part of the API the document describes). */
export const DOCS_ROUTES: readonly string[] = [
  `GET ${DOCS_PATH}`,
  ...[...Object.keys(SWAGGER_UI_FILES), START_SCRIPT_NAME].map((name) => `GET ${DOCS_PATH}/${name}`),
];

/**
 * Starts Swagger UI on the document named by the page (a data attribute): a constant file, so the
 * CSP needs no inline script. No validator badge (it would call a third-party host), nothing kept
 * in the browser's storage (an API key typed into "Authorize" is gone with the tab).
 */
const START_SCRIPT = `(() => {
  const root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: new URL(root.dataset.document, document.baseURI).href,
    domNode: root,
    deepLinking: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    filter: true,
    persistAuthorization: false,
    validatorUrl: null,
  });
})();
`;

/** The page. Asset and document URLs are relative, so it works behind a proxy that adds a path prefix. */
function renderDocsPage(title: string, documentPath: string): string {
  const assets = `${DOCS_PATH.slice(1)}/`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${assets}swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-document="${escapeHtml(documentPath.slice(1))}"></div>
<script src="${assets}swagger-ui-bundle.js"></script>
<script src="${assets}${START_SCRIPT_NAME}"></script>
</body>
</html>
`;
}

/**
 * The page's Content-Security-Policy: scripts and styles from this server only, images from it and
 * `data:` (Swagger UI's icons), requests ("Try it out") to this server and to the public URL the
 * document names as its server.
 */
export function docsPageCsp(publicUrl: string | undefined): string {
  const connect = ["'self'", ...(publicUrl ? [new URL(publicUrl).origin] : [])];
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src ${[...new Set(connect)].join(" ")}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

/** Swagger UI's files, read once per process on first use (every service of the all-in-one shares them). */
let swaggerUiFiles: Promise<Map<string, Buffer>> | undefined;
function loadSwaggerUiFiles(): Promise<Map<string, Buffer>> {
  if (!swaggerUiFiles) {
    swaggerUiFiles = Promise.all(
      Object.keys(SWAGGER_UI_FILES).map(async (name) => [name, await readFile(join(swaggerUiDir, name))] as const),
    ).then((entries) => new Map(entries));
    swaggerUiFiles.catch(() => {
      swaggerUiFiles = undefined; // a failed read is tried again on the next request
    });
  }
  return swaggerUiFiles;
}

/** Assets do not change while a process runs (they come with its installed packages). */
const ASSET_CACHE_CONTROL = "public, max-age=3600";

export interface DocsPageOptions {
  /** The page title (the document's `info.title`). */
  title: string;
  /** Where the port serves its OpenAPI document (absolute path on this server). */
  documentPath: string;
  /** The public base URL, the document's `servers` entry: "Try it out" calls go there. */
  publicUrl?: string;
}

/** Adds `GET /docs` and its assets to a public port (`createApp` does, after the OpenAPI document). */
export function registerDocsPage(app: App, options: DocsPageOptions): void {
  const html = renderDocsPage(options.title, options.documentPath);
  const csp = docsPageCsp(options.publicUrl);
  const hidden = { logLevel: "warn", schema: { hide: true } } as const;
  app.get(DOCS_PATH, hidden, async (_request, reply) =>
    reply
      .header("content-security-policy", csp)
      .header("cache-control", "no-cache")
      .type("text/html; charset=utf-8")
      .send(html),
  );
  app.get(`${DOCS_PATH}/${START_SCRIPT_NAME}`, hidden, async (_request, reply) =>
    reply.header("cache-control", ASSET_CACHE_CONTROL).type("application/javascript; charset=utf-8").send(START_SCRIPT),
  );
  for (const [name, type] of Object.entries(SWAGGER_UI_FILES)) {
    app.get(`${DOCS_PATH}/${name}`, hidden, async (_request, reply) => {
      const file = (await loadSwaggerUiFiles()).get(name);
      return reply.header("cache-control", ASSET_CACHE_CONTROL).type(type).send(file);
    });
  }
}
