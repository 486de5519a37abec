/**
 * Serves the browser library (client/, `npm run build:client`) at stable, versioned URLs so a
 * customer's page can `import { WebCall } from 'https://<api>/client/v1/ozan-web.js'`:
 *   GET /client/v1/ozan-web.js    text/javascript
 *   GET /client/v1/ozan-web.d.ts  application/typescript (its types, for editors and Deno)
 * `v1` is the web-call protocol version the library speaks. The files are read once, when the app
 * is built; each answer carries a strong ETag (a hash of the bytes, so 304 on If-None-Match), a
 * five-minute public cache (a redeploy reaches pages within minutes) and `Access-Control-Allow-Origin: *`,
 * which module scripts from another origin need.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type Router from '@koa/router'
import type { Context } from 'koa'

export const CLIENT_ASSETS_PATH = '/client/v1'
const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../client/dist')

const ASSETS: Array<{ name: string; type: string }> = [
  { name: 'ozan-web.js', type: 'text/javascript; charset=utf-8' },
  { name: 'ozan-web.d.ts', type: 'application/typescript; charset=utf-8' },
]

interface Asset {
  body: Buffer
  type: string
  etag: string
}

/**
 * Answers with a loaded asset, or 304 when the client's copy is current (its ETag): the part every
 * static asset route shares; each route sets its own caching and security headers first.
 */
export function answerAsset(ctx: Context, asset: { body: Buffer; type: string; etag: string }): void {
  ctx.set('ETag', asset.etag)
  const ifNoneMatch = ctx.get('if-none-match')
  if (ifNoneMatch && etagMatches(ifNoneMatch, asset.etag)) {
    ctx.status = 304
    return
  }
  ctx.type = asset.type
  ctx.body = asset.body
}

/** RFC 9110 §13.1.2: If-None-Match compares weakly, and `*` matches any current representation. */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  const strip = (tag: string) => tag.trim().replace(/^W\//, '')
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || strip(tag) === strip(etag))
}

function load(name: string, type: string, dir: string): Asset | null {
  let body: Buffer
  try {
    body = fs.readFileSync(path.join(dir, name))
  } catch {
    // Not built here: the route answers 404 like any unknown path.
    return null
  }
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` }
}

/** Adds the library's routes to `router`; `dir` is client/dist unless a test says otherwise. */
export function mountClientAssets(router: Router, dir = DIST): void {
  for (const { name, type } of ASSETS) {
    const asset = load(name, type, dir)
    if (!asset) continue
    router.get(`${CLIENT_ASSETS_PATH}/${name}`, (ctx) => {
      ctx.set('Cache-Control', 'public, max-age=300')
      ctx.set('Access-Control-Allow-Origin', '*')
      // Pages isolated with COEP require-corp may load it too.
      ctx.set('Cross-Origin-Resource-Policy', 'cross-origin')
      ctx.set('X-Content-Type-Options', 'nosniff')
      answerAsset(ctx, asset)
    })
  }
}
