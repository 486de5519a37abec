import t from 'tap'
import { echoServer, integrationApp, run } from './integration-fixtures.js'

t.test('the http action sends method, headers and a JSON body, and returns the parsed response', async (t) => {
  const { a, owner } = await integrationApp(t, { allowLoopback: true })
  const s = await echoServer(t, (req, body, res) =>
    res
      .writeHead(201, { 'content-type': 'application/json', 'x-order': '42' })
      .end(JSON.stringify({ received: body ? JSON.parse(body) : null, path: req.url })),
  )
  const res = await run(a, owner, 'http', 'request', {
    method: 'POST',
    url: `${s.origin}/orders?src=ozan`,
    headers: { 'X-Api-Token': 'abc123' },
    body: { item: 'tea', qty: 2 },
  })
  t.equal(res.status, 200, res.text)
  t.match(res.body, {
    ok: true,
    output: { status: 201, truncated: false, headers: { 'x-order': '42' }, body: { received: { item: 'tea', qty: 2 }, path: '/orders?src=ozan' } },
  })
  t.match(s.seen, [
    {
      method: 'POST',
      url: '/orders?src=ozan',
      headers: { 'x-api-token': 'abc123', 'content-type': 'application/json', 'user-agent': 'Ozan-Integrations/1' },
      body: '{"item":"tea","qty":2}',
    },
  ])
  const get = await run(a, owner, 'http', 'request', { url: `${s.origin}/ping` })
  t.equal(s.seen[1]!.method, 'GET', 'GET is the default method')
  t.equal(get.body.ok, true)
})

t.test('a non-2xx answer is ok false with the response still returned; redirects are not followed', async (t) => {
  const { a, owner } = await integrationApp(t, { allowLoopback: true })
  const s = await echoServer(t, (req, _body, res) => {
    if (req.url === '/moved') return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end()
    res.writeHead(404, { 'content-type': 'text/plain' }).end('no such order')
  })
  const missing = await run(a, owner, 'http', 'request', { url: `${s.origin}/orders/9` })
  t.match(missing.body, { ok: false, error: { code: 'http_status', message: /HTTP 404/ }, output: { status: 404, body: 'no such order' } })
  const moved = await run(a, owner, 'http', 'request', { url: `${s.origin}/moved` })
  t.match(moved.body, { ok: false, output: { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } } })
  t.equal(s.seen.length, 2, 'the redirect target was never requested')
})

t.test('timeout_ms bounds the exchange: a silent server is ok false timeout, close to the limit', async (t) => {
  const { a, owner } = await integrationApp(t, { allowLoopback: true })
  const s = await echoServer(t, () => undefined)
  const started = performance.now()
  const res = await run(a, owner, 'http', 'request', { url: `${s.origin}/slow`, timeout_ms: 300 })
  const took = performance.now() - started
  t.match(res.body, { ok: false, error: { code: 'timeout', message: /300 ms/ } })
  t.ok(res.body.duration_ms >= 290 && res.body.duration_ms < 2000, `duration_ms ${res.body.duration_ms}`)
  t.ok(took < 3000)
  const tooLong = await run(a, owner, 'http', 'request', { url: `${s.origin}/slow`, timeout_ms: 30_001 })
  t.match(tooLong.body.detail, [{ loc: ['body', 'input', 'timeout_ms'], type: 'less_than_equal' }])
})

t.test('the operator default timeout applies when none is given', async (t) => {
  const { a, owner } = await integrationApp(t, { allowLoopback: true, timeoutMs: 250 })
  const s = await echoServer(t, () => undefined)
  const res = await run(a, owner, 'http', 'request', { url: `${s.origin}/slow` })
  t.match(res.body, { ok: false, error: { code: 'timeout', message: /250 ms/ } })
})

t.test('the response body is bounded to 64 KiB and marked truncated', async (t) => {
  const { a, owner } = await integrationApp(t, { allowLoopback: true })
  const s = await echoServer(t, (_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ blob: 'x'.repeat(500 * 1024) }))
  })
  const res = await run(a, owner, 'http', 'request', { url: `${s.origin}/big` })
  t.equal(res.body.ok, true)
  t.equal(res.body.output.truncated, true)
  t.type(res.body.output.body, 'string', 'a cut JSON body stays text')
  t.equal(Buffer.byteLength(res.body.output.body), 64 * 1024)
})

t.test('request input is validated: reserved headers, bodies on GET, unknown fields', async (t) => {
  const { a, owner } = await integrationApp(t, { allowLoopback: true })
  const s = await echoServer(t, (_req, _body, res) => res.end('ok'))
  const host = await run(a, owner, 'http', 'request', { url: s.origin, headers: { Host: 'internal.example' } })
  t.equal(host.status, 422)
  t.match(host.body.detail, [{ loc: ['body', 'input', 'headers', 'Host'], msg: /set by the transport/ }])
  const crlf = await run(a, owner, 'http', 'request', { url: s.origin, headers: { 'X-A': 'x\r\nX-Injected: 1' } })
  t.match(crlf.body.detail, [{ loc: ['body', 'input', 'headers', 'X-A'] }])
  const wide = await run(a, owner, 'http', 'request', { url: s.origin, headers: { 'X-Name': 'Ayşe' } })
  t.match(wide.body.detail, [{ loc: ['body', 'input', 'headers', 'X-Name'], msg: /Latin-1/ }], 'a value node would refuse is a 422, not a failure later')
  t.match((await run(a, owner, 'http', 'request', { url: s.origin, body: 'x' })).body.detail, [
    { loc: ['body', 'input', 'body'], msg: /GET request has no body/ },
  ])
  t.match((await run(a, owner, 'http', 'request', { url: s.origin, follow: true })).body.detail, [
    { loc: ['body', 'input', 'follow'], type: 'extra_forbidden' },
  ])
  t.match((await run(a, owner, 'http', 'request', {})).body.detail, [{ loc: ['body', 'input', 'url'], type: 'missing' }])
  t.equal(s.seen.length, 0)
})

t.test('an unknown integration is 404; an unknown action 422 at body.action', async (t) => {
  const { a, owner } = await integrationApp(t, { allowLoopback: true })
  const none = await run(a, owner, 'telegram', 'send', {})
  t.equal(none.status, 404)
  t.equal(none.body.error.code, 'not_found')
  const action = await run(a, owner, 'http', 'fetch', { url: 'http://127.0.0.1:9/' })
  t.equal(action.status, 422)
  t.match(action.body.detail, [{ loc: ['body', 'action'], msg: "Input should be 'request'" }])
  const noBody = await a.request('POST', '/api/v1/integrations/http/run', { token: owner.token, body: {} })
  t.match(noBody.body.detail, [{ loc: ['body', 'action'], type: 'missing' }])
})
