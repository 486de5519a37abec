import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import Router from '@koa/router'
import Koa from 'koa'
import { etagMatches, mountClientAssets } from '../../../api/client-assets/index.js'
import { DTS_PATH, JS_PATH } from '../../../scripts/build-client.js'
import { startTestApp } from '../../helpers/app.js'

// The browser library at its documented URLs (client/README.md): GET /client/v1/ozan-web.js and
// /client/v1/ozan-web.d.ts, cacheable, revalidated by a strong ETag, importable from any origin.

t.test('GET /client/v1/ozan-web.js: the built file, as JavaScript, cacheable, from any origin', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const r = await a.request('GET', '/client/v1/ozan-web.js', { headers: { Origin: 'https://customer.example' } })
  t.equal(r.status, 200)
  t.equal(r.text, fs.readFileSync(JS_PATH, 'utf8'))
  t.equal(r.headers.get('content-type'), 'text/javascript; charset=utf-8')
  t.equal(r.headers.get('cache-control'), 'public, max-age=300')
  t.equal(r.headers.get('access-control-allow-origin'), '*')
  const etag = r.headers.get('etag')!
  t.match(etag, /^"[A-Za-z0-9_-]{32}"$/, 'a strong ETag (no W/)')
  t.equal(etag, `"${createHash('sha256').update(fs.readFileSync(JS_PATH)).digest('base64url').slice(0, 32)}"`, 'the hash of the content')

  const again = await a.request('GET', '/client/v1/ozan-web.js', { headers: { 'If-None-Match': etag } })
  t.equal(again.status, 304)
  t.equal(again.text, '')
  t.equal(again.headers.get('etag'), etag)
  t.equal(again.headers.get('cache-control'), 'public, max-age=300')
  t.equal((await a.request('GET', '/client/v1/ozan-web.js', { headers: { 'If-None-Match': '"other"' } })).status, 200)
  t.equal((await a.request('GET', '/client/v1/ozan-web.js', { headers: { 'If-None-Match': `"x", W/${etag}` } })).status, 304, 'in a list, weakly compared')
})

t.test('GET /client/v1/ozan-web.d.ts: its types; other names under /client/v1 are 404', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const r = await a.request('GET', '/client/v1/ozan-web.d.ts')
  t.equal(r.status, 200)
  t.equal(r.text, fs.readFileSync(DTS_PATH, 'utf8'))
  t.equal(r.headers.get('content-type'), 'application/typescript; charset=utf-8')
  t.equal(r.headers.get('access-control-allow-origin'), '*')
  t.not(r.headers.get('etag'), (await a.request('GET', '/client/v1/ozan-web.js')).headers.get('etag'))
  t.equal((await a.request('GET', '/client/v1/nope.js')).status, 404)
  t.equal((await a.request('GET', '/client/v1/../package.json')).status, 404)
})

t.test('read once, when the app is built: a rebuild on disk is not served until a restart', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ozan-dist-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dir, 'ozan-web.js'), 'export const v = 1\n')
  const router = new Router()
  mountClientAssets(router, dir)
  const server = new Koa().use(router.routes()).listen(0, '127.0.0.1')
  t.teardown(() => server.close())
  await once(server, 'listening')
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/client/v1`
  fs.writeFileSync(path.join(dir, 'ozan-web.js'), 'export const v = 2\n')
  fs.writeFileSync(path.join(dir, 'ozan-web.d.ts'), 'export declare const v: number\n')
  t.equal(await (await fetch(`${url}/ozan-web.js`)).text(), 'export const v = 1\n')
  t.equal((await fetch(`${url}/ozan-web.d.ts`)).status, 404, 'a file missing at start is not served')
})

t.test('If-None-Match matching (RFC 9110 §13.1.2)', async (t) => {
  t.ok(etagMatches('"a"', '"a"'))
  t.ok(etagMatches('W/"a"', '"a"'))
  t.ok(etagMatches('"b", "a"', '"a"'))
  t.ok(etagMatches('*', '"a"'))
  t.notOk(etagMatches('"b"', '"a"'))
})
