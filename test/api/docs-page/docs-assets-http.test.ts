import fs from 'node:fs'
import http from 'node:http'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { DOCS_CSP } from '../../../api/openapi/docs-page.js'
import { loadDocsAssets } from '../../../api/openapi/docs-assets.js'
import { startTestApp } from '../../helpers/app.js'

// The API reference page's routes over plain HTTP: the page, its five files, their types and
// caching, and that nothing else under /docs/assets/ is reachable.

const app = await startTestApp()
t.teardown(() => app.close())

const SWAGGER_UI = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
const HERE = path.resolve(import.meta.dirname, '../../../api/openapi')

/** A GET whose path is sent exactly as written (fetch would resolve `..` before sending). */
function rawGet(urlPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${app.url}/`, { path: urlPath, method: 'GET' }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

t.test('GET /docs is an HTML page under a CSP that allows only this origin and no inline code', async (t) => {
  const res = await app.request('GET', '/docs')
  t.equal(res.status, 200)
  t.match(res.headers.get('content-type'), /^text\/html; charset=utf-8/)
  const csp = res.headers.get('content-security-policy') ?? ''
  t.equal(csp, DOCS_CSP)
  t.match(csp, /script-src 'self'(;|$)/)
  t.match(csp, /connect-src 'self'(;|$)/)
  t.notMatch(csp, /unsafe-inline|unsafe-eval|\*|https?:/, 'no inline code, eval or other origin')
  t.equal(res.headers.get('x-content-type-options'), 'nosniff')
  t.equal(res.headers.get('x-frame-options'), 'DENY')
  t.equal(res.headers.get('cache-control'), 'no-store')
  // Every script is a file of this origin; no inline script or style the CSP would refuse.
  const scripts = [...res.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
  t.same(
    scripts.map((m) => /src="([^"]+)"/.exec(m[1]!)?.[1]),
    ['/docs/assets/swagger-ui-bundle.js', '/docs/assets/docs.js'],
  )
  for (const m of scripts) t.equal(m[2]!.trim(), '', 'the script tag has no inline body')
  t.notMatch(res.text, /<style|\sstyle=|\son[a-z]+=/i, 'no inline style or event handler')
  t.notMatch(res.text, /https?:\/\/(?!www\.w3\.org)/, 'no other origin named')
})

t.test('each asset is served with its type, ETag and cache headers, byte for byte from its source', async (t) => {
  const expected = [
    { url: '/docs/assets/swagger-ui-bundle.js', type: /^text\/javascript; charset=utf-8/, file: path.join(SWAGGER_UI, 'swagger-ui-bundle.js') },
    { url: '/docs/assets/swagger-ui.css', type: /^text\/css; charset=utf-8/, file: path.join(SWAGGER_UI, 'swagger-ui.css') },
    { url: '/docs/assets/favicon-32x32.png', type: /^image\/png$/, file: path.join(SWAGGER_UI, 'favicon-32x32.png') },
    { url: '/docs/assets/docs.js', type: /^text\/javascript; charset=utf-8/, file: path.join(HERE, 'docs-init.js') },
    { url: '/docs/assets/docs.css', type: /^text\/css; charset=utf-8/, file: path.join(HERE, 'docs-page.css') },
  ]
  for (const { url, type, file } of expected) {
    const res = await fetch(app.url + url)
    const body = Buffer.from(await res.arrayBuffer())
    t.equal(res.status, 200, url)
    t.match(res.headers.get('content-type'), type, `${url} content type`)
    t.ok(body.equals(fs.readFileSync(file)), `${url} is ${path.basename(file)}`)
    t.equal(res.headers.get('cache-control'), 'public, max-age=300', `${url} cache`)
    t.equal(res.headers.get('x-content-type-options'), 'nosniff', `${url} nosniff`)
    t.equal(res.headers.get('content-security-policy'), DOCS_CSP, `${url} CSP`)
    const etag = res.headers.get('etag')
    t.match(etag, /^"[A-Za-z0-9_-]{32}"$/, `${url} has a strong ETag`)
    const again = await fetch(app.url + url, { headers: { 'if-none-match': etag! } })
    t.equal(again.status, 304, `${url} revalidates to 304`)
    t.equal((await again.arrayBuffer()).byteLength, 0)
    const stale = await fetch(app.url + url, { headers: { 'if-none-match': '"something-else"' } })
    t.equal(stale.status, 200, `${url} with a stale ETag is sent again`)
    await stale.arrayBuffer()
  }
  const bundle = fs.readFileSync(path.join(SWAGGER_UI, 'swagger-ui-bundle.js'), 'utf8')
  t.match(bundle, /SwaggerUIBundle/, 'the bundle is Swagger UI')
})

t.test('names outside the table are 404, including other files of swagger-ui-dist', async (t) => {
  for (const name of ['nope.js', 'swagger-ui-bundle.js.map', 'index.html', 'swagger-initializer.js', 'package.json', 'docs-init.js', 'docs-page.ts', '']) {
    const res = await app.request('GET', `/docs/assets/${name}`)
    t.equal(res.status, 404, `/docs/assets/${name}`)
    t.same(res.body, { detail: 'Not Found' })
  }
  t.equal((await app.request('GET', '/docs/assets')).status, 404)
})

t.test('no path escapes the table: dot segments, encoded or not, are 404', async (t) => {
  const packageJson = fs.readFileSync(path.resolve(import.meta.dirname, '../../../package.json'), 'utf8')
  for (const p of [
    '/docs/assets/../../package.json',
    '/docs/assets/../../../../../../etc/passwd',
    '/docs/assets/..%2f..%2fpackage.json',
    '/docs/assets/%2e%2e/%2e%2e/package.json',
    '/docs/assets/%2e%2e%2f%2e%2e%2fpackage.json',
    '/docs/assets/..%5c..%5cpackage.json',
    '/docs/assets/swagger-ui-bundle.js/../../../package.json',
    '/docs/assets/./docs.js/../../../api/openapi/docs-page.ts',
    '/docs/assets/%00docs.js',
  ]) {
    const res = await rawGet(p)
    t.equal(res.status, 404, p)
    t.notOk(res.body.includes('"name": "ozan"') || res.body.includes('root:') || res.body.includes('mountDocsPage'), `${p} leaks no file`)
  }
  t.ok(packageJson.includes('"name": "ozan"'), 'the leak check looks for something package.json does hold')
})

t.test('a missing source file stops the app from being built rather than serving a blank page', async (t) => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'ozan-docs-'))
  t.teardown(() => fs.rmSync(empty, { recursive: true, force: true }))
  t.throws(() => loadDocsAssets({ swaggerUi: empty }), { code: 'ENOENT' })
  t.throws(() => loadDocsAssets({ here: empty }), { code: 'ENOENT' })
  t.equal(loadDocsAssets().size, 5)
})
