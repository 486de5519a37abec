import fs from 'node:fs'
import path from 'node:path'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import Koa from 'koa'
import Router from '@koa/router'
import { CALL_PAGE_CSP, mountCallPage } from '../../../api/call-page/index.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { createKey, newOwner } from '../../helpers/tenancy-fixtures.js'

// GET /call (the test-call page), its script and style, and the stand-ins guide, over plain HTTP:
// the headers that keep the page strict, and that what is served is the repository's files as
// they are, the same for everyone, with no secret of the server or of any user in them.

const DIR = path.resolve(import.meta.dirname, '../../../api/call-page')
const onDisk = (name: string) => fs.readFileSync(path.join(DIR, name), 'utf8')

/** The CSP as directive → sources, parsed here rather than compared as a string. */
function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name!, sources]),
  )
}

async function app(t: Test): Promise<TestApp> {
  const a = await startTestApp()
  t.teardown(() => a.close())
  return a
}

function strictHeaders(t: Test, headers: Headers, type: string) {
  t.equal(headers.get('content-type'), type)
  t.equal(headers.get('x-content-type-options'), 'nosniff')
  t.equal(headers.get('cache-control'), 'no-store')
  t.equal(headers.get('content-security-policy'), CALL_PAGE_CSP)
  t.equal(headers.get('referrer-policy'), 'no-referrer')
  t.equal(headers.get('x-frame-options'), 'DENY')
  t.equal(headers.get('access-control-allow-origin'), null, 'no other origin may read it')
}

t.test('GET /call: the page, as HTML that cannot run inline script, load another origin or be framed', async (t) => {
  const a = await app(t)
  const r = await a.request('GET', '/call')
  t.equal(r.status, 200)
  strictHeaders(t, r.headers, 'text/html; charset=utf-8')
  t.equal(r.text, onDisk('page.html'), 'the file as it is')

  const csp = directives(r.headers.get('content-security-policy')!)
  t.same(csp.get('default-src'), ["'self'"])
  t.same(csp.get('script-src'), ["'self'", 'blob:'], "this origin's scripts, and the library's worklet from a Blob URL; nothing inline, no eval")
  t.same(csp.get('style-src'), ["'self'"])
  t.same(csp.get('connect-src'), ["'self'", 'ws:', 'wss:'], 'the API here, the engine on its own port')
  t.same(csp.get('object-src'), ["'none'"])
  t.same(csp.get('base-uri'), ["'none'"])
  t.same(csp.get('form-action'), ["'none'"], 'a form never submits (a password never lands in a URL)')
  t.same(csp.get('frame-ancestors'), ["'none'"])

  const scripts = [...r.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
  t.same(
    scripts.map((m) => [m[1]!.trim(), m[2]]),
    [['type="module" src="/call/app.js"', '']],
    'one script, from its own file, nothing inline',
  )
  t.notMatch(r.text, /<style|\sstyle=|\son[a-z]+=/i, 'no inline style or event handler attribute')
  const urls = [...r.text.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!)
  t.ok(urls.length > 0 && urls.every((u) => u.startsWith('/') && !u.startsWith('//')), `only this origin's resources: ${urls.join(' ')}`)
  for (const name of ['email', 'password', 'api-key', 'environment', 'agent-select', 'microphone']) {
    t.match(r.text, new RegExp(`<label for="${name}">`), `#${name} has a label`)
  }
  t.notMatch(r.text, /<input[^>]*\sname=/, 'no input has a name, so no form could send it anywhere')
  t.match(r.text, /<a href="\/call\/stand-ins">No provider keys\? Try the stand-ins \(scripted replies, not real providers\)<\/a>/)
})

t.test('GET /call/app.js, /call/app.css and /call/icon.svg: the files, strict, and the script keeps nothing anywhere but in memory', async (t) => {
  const a = await app(t)
  const js = await a.request('GET', '/call/app.js')
  t.equal(js.status, 200)
  strictHeaders(t, js.headers, 'text/javascript; charset=utf-8')
  t.equal(js.text, onDisk('app.js'))
  t.match(js.text, "'/client/v1/ozan-web.js'", 'the library from this server')
  const code = js.text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')
  t.notMatch(
    code,
    /localStorage|sessionStorage|indexedDB|cookie|caches\.|history\.(push|replace)State|location\.(hash|search|href)\s*=/,
    'no storage, no URL writes',
  )
  t.match(js.text, "credentials: 'omit'", 'requests send no cookies')
  t.notMatch(js.text, /https?:\/\//, 'no other origin')

  const css = await a.request('GET', '/call/app.css')
  t.equal(css.status, 200)
  strictHeaders(t, css.headers, 'text/css; charset=utf-8')
  t.equal(css.text, onDisk('app.css'))
  t.notMatch(css.text, /url\(|@import/, 'no fonts or images from anywhere')

  const icon = await a.request('GET', '/call/icon.svg')
  t.equal(icon.status, 200)
  strictHeaders(t, icon.headers, 'image/svg+xml')
  t.equal(icon.text, onDisk('icon.svg'))
  t.notMatch(icon.text, /<script|href=/i, 'a drawing, nothing active or linked')
})

t.test("no secret is embedded: the same bytes for anyone, signed in or not, holding none of the server's keys", async (t) => {
  const a = await app(t)
  const owner = await newOwner(a)
  const key = await createKey(a, owner)
  const secrets = Object.values(JSON.parse(fs.readFileSync(path.join(a.dataDir, 'secrets.json'), 'utf8')) as Record<string, string>)
  t.equal(secrets.length, 2, 'the signing and encryption keys')
  for (const route of ['/call', '/call/app.js', '/call/app.css', '/call/icon.svg', '/call/stand-ins']) {
    const anonymous = await a.request('GET', route)
    const asOwner = await a.request('GET', route, { token: owner.token })
    const withKey = await a.request('GET', route, { apiKey: key.key })
    t.equal(anonymous.status, 200, route)
    t.equal(asOwner.text, anonymous.text, `${route}: a session changes nothing`)
    t.equal(withKey.text, anonymous.text, `${route}: an API key changes nothing`)
    for (const secret of [...secrets, owner.token, owner.refreshToken, key.key, owner.email]) {
      t.notOk(anonymous.text.includes(secret), `${route} holds no secret or account detail`)
    }
    t.notMatch(anonymous.text, /ozk_[0-9a-f]{16}_|eyJ[A-Za-z0-9_-]{10,}\./, `${route}: nothing shaped like a key or a JWT`)
  }
})

t.test('GET /call/stand-ins: docs/stand-ins.md as a page under the same policy, saying they are scripted', async (t) => {
  const a = await app(t)
  const r = await a.request('GET', '/call/stand-ins')
  t.equal(r.status, 200)
  strictHeaders(t, r.headers, 'text/html; charset=utf-8')
  t.match(r.text, '<h1>Trying voice without provider keys: <code>npm run stand-ins</code></h1>')
  t.match(r.text, /<strong>They are not real providers, and every reply is scripted\.<\/strong>/)
  t.match(r.text, 'href="/call/app.css"')
  t.match(r.text, 'href="/call"', 'a way back')
  t.match(r.text, '(<code>docs/api.md</code>)', 'links to files it does not serve become their paths')
  t.notMatch(r.text, /<script/i)
})

t.test('the page stays out of the OpenAPI document; other names under /call are 404', async (t) => {
  const a = await app(t)
  const doc = (await a.request('GET', '/api/v1/openapi.json')).body as { paths: Record<string, unknown> }
  t.same(
    Object.keys(doc.paths).filter((p) => !p.startsWith('/api/v1/')),
    [],
  )
  t.equal((await a.request('GET', '/call/nope.js')).status, 404)
  t.equal((await a.request('GET', '/call/page.html')).status, 404, 'only the routes, not the folder')
  t.equal((await a.request('GET', '/call/index.ts')).status, 404)
})

t.test('files missing where the page is mounted from: their routes answer 404, the others still serve', async (t) => {
  const dir = t.testdir({ 'page.html': '<!doctype html><title>x</title>' })
  const router = new Router()
  mountCallPage(router, { dir, guide: null })
  const server = new Koa().use(router.routes()).listen(0, '127.0.0.1')
  t.teardown(() => server.close())
  await once(server, 'listening')
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  t.equal((await fetch(`${base}/call`)).status, 200)
  t.equal((await fetch(`${base}/call/app.js`)).status, 404)
  t.equal((await fetch(`${base}/call/stand-ins`)).status, 404)
})
