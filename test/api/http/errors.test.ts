import t, { type Test } from 'tap'
import { z } from 'zod'
import { ApiError, ERRORS, defineRoute, type ErrorCode } from '../../../api/index.js'
import { startTestApp } from '../../helpers/app.js'

const SECRET = 'hunter2-at-/var/lib/ozan/db.sqlite'
/** A public route at `/api/v1/test/<name>` whose handler throws what `fail` returns. */
const thrower = (name: string, fail: () => unknown) =>
  defineRoute({
    operationId: `test_${name}`,
    method: 'get',
    path: `/api/v1/test/${name}`,
    auth: 'P',
    tag: 'test',
    summary: name,
    status: 204,
    handler: () => {
      throw fail()
    },
  })

const app = await startTestApp({
  extraRoutes: () => [
    thrower('boom', () => new Error(`connection failed: ${SECRET}`)),
    thrower('throw-string', () => SECRET),
    thrower('not-found', () => new ApiError('not_found')),
    thrower('conflict', () => new ApiError('conflict', 'The agent is already in prod.')),
    thrower('unavailable', () => new ApiError('service_unavailable', `redis refused: ${SECRET}`)),
    thrower('limited', () => new ApiError('rate_limited', undefined, { 'Retry-After': '7' })),
    // The test app validates responses, so a handler returning the wrong shape is a server bug.
    defineRoute({
      operationId: 'test_drift',
      method: 'get',
      path: '/api/v1/test/drift',
      auth: 'P',
      tag: 'test',
      summary: 'drift',
      status: 200,
      response: z.object({ id: z.uuid() }),
      handler: () => ({ id: SECRET }),
    }),
  ],
})
t.teardown(() => app.close())

interface LogLine {
  level: number
  msg: string
  request_id?: string
  code?: string
}
const logsFor = (id: string) => app.logs.map((l) => JSON.parse(l) as LogLine).filter((l) => l.request_id === id)

function assertErrorShape(t: Test, res: { body: unknown; headers: Headers }, code: ErrorCode) {
  const body = res.body as { error: { code: string; message: string; request_id: string } }
  t.same(Object.keys(body), ['error'], 'only the error envelope')
  t.same(Object.keys(body.error).sort(), ['code', 'message', 'request_id'])
  t.equal(body.error.code, code)
  t.type(body.error.message, 'string')
  t.ok(body.error.message.length > 0)
  t.equal(body.error.request_id, res.headers.get('x-request-id'))
}

t.test('a real 401 uses the spec error shape', async (t) => {
  const res = await app.request('GET', '/api/v1/auth/me')
  t.equal(res.status, 401)
  t.match(res.headers.get('content-type'), /^application\/json/)
  assertErrorShape(t, res, 'authentication_required')
  t.equal(res.body.error.message, ERRORS.authentication_required[1])
})

t.test('a thrown ApiError maps to its status and code', async (t) => {
  const res = await app.request('GET', '/api/v1/test/not-found')
  t.equal(res.status, 404)
  assertErrorShape(t, res, 'not_found')
  t.equal(res.body.error.message, 'The resource was not found.')
})

t.test('a safe 4xx detail message is shown in English', async (t) => {
  const res = await app.request('GET', '/api/v1/test/conflict')
  t.equal(res.status, 409)
  assertErrorShape(t, res, 'conflict')
  t.equal(res.body.error.message, 'The agent is already in prod.')
})

t.test('Accept-Language picks the Turkish message', async (t) => {
  const tr = await app.request('GET', '/api/v1/test/not-found', { headers: { 'accept-language': 'tr-TR' } })
  t.equal(tr.body.error.message, 'Kaynak bulunamadı.')
  t.equal(tr.body.error.code, 'not_found', 'the code never changes with the language')
  const detailed = await app.request('GET', '/api/v1/test/conflict', { headers: { 'accept-language': 'tr' } })
  t.equal(detailed.body.error.message, ERRORS.conflict[2], 'an English-only detail gives way to the Turkish table text')
})

t.test('Accept-Language q-values decide between en and tr', async (t) => {
  const cases: [string, string][] = [
    ['en;q=0.3, tr;q=0.8', ERRORS.authentication_required[2]],
    ['tr;q=0.2, en', ERRORS.authentication_required[1]],
    ['de, tr;q=0.5', ERRORS.authentication_required[2]],
    ['tr;q=0', ERRORS.authentication_required[1]],
    ['fr', ERRORS.authentication_required[1]],
  ]
  for (const [header, message] of cases) {
    const res = await app.request('GET', '/api/v1/auth/me', { headers: { 'accept-language': header } })
    t.equal(res.body.error.message, message, header)
  }
})

t.test('every code in the table has a status and distinct en/tr messages', async (t) => {
  for (const [code, [status, en, tr]] of Object.entries(ERRORS)) {
    const e = new ApiError(code as ErrorCode)
    t.equal(e.status, status, code)
    t.ok(status >= 400 && status < 600, `${code} is an error status`)
    t.equal(e.messageFor('en'), en)
    t.equal(e.messageFor('tr'), tr)
    t.not(en, tr, `${code} is translated`)
  }
})

t.test('extra headers of an ApiError are sent (Retry-After on 429)', async (t) => {
  const res = await app.request('GET', '/api/v1/test/limited')
  t.equal(res.status, 429)
  t.equal(res.headers.get('retry-after'), '7')
  assertErrorShape(t, res, 'rate_limited')
})

t.test('an unexpected throw is a 500 internal_error that leaks nothing', async (t) => {
  for (const path of ['/api/v1/test/boom', '/api/v1/test/throw-string', '/api/v1/test/drift']) {
    for (const lang of ['en', 'tr'] as const) {
      const res = await app.request('GET', path, { headers: { 'accept-language': lang } })
      t.equal(res.status, 500, path)
      assertErrorShape(t, res, 'internal_error')
      t.equal(res.body.error.message, lang === 'en' ? ERRORS.internal_error[1] : ERRORS.internal_error[2])
      t.notOk(res.text.includes('hunter2'), 'no thrown message')
      t.notOk(/\bat .+:\d+:\d+/.test(res.text), 'no stack frames')
      t.notOk(/schema|uuid|Error/.test(res.text), 'no internal wording')
    }
  }
})

t.test('an unexpected throw is logged at error level with the request id', async (t) => {
  const res = await app.request('GET', '/api/v1/test/boom', { headers: { 'x-request-id': 'boom-log-1' } })
  t.equal(res.status, 500)
  const lines = logsFor('boom-log-1')
  const error = lines.find((l) => l.level === 50)
  t.ok(error, 'an error line carries the request id')
  t.equal(error?.msg, 'unhandled error')
  t.ok(
    app.logs.some((l) => l.includes('boom-log-1') && l.includes('connection failed')),
    'the cause is kept server-side',
  )
  t.ok(
    lines.some((l) => l.msg === 'request' && (l as { status?: number }).status === 500),
    'the request line records 500',
  )
})

t.test('a 5xx ApiError never shows its detail message, and is logged', async (t) => {
  const res = await app.request('GET', '/api/v1/test/unavailable', { headers: { 'x-request-id': 'unavail-1' } })
  t.equal(res.status, 503)
  assertErrorShape(t, res, 'service_unavailable')
  t.equal(res.body.error.message, ERRORS.service_unavailable[1])
  t.notOk(res.text.includes('hunter2'))
  const error = logsFor('unavail-1').find((l) => l.level === 50)
  t.equal(error?.code, 'service_unavailable')
})
