/**
 * The API reference a developer reads (GET /docs): Swagger UI, served by the platform itself from
 * the swagger-ui-dist package, over the document at /api/v1/openapi.json. It shows every operation
 * with its parameters, its request body's schema (references resolved, nested objects expanded),
 * every response with its status and error codes and their examples, and "Try it out" against this
 * server with an API key or session token that stays in the page's memory.
 *   GET /docs                         the page
 *   GET /docs/assets/<name>           its files (docs-assets.ts lists them; any other name is a 404)
 * Outside /api/v1, so not in the OpenAPI document.
 */
import type Router from '@koa/router'
import type { Context } from 'koa'
import { answerAsset } from '../client-assets/index.js'
import { DOCS_ASSETS_PATH, DOCS_PATH, type DocsAssetDirs, loadDocsAssets } from './docs-assets.js'

/**
 * Only this origin: no inline script (the page's start-up is docs.js) and no other host, so the
 * page cannot be made to send a typed key anywhere but this API. `data:` images are the icons
 * swagger-ui.css embeds. Style attributes are set by Swagger UI through the DOM (CSSOM), which
 * style-src does not govern, so no 'unsafe-inline' is needed. Forms submit nowhere: Swagger UI
 * sends requests with fetch.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

export const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Ozan API reference</title>
<link rel="icon" href="${DOCS_ASSETS_PATH}/favicon-32x32.png" type="image/png">
<link rel="stylesheet" href="${DOCS_ASSETS_PATH}/swagger-ui.css">
<link rel="stylesheet" href="${DOCS_ASSETS_PATH}/docs.css">
</head><body>
<header class="docs-header"><h1>Ozan API reference</h1>
<p>Machine-readable document: <a href="/api/v1/openapi.json"><code>/api/v1/openapi.json</code></a> (OpenAPI 3.1).
A key given to “Authorize” is kept in this page only and is forgotten when it is reloaded.</p></header>
<main id="swagger-ui"><p>Loading…</p></main>
<script src="${DOCS_ASSETS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_ASSETS_PATH}/docs.js"></script>
</body></html>`

function securityHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', DOCS_CSP)
  ctx.set('X-Content-Type-Options', 'nosniff')
  ctx.set('Referrer-Policy', 'no-referrer')
  ctx.set('X-Frame-Options', 'DENY')
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin')
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin')
}

/** Adds the page's routes to `router`; `dirs` replace where its files are read from (tests). */
export function mountDocsPage(router: Router, dirs: DocsAssetDirs = {}): void {
  const assets = loadDocsAssets(dirs)
  router.get(DOCS_PATH, (ctx) => {
    securityHeaders(ctx)
    ctx.set('Cache-Control', 'no-store')
    ctx.type = 'text/html; charset=utf-8'
    ctx.body = DOCS_HTML
  })
  // One route per file: the name is matched against a fixed table, never joined onto a path.
  for (const [name, asset] of assets) {
    router.get(`${DOCS_ASSETS_PATH}/${name}`, (ctx) => {
      securityHeaders(ctx)
      // Five minutes, revalidated by ETag: an upgrade of swagger-ui-dist reaches readers soon.
      ctx.set('Cache-Control', 'public, max-age=300')
      answerAsset(ctx, asset)
    })
  }
}
