/**
 * The test-call page (issue #20): a signed-in user picks one of the organization's agents and
 * talks to it from the browser, as Vapi's, Retell's and LiveKit's dashboards let one do.
 *   GET /call              the page (page.html)
 *   GET /call/app.js       its script: sign-in, agent picker, token minting, the call (app.js)
 *   GET /call/app.css      its style, and /call/icon.svg its icon (a browser asks for one)
 *   GET /call/stand-ins    docs/stand-ins.md as a page, for trying voice without provider keys
 * Outside /api/v1, so not in the OpenAPI document. The files are read once, when the app is built
 * (as the client library's are). Nothing secret is ever written into them: the page signs in
 * through the public API and keeps what it signed in with in page memory only.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type Router from '@koa/router'
import type { Context } from 'koa'
import { Marked } from 'marked'

export const CALL_PAGE_PATH = '/call'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const STAND_INS_DOC = path.resolve(HERE, '../../docs/stand-ins.md')

/**
 * Nothing but this origin's own files: no inline script or style, no other origin. `ws:`/`wss:`
 * because the call engine listens on a port (or host) of its own. `blob:` scripts because the
 * library loads its AudioWorklet module from a Blob URL (client/src/audio-graph.ts). Forms submit
 * nowhere: the page sends them with fetch, so a form that somehow submitted (script failed) never
 * puts a password into a URL.
 */
export const CALL_PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self' blob:",
  "style-src 'self'",
  "connect-src 'self' ws: wss:",
  "img-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

interface Served {
  type: string
  body: string
}

/** The guide's links point at sibling .md files the page does not serve: those become their repository path. */
function renderGuide(markdown: string): string {
  const marked = new Marked({
    renderer: {
      link({ href, tokens }) {
        const inner = this.parser.parseInline(tokens)
        if (/^[a-z]+:/i.test(href) || href.startsWith('/') || href.startsWith('#')) return false
        return `${inner} (<code>docs/${href.replace(/[^A-Za-z0-9._/#-]/g, '')}</code>)`
      },
    },
  })
  const body = marked.parse(markdown, { async: false })
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Stand-ins · Ozan</title><link rel="icon" href="${CALL_PAGE_PATH}/icon.svg" type="image/svg+xml"><link rel="stylesheet" href="${CALL_PAGE_PATH}/app.css"></head>
<body><main><p><a href="${CALL_PAGE_PATH}">← Back to the call page</a></p>
${body}</main></body></html>`
}

function read(name: string, dir: string): string | null {
  try {
    return fs.readFileSync(path.join(dir, name), 'utf8')
  } catch {
    return null
  }
}

function files(dir: string, guide: string | null): Map<string, Served> {
  const out = new Map<string, Served>()
  const add = (route: string, type: string, body: string | null) => body !== null && out.set(route, { type, body })
  add(CALL_PAGE_PATH, 'text/html; charset=utf-8', read('page.html', dir))
  add(`${CALL_PAGE_PATH}/app.js`, 'text/javascript; charset=utf-8', read('app.js', dir))
  add(`${CALL_PAGE_PATH}/app.css`, 'text/css; charset=utf-8', read('app.css', dir))
  add(`${CALL_PAGE_PATH}/icon.svg`, 'image/svg+xml', read('icon.svg', dir))
  add(`${CALL_PAGE_PATH}/stand-ins`, 'text/html; charset=utf-8', guide === null ? null : renderGuide(guide))
  return out
}

function securityHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', CALL_PAGE_CSP)
  ctx.set('X-Content-Type-Options', 'nosniff')
  // The page and its script change together on a redeploy; nothing of it is worth caching.
  ctx.set('Cache-Control', 'no-store')
  ctx.set('Referrer-Policy', 'no-referrer')
  ctx.set('X-Frame-Options', 'DENY')
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin')
  ctx.set('Permissions-Policy', 'microphone=(self), camera=(), geolocation=()')
}

export interface CallPageOptions {
  /** Where page.html, app.js, app.css and icon.svg are (this folder unless a test says otherwise). */
  dir?: string
  /** The stand-ins guide's Markdown (docs/stand-ins.md unless a test says otherwise). */
  guide?: string | null
}

/** Adds the page's routes to `router`. */
export function mountCallPage(router: Router, o: CallPageOptions = {}): void {
  const guide = o.guide !== undefined ? o.guide : read(path.basename(STAND_INS_DOC), path.dirname(STAND_INS_DOC))
  for (const [route, file] of files(o.dir ?? HERE, guide)) {
    router.get(route, (ctx) => {
      securityHeaders(ctx)
      ctx.type = file.type
      ctx.body = file.body
    })
  }
}
