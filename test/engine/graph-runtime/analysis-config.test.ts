import t from 'tap'
import { AgentConfig, ANALYSIS_SCHEMA_BOUNDS, compileAnalysisSchema, isStrictSchema } from '../../../engine/graph-runtime/index.js'

// The agent config's `analysis` block: optional, checked at save time. Its structured-data schema
// is the organization's JSON Schema: bounded in size and depth, a subset OpenAI's structured
// outputs take, and compiled once here so a schema that could never validate is refused now.

const issues = (analysis: unknown) => {
  const r = AgentConfig.safeParse({ analysis })
  return r.success ? [] : r.error.issues.map((i) => ({ path: i.path, message: i.message, params: (i as { params?: unknown }).params }))
}
const schemaIssues = (schema: unknown) => issues({ structured_data: { schema } })
const obj = (properties: Record<string, unknown>) => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false })

t.test('absent by default; a full block takes its defaults', async (t) => {
  t.equal(AgentConfig.parse({}).analysis, undefined)
  const c = AgentConfig.parse({
    analysis: { summary: {}, success_evaluation: { criteria: 'Booked.' }, structured_data: { schema: obj({ a: { type: 'string' } }) } },
  })
  t.same(c.analysis!.summary, { enabled: true })
  t.same(c.analysis!.success_evaluation, { criteria: 'Booked.', rubric: 'pass_fail' })
  t.equal(c.analysis!.max_tokens, 1024)
})

t.test('a block asking for nothing is refused', async (t) => {
  t.match(issues({}), [{ path: ['analysis'], message: /at least one of summary, success_evaluation and structured_data/ }])
})

t.test('criteria and prompts are bounded; the rubric is pass_fail or score_1_5', async (t) => {
  t.match(issues({ success_evaluation: { criteria: '' } }), [{ path: ['analysis', 'success_evaluation', 'criteria'] }])
  t.match(issues({ success_evaluation: { criteria: 'x'.repeat(4001) } }), [{ path: ['analysis', 'success_evaluation', 'criteria'] }])
  t.match(issues({ success_evaluation: { criteria: 'ok', rubric: 'stars' } }), [{ path: ['analysis', 'success_evaluation', 'rubric'] }])
  t.match(issues({ summary: { prompt: 'x'.repeat(4001) } }), [{ path: ['analysis', 'summary', 'prompt'] }])
  t.match(issues({ summary: {}, max_tokens: 100_000 }), [{ path: ['analysis', 'max_tokens'] }])
})

t.test('a schema nested deeper than the bound is json_too_deep, larger than it json_too_large', async (t) => {
  let deep: Record<string, unknown> = { type: 'string' }
  for (let i = 0; i < 10; i++) deep = obj({ x: deep })
  t.match(schemaIssues(deep), [{ path: ['analysis', 'structured_data', 'schema'], params: { type: 'json_too_deep' } }])
  const wide = obj(Object.fromEntries(Array.from({ length: 90 }, (_, i) => [`field_${i}`, { type: 'string', description: 'd'.repeat(200) }])))
  t.ok(Buffer.byteLength(JSON.stringify(wide)) > ANALYSIS_SCHEMA_BOUNDS.maxBytes)
  t.match(schemaIssues(wide), [{ params: { type: 'json_too_large', ctx: { max_bytes: ANALYSIS_SCHEMA_BOUNDS.maxBytes } } }])
  // 50,000 levels: refused by the bounds walk (iterative), never by a stack overflow.
  let abyss: unknown = {}
  for (let i = 0; i < 50_000; i++) abyss = { items: abyss }
  t.match(schemaIssues(abyss), [{ params: { type: 'json_too_deep' } }])
})

t.test('keywords outside the subset are refused by name: pattern, $ref, if', async (t) => {
  t.match(schemaIssues(obj({ a: { type: 'string', pattern: '^(a+)+$' } })), [{ message: /Unrecognized key.*\(pattern\)/ }])
  t.match(schemaIssues({ ...obj({ a: { $ref: '#/$defs/x' } }), $defs: {} }), [{ message: /\$defs|\$ref/ }])
  t.match(schemaIssues({ ...obj({}), if: {} }), [{ message: /\(if\)/ }])
  t.match(schemaIssues(obj({ a: { type: 'date' } })), [{ path: ['analysis', 'structured_data', 'schema', 'properties', 'a', 'type'] }])
  t.match(schemaIssues(obj({ 'bad name!': { type: 'string' } })), [{ message: /property names/ }])
})

t.test('the root must be an object', async (t) => {
  t.match(schemaIssues({ type: 'array', items: { type: 'string' } }), [{ path: ['analysis', 'structured_data', 'schema', 'type'], message: /root/ }])
})

t.test('a schema of the subset compiles to a validator that checks answers', async (t) => {
  const schema = obj({
    date: { type: 'string', format: 'date' },
    party: { type: 'integer', minimum: 1, maximum: 12 },
    tags: { type: 'array', items: { type: 'string', enum: ['vip', 'new'] }, maxItems: 2 },
    note: { type: ['string', 'null'] },
  })
  t.same(schemaIssues(schema), [])
  const compiled = compileAnalysisSchema(schema)
  if (!compiled.ok) throw new Error(compiled.message)
  t.ok(compiled.validator.safeParse({ date: '2026-11-25', party: 2, tags: ['vip'], note: null }).success)
  t.notOk(compiled.validator.safeParse({ date: '25 Nov', party: 2, tags: [], note: null }).success, 'a bad date')
  t.notOk(compiled.validator.safeParse({ date: '2026-11-25', party: 0, tags: [], note: null }).success, 'below the minimum')
  t.notOk(compiled.validator.safeParse({ date: '2026-11-25', party: 2, tags: ['gold'], note: null }).success, 'outside the enum')
  t.notOk(compiled.validator.safeParse({ date: '2026-11-25', party: 2, tags: [], note: null, extra: 1 }).success, 'a closed object')
})

t.test('strict mode is possible only when every object is closed with every property required', async (t) => {
  t.ok(isStrictSchema(obj({ a: { type: 'string' }, b: obj({ c: { type: 'number' } }) })))
  t.notOk(isStrictSchema({ type: 'object', properties: { a: { type: 'string' } }, required: [], additionalProperties: false }))
  t.notOk(isStrictSchema(obj({ list: { type: 'array', items: { type: 'object', properties: { x: { type: 'string' } } } } })))
  t.notOk(isStrictSchema(obj({ a: { type: 'string', maxLength: 10 } })), 'string lengths are not in strict mode')
  t.notOk(isStrictSchema(obj({ a: { type: 'string', format: 'uri' } })), 'nor the uri format')
  t.ok(isStrictSchema(obj({ a: { type: 'string', format: 'date' } })))
})
