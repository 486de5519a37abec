import t from 'tap'
import { startTestApp } from '../../helpers/app.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const app = await startTestApp()
t.teardown(() => app.close())

interface LogLine {
  level: number
  msg: string
  request_id?: string
  method?: string
  path?: string
  status?: number
  duration_ms?: number
}
const logLines = (): LogLine[] => app.logs.map((l) => JSON.parse(l) as LogLine)

t.test('every response carries a generated UUID when the client sends none', async (t) => {
  const seen = new Set<string>()
  for (const [method, path] of [
    ['GET', '/api/v1/openapi.json'],
    ['GET', '/api/v1/auth/me'],
    ['GET', '/api/v1/nowhere'],
    ['PUT', '/api/v1/auth/me'],
  ] as const) {
    const res = await app.request(method, path)
    const id = res.headers.get('x-request-id')
    t.match(id, UUID, `${method} ${path} (${res.status}) has an id`)
    seen.add(id!)
  }
  t.equal(seen.size, 4, 'each request gets its own id')
})

t.test('a well-formed incoming X-Request-ID is echoed, in the header and in the error body', async (t) => {
  for (const id of ['abc-123', 'trace:01HZX/span=7+x@edge.example', 'a'.repeat(128)]) {
    const res = await app.request('GET', '/api/v1/auth/me', { headers: { 'x-request-id': id } })
    t.equal(res.status, 401)
    t.equal(res.headers.get('x-request-id'), id)
    t.equal(res.body.error.request_id, id)
  }
})

t.test('an unsafe incoming id is replaced, never reflected', async (t) => {
  const unsafe = ['a'.repeat(129), 'has space', '<script>alert(1)</script>', 'quote"d', 'semi;colon', 'ümlaut', '']
  for (const id of unsafe) {
    const res = await app.request('GET', '/api/v1/auth/me', { headers: { 'x-request-id': id } })
    const got = res.headers.get('x-request-id')
    t.match(got, UUID, `${JSON.stringify(id.slice(0, 20))} is replaced by a UUID`)
    t.equal(res.body.error.request_id, got)
    t.notOk(res.text.includes('<script>'), 'the rejected value is not in the body')
  }
})

t.test('the error body request_id matches the response header', async (t) => {
  const res = await app.request('POST', '/api/v1/auth/login', { raw: 'x', headers: { 'content-type': 'text/plain' } })
  t.equal(res.status, 415)
  t.equal(res.body.error.request_id, res.headers.get('x-request-id'))
})

t.test('404, 405 and 422 responses carry the id too', async (t) => {
  const notFound = await app.request('GET', '/api/v1/missing', { headers: { 'x-request-id': 'nf-1' } })
  t.equal(notFound.status, 404)
  t.equal(notFound.headers.get('x-request-id'), 'nf-1')
  const notAllowed = await app.request('DELETE', '/api/v1/auth/login', { headers: { 'x-request-id': 'na-1' } })
  t.equal(notAllowed.status, 405)
  t.equal(notAllowed.headers.get('x-request-id'), 'na-1')
  const invalid = await app.request('POST', '/api/v1/auth/login', { body: {}, headers: { 'x-request-id': 'inv-1' } })
  t.equal(invalid.status, 422)
  t.equal(invalid.headers.get('x-request-id'), 'inv-1')
})

t.test('one structured log line per request, keyed by the request id', async (t) => {
  const id = `log-check-${Date.now()}`
  const res = await app.request('GET', '/api/v1/auth/me?token=sekrit-query-value', { headers: { 'x-request-id': id } })
  t.equal(res.status, 401)
  const lines = logLines().filter((l) => l.request_id === id && l.msg === 'request')
  t.equal(lines.length, 1)
  const line = lines[0]!
  t.equal(line.method, 'GET')
  t.equal(line.path, '/api/v1/auth/me', 'the path is logged without its query string')
  t.equal(line.status, 401)
  t.type(line.duration_ms, 'number')
  t.notOk(
    app.logs.some((l) => l.includes('sekrit-query-value')),
    'query values never reach the log',
  )
})

t.test('a generated id is the one that is logged', async (t) => {
  const res = await app.request('GET', '/api/v1/nothing-here')
  const id = res.headers.get('x-request-id')!
  const line = logLines().find((l) => l.request_id === id)
  t.ok(line, 'the log line carries the generated id')
  t.equal(line?.status, 404)
})
