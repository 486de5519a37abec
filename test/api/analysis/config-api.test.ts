import t from 'tap'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { ANALYSIS, BOOKING_GRAPH, W, scene } from './analysis-fixtures.js'

// An analysis block that could never run is refused when the agent is saved: 422 with the
// spec's detail[] at the offending field, nothing stored.

t.test('PUT /config: a bad analysis block is a 422 at its field, a good one is stored and read back', async (t) => {
  const s = await scene(t)
  const wf = expectStatus(await s.send('POST', W, { body: { name: 'A', definition: BOOKING_GRAPH } }), 201, 'create').id as string
  const put = (analysis: unknown) => s.send('PUT', `${W}/${wf}/config`, { body: { analysis } })

  let deep: Record<string, unknown> = { type: 'string' }
  for (let i = 0; i < 20; i++) deep = { type: 'object', properties: { x: deep } }
  const tooDeep = await put({ structured_data: { schema: deep } })
  t.equal(tooDeep.status, 422)
  t.match(tooDeep.body.detail, [{ type: 'json_too_deep', loc: ['body', 'analysis', 'structured_data', 'schema'], ctx: { max_depth: 12 } }])

  const big = {
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: 99 }, (_, i) => [`f${i}`, { type: 'string', description: 'd'.repeat(300) }])),
  }
  t.match((await put({ structured_data: { schema: big } })).body.detail, [{ type: 'json_too_large', loc: ['body', 'analysis', 'structured_data', 'schema'] }])

  const pattern = await put({ structured_data: { schema: { type: 'object', properties: { a: { type: 'string', pattern: '(a+)+$' } } } } })
  t.equal(pattern.status, 422)
  t.match(pattern.body.detail, [{ loc: ['body', 'analysis', 'structured_data', 'schema', 'properties', 'a'], msg: /pattern/ }])
  t.match((await put({})).body.detail, [{ loc: ['body', 'analysis'], msg: /at least one/ }])
  t.equal((await put({ summary: {}, success_evaluation: { criteria: 'x'.repeat(5000) } })).status, 422)

  const detail = (await s.send('GET', `${W}/${wf}`)).body
  t.notOk(detail.config.analysis, 'nothing of the refused configs was stored')

  t.equal((await put(ANALYSIS)).status, 200)
  t.match((await s.send('GET', `${W}/${wf}`)).body.config.analysis, { ...ANALYSIS, max_tokens: 1024 })
})
