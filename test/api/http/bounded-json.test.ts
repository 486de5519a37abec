import t from 'tap'
import { z } from 'zod'
import { defineRoute } from '../../../api/index.js'
import { BODY_MAX_DEPTH, hasLoneSurrogate, scanBody } from '../../../api/http/bounded-json.js'
import { INPUT_PREVIEW_CHARS, inputPreview } from '../../../api/http/validation.js'
import { startTestApp } from '../../helpers/app.js'
import { newOwner } from '../../helpers/tenancy-fixtures.js'

// Issue #18: every JSON body is refused past BODY_MAX_DEPTH whatever its schema (a free-form field
// nobody bounded); lone UTF-16 surrogates are refused instead of being stored as U+FFFD; a 422
// echoes a bounded preview of a long input instead of the whole of it.

type Json = unknown
interface Entry {
  type: string
  loc: (string | number)[]
  msg: string
  input?: unknown
  ctx?: Record<string, unknown>
}
const Tree: z.ZodType<Json> = z.lazy(() => z.union([z.number(), z.object({ a: Tree })]))

const app = await startTestApp({
  extraRoutes: () => [
    defineRoute({
      operationId: 'test_free_form',
      method: 'post',
      path: '/api/v1/test/free-form',
      auth: 'P',
      tag: 'test',
      summary: 'unbounded free-form JSON',
      body: z.object({ name: z.string().max(50).optional(), data: z.record(z.string(), z.unknown()).optional() }),
      status: 200,
      response: z.object({ name: z.string().nullable() }),
      handler: ({ body }) => ({ name: body.name ?? null }),
    }),
    defineRoute({
      operationId: 'test_recursive',
      method: 'post',
      path: '/api/v1/test/recursive',
      auth: 'P',
      tag: 'test',
      summary: 'a schema that recurses as deep as the body',
      body: z.object({ tree: Tree }),
      status: 200,
      response: z.object({ ok: z.boolean() }),
      handler: () => ({ ok: true }),
    }),
  ],
})
t.teardown(() => app.close())
const owner = await newOwner(app)

const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels)
const raw = (path: string, body: string | Buffer, method = 'POST') =>
  app.request(method, path, { raw: body, headers: { 'content-type': 'application/json' }, token: owner.token })
const detail = (res: { body: { detail: Entry[] } }) => res.body.detail

t.test('a field no schema bounded is refused past 64 levels, at the path where it goes too deep', async (t) => {
  t.equal((await raw('/api/v1/test/free-form', `{"data":{"x":${nested(BODY_MAX_DEPTH - 2)}}}`)).status, 200, '64 levels in all are taken')
  for (const levels of [BODY_MAX_DEPTH - 1, 2_000, 150_000]) {
    const res = await raw('/api/v1/test/free-form', `{"data":{"x":${nested(levels)}}}`)
    t.equal(res.status, 422, `${levels} levels`)
    t.equal(detail(res).length, 1)
    const [entry] = detail(res)
    t.match(entry, { type: 'json_too_deep', msg: 'JSON may nest at most 64 levels of objects and arrays', ctx: { max_depth: 64 } })
    t.same(entry!.loc, ['body', 'data', 'x', ...Array(BODY_MAX_DEPTH - 2).fill('a')], 'loc leads to the 65th container')
  }
})

t.test('a schema that recurses with the body answers 422, not 500, for a body 20,000 levels deep', async (t) => {
  t.equal((await raw('/api/v1/test/recursive', `{"tree":${nested(10)}}`)).status, 200)
  const res = await raw('/api/v1/test/recursive', `{"tree":${nested(20_000)}}`)
  t.equal(res.status, 422, res.text.slice(0, 200))
  t.match(detail(res), [{ type: 'json_too_deep', loc: ['body', 'tree'] }])
})

t.test('lone high and low surrogates are refused with string_unicode at the field, keys and nested values too', async (t) => {
  const cases: [string, string][] = [
    ['\\ud800', 'high'],
    ['\\udfff', 'low'],
    ['ok\\ud83d', 'high at the end'],
    ['\\ude00ok', 'low at the start'],
    ['\\ude00\\ud83d', 'a pair in the wrong order'],
  ]
  for (const [escaped, name] of cases) {
    const res = await raw('/api/v1/test/free-form', `{"name":"${escaped}","data":{"k":["fine","${escaped}"]}}`)
    t.equal(res.status, 422, name)
    t.same(
      detail(res).map((d) => [d.type, d.loc]),
      [
        ['string_unicode', ['body', 'name']],
        ['string_unicode', ['body', 'data', 'k', 1]],
      ],
      name,
    )
    t.match(detail(res)[0], { msg: 'String should not hold an unpaired UTF-16 surrogate' })
  }
  const key = await raw('/api/v1/test/free-form', '{"data":{"\\udc00":1}}')
  t.match(detail(key), [{ type: 'string_unicode', loc: ['body', 'data', '\udc00'] }], 'a key is reported at its own path')
})

t.test('a surrogate pair (an emoji) is taken, escaped or raw', async (t) => {
  for (const body of ['{"name":"\\ud83d\\ude00 hi"}', '{"name":"😀 hi"}']) {
    const res = await raw('/api/v1/test/free-form', body)
    t.equal(res.status, 200, body)
    t.equal(res.body.name, '😀 hi')
  }
})

t.test('bytes that are not UTF-8 are refused as json_invalid at their byte offset, not read as U+FFFD', async (t) => {
  const prefix = Buffer.from('{"name":"ab')
  // An encoded surrogate (ED A0 80, CESU-8) and a lone continuation byte are both not UTF-8.
  for (const bad of [Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0x80]), Buffer.from([0xff])]) {
    const res = await raw('/api/v1/test/free-form', Buffer.concat([prefix, bad, Buffer.from('"}')]))
    t.equal(res.status, 422)
    t.same(detail(res), [
      { type: 'json_invalid', loc: ['body', prefix.length], msg: 'JSON decode error', input: {}, ctx: { error: `Invalid UTF-8 at byte ${prefix.length}` } },
    ])
  }
  const replacement = Buffer.from('{"name":"\ufffd real"}')
  t.equal((await raw('/api/v1/test/free-form', replacement)).status, 200, 'a U+FFFD the sender wrote is text like any other')
  const afterReal = await raw('/api/v1/test/free-form', Buffer.concat([Buffer.from('{"name":"\ufffd'), Buffer.from([0xc3]), Buffer.from('"}')]))
  t.same(detail(afterReal)[0]!.loc, ['body', 12], 'the offset skips a real U+FFFD before the bad byte')
})

t.test('a 422 echoes at most a bounded preview of a long string', async (t) => {
  const name = 'n'.repeat(900 * 1024)
  const res = await raw('/api/v1/test/free-form', JSON.stringify({ name }))
  t.equal(res.status, 422)
  const [entry] = detail(res)
  t.match(entry, { type: 'string_too_long', loc: ['body', 'name'] })
  t.equal(entry!.input, `${'n'.repeat(INPUT_PREVIEW_CHARS)}…[truncated, ${name.length} characters]`)
  t.ok(res.text.length < 2000, `the whole reply is ${res.text.length} bytes`)
})

t.test('inputPreview keeps short strings and other values, and never splits a surrogate pair', async (t) => {
  t.equal(inputPreview('short'), 'short')
  t.equal(inputPreview(42), 42)
  t.equal(inputPreview('x'.repeat(INPUT_PREVIEW_CHARS)), 'x'.repeat(INPUT_PREVIEW_CHARS), 'exactly the bound is kept whole')
  const emojis = 'x' + '😀'.repeat(INPUT_PREVIEW_CHARS)
  const cut = inputPreview(emojis) as string
  t.notOk(hasLoneSurrogate(cut), 'no half emoji at the cut')
  t.ok(cut.startsWith('x😀'))
})

t.test('scanBody walks a million-element array without recursing and reports at most 10 strings', async (t) => {
  const wide = Array.from({ length: 1_000_000 }, (_, i) => (i % 2 ? '\ud800' : i))
  const scan = scanBody(wide)
  t.equal(scan.tooDeepAt, null)
  t.equal(scan.loneSurrogates.length, 10)
  t.same(scan.loneSurrogates[0]!.path, [1])
  t.same(scan.loneSurrogates[9]!.path, [19], 'in document order')
})
