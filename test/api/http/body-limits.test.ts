import http from 'node:http'
import t, { type Test } from 'tap'
import { startTestApp } from '../../helpers/app.js'

const LIMIT = 2048
const app = await startTestApp({ env: { OZAN_BODY_LIMIT_BYTES: String(LIMIT) } })
t.teardown(() => app.close())

interface Sent {
  status: number
  headers: http.IncomingHttpHeaders
  body: { error: { code: string; message: string; request_id: string } }
}

/**
 * A raw request: with `chunked` no Content-Length is sent and the body goes out piece by piece;
 * `contentLength` may announce more than is sent, to prove the server answers without waiting.
 */
interface SendOptions {
  chunks: string[]
  type?: string
  chunked?: boolean
  contentLength?: number
  lang?: string
  agent?: http.Agent
}

function send(path: string, o: SendOptions): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {}
    if (o.type !== undefined) headers['content-type'] = o.type
    if (o.lang) headers['accept-language'] = o.lang
    if (!o.chunked) headers['content-length'] = o.contentLength ?? o.chunks.reduce((n, c) => n + Buffer.byteLength(c), 0)
    let answered = false
    const req = http.request(`${app.url}${path}`, { method: 'POST', headers, agent: o.agent, timeout: 3000 }, (res) => {
      answered = true
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (text += c))
      res.on('end', () => {
        // A request announced longer than what was sent can never complete; drop its socket.
        if (o.contentLength !== undefined) req.destroy()
        resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined })
      })
    })
    req.on('timeout', () => req.destroy(new Error('no answer within 3 s')))
    req.on('error', (err) => {
      if (!answered) reject(err)
    })
    for (const c of o.chunks) req.write(c)
    if (o.contentLength === undefined) req.end()
  })
}

/** A login body of exactly `bytes` bytes (unknown keys are ignored by the schema). */
function loginBody(bytes: number): string {
  const shell = JSON.stringify({ email: 'nobody@example.com', password: 'wrong password', pad: '' })
  return shell.replace('"pad":""', `"pad":"${'x'.repeat(bytes - Buffer.byteLength(shell))}"`)
}

function assertTooLarge(t: Test, res: Sent) {
  t.equal(res.status, 413)
  t.same(Object.keys(res.body.error).sort(), ['code', 'message', 'request_id'])
  t.equal(res.body.error.code, 'payload_too_large')
  t.equal(res.body.error.request_id, res.headers['x-request-id'])
}

t.test('a body of exactly the limit is read (Content-Length and chunked)', async (t) => {
  const body = loginBody(LIMIT)
  t.equal(Buffer.byteLength(body), LIMIT)
  t.equal((await send('/api/v1/auth/login', { chunks: [body], type: 'application/json' })).status, 401)
  t.equal((await send('/api/v1/auth/login', { chunks: [body.slice(0, 1000), body.slice(1000)], type: 'application/json', chunked: true })).status, 401)
})

t.test('one byte over the limit with Content-Length is 413 payload_too_large', async (t) => {
  const res = await send('/api/v1/auth/login', { chunks: [loginBody(LIMIT + 1)], type: 'application/json' })
  assertTooLarge(t, res)
  t.match(res.body.error.message, /2048 bytes/)
})

t.test('a chunked body over the limit is 413 payload_too_large', async (t) => {
  const big = loginBody(LIMIT * 40)
  const chunks = big.match(/[\s\S]{1,1000}/g)!
  assertTooLarge(t, await send('/api/v1/auth/login', { chunks, type: 'application/json', chunked: true }))
  assertTooLarge(t, await send('/api/v1/auth/login', { chunks: [loginBody(LIMIT + 1)], type: 'application/json', chunked: true }))
})

t.test('the limit counts bytes, not characters', async (t) => {
  const body = JSON.stringify({ email: 'a@example.com', password: 'ş'.repeat(1100) })
  t.ok(body.length < LIMIT && Buffer.byteLength(body) > LIMIT)
  assertTooLarge(t, await send('/api/v1/auth/login', { chunks: [body], type: 'application/json' }))
  assertTooLarge(t, await send('/api/v1/auth/login', { chunks: [body], type: 'application/json', chunked: true }))
})

t.test('a kept-alive connection still serves the next request after a refused body', async (t) => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  t.teardown(() => agent.destroy())
  const chunks = loginBody(LIMIT * 40).match(/[\s\S]{1,1000}/g)!
  for (const chunked of [true, false]) {
    assertTooLarge(t, await send('/api/v1/auth/login', { chunks, type: 'application/json', chunked, agent }))
    const next = await send('/api/v1/auth/login', { chunks: [loginBody(100)], type: 'application/json', agent })
    t.equal(next.status, 401, `the ${chunked ? 'chunked' : 'sized'} refusal did not wedge the connection`)
  }
})

t.test('an oversized Content-Length is refused before the body arrives', async (t) => {
  const res = await send('/api/v1/auth/register', { chunks: ['{"email":'], type: 'application/json', contentLength: 50 * 1024 * 1024 })
  assertTooLarge(t, res)
})

t.test('the 413 message follows Accept-Language', async (t) => {
  const res = await send('/api/v1/auth/login', { chunks: [loginBody(LIMIT + 10)], type: 'application/json', lang: 'tr' })
  assertTooLarge(t, res)
  t.equal(res.body.error.message, 'İstek gövdesi çok büyük.')
})

t.test('a non-JSON Content-Type is 415 unsupported_media_type', async (t) => {
  const body = loginBody(200)
  for (const type of [
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
    'application/jsonx',
    undefined,
  ]) {
    for (const chunked of [false, true]) {
      const res = await send('/api/v1/auth/login', { chunks: [body], type, chunked })
      t.equal(res.status, 415, `${type ?? '(none)'}${chunked ? ' chunked' : ''}`)
      t.equal(res.body.error.code, 'unsupported_media_type')
      t.equal(res.body.error.request_id, res.headers['x-request-id'])
    }
  }
})

t.test('JSON media types with parameters or a +json suffix are accepted', async (t) => {
  for (const type of ['application/json; charset=utf-8', 'APPLICATION/JSON', 'application/vnd.ozan+json', 'application/merge-patch+json']) {
    t.equal((await send('/api/v1/auth/login', { chunks: [loginBody(200)], type })).status, 401, type)
  }
})

t.test('no size or type problem ever turns into a 500', async (t) => {
  const bodies = [loginBody(LIMIT + 1), loginBody(LIMIT * 10), '{"broken":', '']
  for (const body of bodies) {
    for (const type of ['application/json', 'text/plain']) {
      for (const chunked of [false, true]) {
        for (const path of ['/api/v1/auth/login', '/api/v1/auth/register', '/api/v1/auth/forgot-password']) {
          const res = await send(path, { chunks: body ? [body] : [], type, chunked })
          t.ok(res.status >= 400 && res.status < 500, `${path} ${type} ${chunked ? 'chunked' : 'sized'} ${body.length}B → ${res.status}`)
        }
      }
    }
  }
})

t.test('the server keeps serving after refusing bodies', async (t) => {
  const res = await app.request('POST', '/api/v1/auth/login', { body: { email: 'nobody@example.com', password: 'wrong password' } })
  t.equal(res.status, 401)
})
