import t from 'tap'
import { z } from 'zod'
import { defineRoute } from '../../../api/index.js'
import { startTestApp } from '../../helpers/app.js'

interface Entry {
  type: string
  loc: (string | number)[]
  msg: string
  input?: unknown
  ctx?: Record<string, unknown>
}
const ITEM = '3f0c2a9e-8a51-4c4e-9d0e-2b1f7f4f6a10'
const PASSWORD = 'Tr0ub4dor&3-never-echo'

const app = await startTestApp({
  extraRoutes: () => [
    defineRoute({
      operationId: 'test_items_update',
      method: 'post',
      path: '/api/v1/test/items/{item_id}',
      auth: 'P',
      tag: 'test',
      summary: 'echo',
      params: z.object({ item_id: z.uuid() }),
      query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(25), tags: z.array(z.string()).optional() }),
      headers: z.object({ 'x-client-version': z.string().regex(/^\d+\.\d+$/), 'x-api-key': z.string().min(64).optional() }),
      body: z.object({
        name: z.string().min(1),
        count: z.number().int(),
        password: z.string().min(30),
        nested: z.object({ client_secret: z.string().max(4) }).optional(),
      }),
      status: 200,
      response: z.object({ item_id: z.string(), limit: z.number(), tags: z.array(z.string()).optional(), client_version: z.string(), name: z.string() }),
      handler: ({ params, query, headers, body }) => ({
        item_id: params.item_id,
        limit: query.limit,
        tags: query.tags,
        client_version: headers['x-client-version'],
        name: body.name,
      }),
    }),
  ],
})
t.teardown(() => app.close())

const okBody = { name: 'n', count: 3, password: 'p'.repeat(30) }
const okHeaders = { 'x-client-version': '1.2' }
const detail = (res: { body: { detail: Entry[] } }) => res.body.detail
const at = (entries: Entry[], ...loc: (string | number)[]) => entries.find((e) => JSON.stringify(e.loc) === JSON.stringify(loc))

t.test('a valid request reaches the handler with coerced values', async (t) => {
  const res = await app.request('POST', `/api/v1/test/items/${ITEM}?limit=5`, { body: okBody, headers: okHeaders })
  t.equal(res.status, 200, res.text)
  t.same(res.body, { item_id: ITEM, limit: 5, client_version: '1.2', name: 'n' })
})

t.test('body problems: 422 with loc under "body"', async (t) => {
  const res = await app.request('POST', `/api/v1/test/items/${ITEM}`, { body: { ...okBody, name: '', count: 1.5 }, headers: okHeaders })
  t.equal(res.status, 422)
  t.same(Object.keys(res.body), ['detail'])
  const entries = detail(res)
  t.equal(entries.length, 2)
  t.match(at(entries, 'body', 'name'), { type: 'string_too_short', msg: String, input: '', ctx: { min_length: 1 } })
  t.match(at(entries, 'body', 'count'), { type: String, msg: String, input: 1.5 })
})

t.test('query problems: 422 with loc under "query", echoing the raw value', async (t) => {
  const res = await app.request('POST', `/api/v1/test/items/${ITEM}?limit=0`, { body: okBody, headers: okHeaders })
  t.equal(res.status, 422)
  t.match(detail(res), [{ type: 'greater_than_equal', loc: ['query', 'limit'], input: '0', ctx: { ge: 1 } }])
})

t.test('a repeated scalar query key keeps its last value; an array parameter keeps them all', async (t) => {
  const res = await app.request('POST', `/api/v1/test/items/${ITEM}?limit=5&limit=7&tags=a&tags=b`, { body: okBody, headers: okHeaders })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.limit, 7)
  t.same(res.body.tags, ['a', 'b'])
})

t.test('path problems: 422 with loc under "path"', async (t) => {
  const res = await app.request('POST', '/api/v1/test/items/not-a-uuid', { body: okBody, headers: okHeaders })
  t.equal(res.status, 422)
  t.match(detail(res), [{ type: 'uuid_parsing', loc: ['path', 'item_id'], msg: 'Input should be a valid UUID', input: 'not-a-uuid' }])
})

t.test('header problems: 422 with loc under "header"', async (t) => {
  const missing = await app.request('POST', `/api/v1/test/items/${ITEM}`, { body: okBody })
  t.equal(missing.status, 422)
  t.same(detail(missing), [{ type: 'missing', loc: ['header', 'x-client-version'], msg: 'Field required' }])
  const bad = await app.request('POST', `/api/v1/test/items/${ITEM}`, { body: okBody, headers: { 'x-client-version': 'v1' } })
  t.equal(bad.status, 422)
  t.match(detail(bad), [{ type: 'string_pattern_mismatch', loc: ['header', 'x-client-version'], input: 'v1' }])
})

t.test('problems in every part are reported together', async (t) => {
  const res = await app.request('POST', '/api/v1/test/items/nope?limit=1000', { body: { count: 'x', password: 'p'.repeat(30) } })
  t.equal(res.status, 422)
  const locs = detail(res)
    .map((e) => e.loc.join('.'))
    .sort()
  t.same(locs, ['body.count', 'body.name', 'header.x-client-version', 'path.item_id', 'query.limit'])
  t.match(at(detail(res), 'body', 'name'), { type: 'missing', msg: 'Field required' })
  t.notOk('input' in at(detail(res), 'body', 'name')!, 'a missing field has no input')
})

t.test('malformed JSON: 422 json_invalid at "body"', async (t) => {
  const res = await app.request('POST', `/api/v1/test/items/${ITEM}`, { raw: '{"name":"n",', headers: { ...okHeaders, 'content-type': 'application/json' } })
  t.equal(res.status, 422)
  const [entry, ...rest] = detail(res)
  t.same(rest, [], 'one entry')
  t.equal(entry?.type, 'json_invalid')
  t.equal(entry?.loc[0], 'body')
  t.equal(entry?.loc[1], 12, 'the character position where parsing failed')
  t.equal(entry?.msg, 'JSON decode error')
})

t.test('malformed JSON never echoes the body, even in ctx.error', async (t) => {
  for (const raw of [`{"password": ${PASSWORD}}`, PASSWORD, `{"password":"${PASSWORD}"}}x`]) {
    const res = await app.request('POST', '/api/v1/auth/login', { raw, headers: { 'content-type': 'application/json' } })
    t.equal(res.status, 422)
    t.equal(detail(res)[0]?.type, 'json_invalid')
    t.equal(detail(res)[0]?.loc[0], 'body')
    t.notOk(res.text.includes(PASSWORD.slice(2, 10)), `no slice of ${JSON.stringify(raw.slice(0, 14))}… in the reply`)
  }
})

t.test('a required body that is absent or blank: 422 missing at ["body"]', async (t) => {
  const variants = [{}, { raw: '', headers: { 'content-type': 'application/json' } }, { raw: '  \n ', headers: { 'content-type': 'application/json' } }]
  for (const o of variants) {
    const res = await app.request('POST', '/api/v1/auth/register', o)
    t.equal(res.status, 422)
    t.same(detail(res), [{ type: 'missing', loc: ['body'], msg: 'Field required' }])
  }
})

t.test('a password is never echoed in input, whatever is wrong with it', async (t) => {
  const cases: [string, unknown][] = [
    ['/api/v1/auth/register', { email: 'not-an-email', password: 'pw-Zq1', name: 'x' }],
    ['/api/v1/auth/register', { email: 'a@example.com', password: PASSWORD.repeat(10), name: 'x' }],
    ['/api/v1/auth/register', { email: 'a@example.com', password: 12345678901, name: 'x' }],
    ['/api/v1/auth/login', { email: 'a@example.com', password: PASSWORD.repeat(60) }],
    ['/api/v1/auth/reset-password', { token: 'short', password: 'pw-Xy9' }],
  ]
  for (const [path, body] of cases) {
    const res = await app.request('POST', path, { body })
    t.equal(res.status, 422, path)
    const entry = at(detail(res), 'body', 'password')
    t.ok(entry, `${path} reports the password`)
    t.notOk(entry && 'input' in entry, 'without its value')
    t.notOk(/pw-Zq1|pw-Xy9|12345678901/.test(res.text) || res.text.includes(PASSWORD), 'nowhere in the reply')
  }
  const reg = await app.request('POST', '/api/v1/auth/register', { body: cases[0]![1] })
  t.equal(at(detail(reg), 'body', 'email')?.input, 'not-an-email', 'an ordinary field is echoed, so the omission is deliberate')
})

t.test('secret-named fields elsewhere are not echoed either', async (t) => {
  const res = await app.request('POST', `/api/v1/test/items/${ITEM}`, {
    body: { ...okBody, nested: { client_secret: 'abcdefgh' } },
    headers: { ...okHeaders, 'x-api-key': 'ozk_short' },
  })
  t.equal(res.status, 422)
  t.notOk('input' in at(detail(res), 'body', 'nested', 'client_secret')!)
  t.notOk('input' in at(detail(res), 'header', 'x-api-key')!)
  t.notOk(res.text.includes('abcdefgh') || res.text.includes('ozk_short'))
})

t.test('a real route validates its query', async (t) => {
  const { access_token } = await app.register()
  const res = await app.request('POST', '/api/v1/auth/resend-verification?locale=xx', { token: access_token })
  t.equal(res.status, 422)
  t.match(detail(res), [{ type: 'enum', loc: ['query', 'locale'], input: 'xx' }])
})
