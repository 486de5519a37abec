import t from 'tap'
import { z } from 'zod'
import { defineRoute, type AnyRoute } from '../../api/index.js'
import { buildCatalog, partsOf } from '../../mcp/index.js'

const Path = z.object({ thing_id: z.uuid() })
const Query = z.object({ limit: z.coerce.number().int().min(1).max(10).default(5), tags: z.array(z.string()).optional() })
const Body = z.object({ name: z.string().min(1), note: z.string().optional() })

const route = (over: Partial<AnyRoute>): AnyRoute =>
  defineRoute({
    operationId: 'things_update',
    method: 'put',
    path: '/api/v1/things/{thing_id}',
    auth: 'A',
    permission: 'agents:write',
    tag: 'things',
    summary: 'Replace a thing',
    params: Path,
    query: Query,
    body: Body,
    status: 200,
    response: z.object({ id: z.string() }),
    audit: { action: 'thing.updated', resource: 'thing' },
    handler: () => ({ id: 'x' }),
    ...over,
  })

t.test('a tool’s input schema is its path, query and body schemas side by side', async (t) => {
  const tool = buildCatalog([route({})], [{ operationId: 'things_update', name: 'update_thing' }]).get('update_thing')!
  const schema = tool.definition.inputSchema
  t.same(Object.keys(schema.properties).sort(), ['limit', 'name', 'note', 'tags', 'thing_id'])
  t.same(schema.required, ['thing_id', 'name'], 'path parameters and the body’s required fields')
  t.equal(schema.additionalProperties, undefined, 'a body that strips unknown fields leaves the arguments open')
  t.equal(tool.definition.description, 'Replace a thing', 'the route summary, when the table names none')
  t.same(tool.definition.annotations, { title: 'Update thing', readOnlyHint: false, destructiveHint: false, idempotentHint: true })
})

t.test('arguments split back into the parts, path and query values as a URL carries them', async (t) => {
  const tool = buildCatalog([route({})], [{ operationId: 'things_update', name: 'update_thing' }]).get('update_thing')!
  t.same(partsOf(tool, { thing_id: 'abc', limit: 3, tags: ['a', 1], name: 'N', extra: true }), {
    params: { thing_id: 'abc' },
    query: { limit: '3', tags: ['a', '1'] },
    body: { name: 'N', extra: true },
  })
  t.same(partsOf(tool, { thing_id: null }), { params: {}, query: {}, body: {} }, 'null is absent; a required body is still sent')
})

t.test('a body that is not an object, or whose fields share a parameter’s name, is the one argument body', async (t) => {
  const union = route({ body: z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]) })
  const clash = route({ operationId: 'clash', body: z.object({ thing_id: z.string() }) })
  const tools = buildCatalog(
    [union, clash],
    [
      { operationId: 'things_update', name: 'u' },
      { operationId: 'clash', name: 'c' },
    ],
  )
  for (const name of ['u', 'c']) {
    const tool = tools.get(name)!
    t.equal(tool.body, 'nested', name)
    t.ok(tool.definition.inputSchema.required?.includes('body'), name)
  }
  t.same(partsOf(tools.get('c')!, { thing_id: 'p', body: { thing_id: 'b' }, other: 1 }), {
    params: { thing_id: 'p' },
    query: { other: '1' },
    body: { thing_id: 'b' },
  })
})

t.test('an optional body left out is absent, not an empty object', async (t) => {
  const tool = buildCatalog([route({ bodyOptional: true })], [{ operationId: 'things_update', name: 'u' }]).get('u')!
  t.same(tool.definition.inputSchema.required, ['thing_id'])
  t.equal(partsOf(tool, { thing_id: 'x' }).body, undefined)
})

t.test('a table that names what no route can serve fails at start-up', async (t) => {
  const entry = { operationId: 'things_update', name: 'u' }
  t.throws(() => buildCatalog([route({})], [{ operationId: 'nope', name: 'u' }]), /names the operation nope, which no route has/)
  t.throws(() => buildCatalog([route({})], [entry, entry]), /two tools are named u/)
  t.throws(() => buildCatalog([route({})], [{ ...entry, name: 'has space' }]), /not a valid tool name/)
  t.throws(() => buildCatalog([route({ auth: 'S' })], [entry]), /dashboard session/)
  t.throws(() => buildCatalog([route({ bodyEncoding: 'multipart' })], [entry]), /multipart body/)
  t.throws(() => buildCatalog([route({ headers: z.object({ 'x-sig': z.string() }) })], [entry]), /reads request headers/)
})
