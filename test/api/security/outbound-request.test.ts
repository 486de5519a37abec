import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { outboundRequest, OutboundError } from '../../../api/security/outbound-request.js'
import { allowList, type ResolveHost } from '../../../core/index.js'

const LOOPBACK = allowList(['127.0.0.0/8'])

/** A loopback server whose handler each test writes; it records each request it received. */
async function server(t: Test, handler: http.RequestListener) {
  const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = []
  const s = http.createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (c: Buffer) => parts.push(c))
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(parts).toString() })
      handler(req, res)
    })
  })
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r()))))
  return { port: (s.address() as AddressInfo).port, seen }
}

const limits = { allow: LOOPBACK, timeoutMs: 2000, maxResponseBytes: 1024 }

t.test('a request to an allowed range goes out and its response comes back', async (t) => {
  const s = await server(t, (_req, res) => res.writeHead(201, { 'x-reply': 'yes' }).end('created'))
  const res = await outboundRequest(
    { method: 'POST', url: `http://127.0.0.1:${s.port}/items?a=1`, headers: { 'content-type': 'text/plain' }, body: 'hello' },
    limits,
  )
  t.match(res, { status: 201, truncated: false, headers: { 'x-reply': 'yes' } })
  t.equal(res.body.toString(), 'created')
  t.match(s.seen, [{ method: 'POST', url: '/items?a=1', body: 'hello', headers: { 'content-type': 'text/plain' } }])
})

t.test('without the allow-list a loopback target is refused before anything is sent', async (t) => {
  const s = await server(t, (_req, res) => res.end('x'))
  for (const url of [`http://127.0.0.1:${s.port}/`, `http://localhost:${s.port}/`, `http://2130706433:${s.port}/`, `http://0x7f.1:${s.port}/`]) {
    const err = await outboundRequest({ method: 'GET', url }, { ...limits, allow: undefined }).catch((e: unknown) => e)
    t.ok(err instanceof OutboundError, url)
    t.match(err, { code: 'destination_refused', message: /loopback/ }, url)
  }
  t.equal(s.seen.length, 0, 'the server was never reached')
})

t.test('the socket connects to the checked address, not to a second DNS answer', async (t) => {
  const s = await server(t, (req, res) => res.end(`host ${req.headers.host}`))
  let lookups = 0
  // The name exists only in this resolver: had the connection asked DNS again it would fail.
  const resolve: ResolveHost = async () => (lookups++, [{ address: '127.0.0.1', family: 4 }])
  const res = await outboundRequest({ method: 'GET', url: `http://rebind.invalid:${s.port}/` }, { ...limits, resolve })
  t.equal(res.body.toString(), `host rebind.invalid:${s.port}`, 'the Host header keeps the name')
  t.equal(lookups, 1, 'resolved once, by the guard')
})

t.test('redirects are returned, never followed', async (t) => {
  const s = await server(t, (_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end())
  const res = await outboundRequest({ method: 'GET', url: `http://127.0.0.1:${s.port}/go` }, limits)
  t.equal(res.status, 302)
  t.equal(res.headers.location, 'http://169.254.169.254/latest/meta-data/')
  t.equal(s.seen.length, 1)
})

t.test('the response body is read up to the limit only', async (t) => {
  const s = await server(t, (_req, res) => {
    res.writeHead(200)
    // 1 MiB in 16 KiB writes: far more than the limit.
    const chunk = Buffer.alloc(16 * 1024, 'a')
    for (let i = 0; i < 64; i++) res.write(chunk)
    res.end()
  })
  const res = await outboundRequest({ method: 'GET', url: `http://127.0.0.1:${s.port}/big` }, limits)
  t.equal(res.body.length, 1024)
  t.equal(res.truncated, true)
  const small = await outboundRequest({ method: 'GET', url: `http://127.0.0.1:${s.port}/big` }, { ...limits, maxResponseBytes: 2 * 1024 * 1024 })
  t.equal(small.body.length, 1024 * 1024)
  t.equal(small.truncated, false)
})

t.test('a server that never answers times out close to the deadline', async (t) => {
  const s = await server(t, () => undefined)
  const started = performance.now()
  const err = await outboundRequest({ method: 'GET', url: `http://127.0.0.1:${s.port}/slow` }, { ...limits, timeoutMs: 300 }).catch((e: unknown) => e)
  const took = performance.now() - started
  t.match(err, { code: 'timeout', message: /300 ms/ })
  t.ok(took >= 280 && took < 1500, `took ${Math.round(took)} ms`)
})

t.test('a body that stalls half way also times out, and the caller can cancel', async (t) => {
  const s = await server(t, (_req, res) => {
    res.writeHead(200)
    res.write('partial')
  })
  const err = await outboundRequest({ method: 'GET', url: `http://127.0.0.1:${s.port}/` }, { ...limits, timeoutMs: 300 }).catch((e: unknown) => e)
  t.match(err, { code: 'timeout' })
  const ac = new AbortController()
  setTimeout(() => ac.abort(), 50)
  const cancelled = await outboundRequest({ method: 'GET', url: `http://127.0.0.1:${s.port}/` }, { ...limits, signal: ac.signal }).catch((e: unknown) => e)
  t.match(cancelled, { code: 'aborted' })
})

t.test('a closed port is a network failure', async (t) => {
  const s = await server(t, (_req, res) => res.end())
  const port = s.port
  // Find a port that nobody listens on: bind, note, close.
  const probe = http.createServer()
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
  const free = (probe.address() as AddressInfo).port
  await new Promise<void>((r) => probe.close(() => r()))
  t.not(free, port)
  const err = await outboundRequest({ method: 'GET', url: `http://127.0.0.1:${free}/` }, limits).catch((e: unknown) => e)
  t.match(err, { code: 'network', message: /ECONNREFUSED/ })
})
