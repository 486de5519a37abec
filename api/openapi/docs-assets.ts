/**
 * The files the API reference page (/docs) loads, all served by the platform itself (no CDN):
 * Swagger UI's prebuilt browser bundle and stylesheet from the `swagger-ui-dist` package, and the
 * page's own start-up script and style from this folder. Each is read once, when the app is
 * built, into a fixed table: a request can only name one of these entries, never a file path.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const DOCS_PATH = '/docs'
export const DOCS_ASSETS_PATH = `${DOCS_PATH}/assets`

const HERE = path.dirname(fileURLToPath(import.meta.url))

/** Where swagger-ui-dist is installed (resolved as Node resolves it, so hoisting does not matter). */
function swaggerUiDir(): string {
  return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
}

export interface DocsAssetSource {
  /** The name under /docs/assets/. */
  name: string
  type: string
  /** Which folder it is read from. */
  from: 'swagger-ui' | 'here'
  /** The file's name there, when it differs from `name`. */
  file?: string
}

export const DOCS_ASSET_SOURCES: readonly DocsAssetSource[] = [
  { name: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8', from: 'swagger-ui' },
  { name: 'swagger-ui.css', type: 'text/css; charset=utf-8', from: 'swagger-ui' },
  { name: 'favicon-32x32.png', type: 'image/png', from: 'swagger-ui' },
  { name: 'docs.js', type: 'text/javascript; charset=utf-8', from: 'here', file: 'docs-init.js' },
  { name: 'docs.css', type: 'text/css; charset=utf-8', from: 'here', file: 'docs-page.css' },
]

export interface DocsAsset {
  body: Buffer
  type: string
  /** A strong ETag: a hash of the bytes. */
  etag: string
}

export interface DocsAssetDirs {
  swaggerUi?: string
  here?: string
}

/**
 * Reads every asset into memory, keyed by its name under /docs/assets/. A missing file is an
 * error, not a 404 at run time: without the bundle the page is blank, so the app should not start.
 */
export function loadDocsAssets(dirs: DocsAssetDirs = {}): Map<string, DocsAsset> {
  const folders = { 'swagger-ui': dirs.swaggerUi ?? swaggerUiDir(), here: dirs.here ?? HERE }
  const out = new Map<string, DocsAsset>()
  for (const { name, type, from, file } of DOCS_ASSET_SOURCES) {
    const body = fs.readFileSync(path.join(folders[from], file ?? name))
    out.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` })
  }
  return out
}
