import t from 'tap'
import { MAX_JSON_DEPTH, boundedJson, cloneJson, jsonExcess } from '../../../engine/graph-runtime/index.js'

// The bounds on free-form JSON (issue #18): depth counts containers, size is the compact JSON's
// UTF-8 bytes, and every walk is iterative, so a value of any depth is measured and copied.

const nest = (levels: number): unknown => {
  let v: unknown = 1
  for (let i = 0; i < levels; i++) v = { a: v }
  return v
}
const roomy = { maxDepth: 1_000_000, maxBytes: 1e9 }

t.test('depth counts objects and arrays: a scalar is 0 deep, 32 levels pass and the 33rd is refused', async (t) => {
  t.equal(jsonExcess('text', { maxDepth: 0, maxBytes: 100 }), null)
  t.same(jsonExcess({}, { maxDepth: 0, maxBytes: 100 }), { kind: 'depth', maxDepth: 0, path: [] })
  t.equal(jsonExcess(nest(MAX_JSON_DEPTH), { maxDepth: MAX_JSON_DEPTH, maxBytes: 1e6 }), null)
  const excess = jsonExcess(nest(MAX_JSON_DEPTH + 1), { maxDepth: MAX_JSON_DEPTH, maxBytes: 1e6 })
  t.same(excess, { kind: 'depth', maxDepth: 32, path: Array(32).fill('a') }, 'the path leads to the container past the limit')
  t.equal(jsonExcess([[[[1]]]], { maxDepth: 4, maxBytes: 100 }), null)
  t.match(jsonExcess([[[[[]]]]], { maxDepth: 4, maxBytes: 100 }), { kind: 'depth', path: [0, 0, 0, 0] })
})

t.test('a value 1,000,000 levels deep is measured and copied without overflowing the stack', async (t) => {
  const deep = nest(1_000_000)
  t.match(jsonExcess(deep, { maxDepth: 32, maxBytes: 1e9 }), { kind: 'depth' })
  t.equal(jsonExcess(deep, roomy), null)
  const copy = cloneJson(deep) as { a: unknown }
  t.not(copy, deep)
  let levels = 0
  for (let v: unknown = copy; typeof v === 'object'; v = (v as { a: unknown }).a) levels++
  t.equal(levels, 1_000_000)
})

t.test('size is the UTF-8 length of JSON.stringify, escapes and multi-byte text included', async (t) => {
  const samples: unknown[] = [
    null,
    true,
    false,
    0,
    -1.5e-7,
    12345678901234567000,
    '',
    'plain',
    'quote " back \\ slash',
    'ctrl \u0001\n\t',
    'Ayşe ğüı',
    '😀',
    '\ud800 lone',
    [],
    {},
    [1, 'two', null],
    { a: 1, 'b "c"': [true, {}], ş: 'ü' },
    { nested: { list: [1, 2, [3, [4]]] } },
    { skip: undefined, keep: 1 },
  ]
  for (const v of samples) {
    const bytes = Buffer.byteLength(JSON.stringify(v))
    t.equal(jsonExcess(v, { maxDepth: 10, maxBytes: bytes }), null, `${JSON.stringify(v)} fits in ${bytes} bytes`)
    t.same(jsonExcess(v, { maxDepth: 10, maxBytes: bytes - 1 }), { kind: 'bytes', maxBytes: bytes - 1 }, `${JSON.stringify(v)} does not fit in ${bytes - 1}`)
  }
})

t.test('a huge value is refused early: a 100 MB string is not serialized to be measured', async (t) => {
  const huge = 'x'.repeat(100 * 1024 * 1024)
  const started = performance.now()
  t.same(jsonExcess({ huge }, { maxDepth: 32, maxBytes: 16 * 1024 }), { kind: 'bytes', maxBytes: 16 * 1024 })
  t.ok(performance.now() - started < 50, 'decided from the length alone')
  const wide = Array.from({ length: 2_000_000 }, () => 1)
  t.match(jsonExcess(wide, { maxDepth: 32, maxBytes: 1024 }), { kind: 'bytes' })
})

t.test('cloneJson copies values, drops undefined members and keeps a "__proto__" key a key', async (t) => {
  const parsed = JSON.parse('{"__proto__":{"polluted":true},"list":[1,{"x":null}],"s":"t"}') as Record<string, unknown>
  const copy = cloneJson(parsed)
  t.same(Object.keys(copy), ['__proto__', 'list', 's'])
  t.equal(Object.getPrototypeOf(copy), Object.prototype, 'the copy keeps the plain prototype')
  t.equal((copy as { polluted?: boolean }).polluted, undefined)
  t.equal(JSON.stringify(copy), JSON.stringify(parsed))
  t.not(copy.list, parsed.list)
  t.same(cloneJson({ a: undefined, b: [undefined, 1] }), { b: [undefined, 1] })
  t.equal(cloneJson('s'), 's')
})

t.test('boundedJson reports the excess as a custom issue carrying its type and ctx', async (t) => {
  const schema = boundedJson({ maxDepth: 2, maxBytes: 20 })
  t.ok(schema.safeParse({ a: [1] }).success)
  const deep = schema.safeParse({ a: [[1]] })
  t.notOk(deep.success)
  t.match(deep.error?.issues, [
    { code: 'custom', path: [], message: 'JSON may nest at most 2 levels of objects and arrays', params: { type: 'json_too_deep', ctx: { max_depth: 2 } } },
  ])
  const large = schema.safeParse('x'.repeat(30))
  t.match(large.error?.issues, [{ params: { type: 'json_too_large', ctx: { max_bytes: 20 } } }])
})
