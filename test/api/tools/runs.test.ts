import t, { type Test } from 'tap'
import type { DomainEvent } from '../../../core/index.js'
import { startOpenAiStandIn } from '../../../engine/pipeline/providers/stand-ins/index.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { expectStatus, newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'
import { echoServer, loopbackOnly } from '../integrations/integration-fixtures.js'

// A library tool runs for real: from the test endpoint and from an agent whose LLM calls it, its
// HTTP request reaches a local server with the arguments, through the outbound guard (the
// operator allows loopback here, as the stand-ins listen there), within the tool's deadline.

const KEY = 'sk-library-tools-test-5150'
const TOOLS = '/api/v1/tools'
const LOOPBACK = { OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' }

function orderTool(origin: string, o: Record<string, unknown> = {}) {
  return {
    name: 'lookup_order',
    description: 'Look up an order by its number and tell whether it shipped.',
    parameters: {
      type: 'object',
      properties: { order_id: { type: 'string', description: 'The order number' }, include_items: { type: 'boolean' } },
      required: ['order_id'],
      additionalProperties: false,
    },
    runs: { type: 'http', method: 'POST', url: `${origin}/orders/{{order_id}}/status`, headers: { 'X-Caller': 'agent {{order_id}}' } },
    secret_headers: { Authorization: 'Bearer shop-token-42' },
    ...o,
  }
}

async function app(t: Test, env: Record<string, string> = LOOPBACK): Promise<{ a: TestApp; owner: Actor }> {
  const a = await startTestApp({ env })
  t.teardown(() => a.close())
  return { a, owner: await newOwner(a) }
}

t.test('the test endpoint runs the tool against a local server with the arguments filled in', async (t) => {
  const { a, owner } = await app(t)
  const shop = await echoServer(t, (_req, _body, res) => {
    res.setHeader('content-type', 'application/json')
    res.setHeader('set-cookie', 'session=abc')
    res.end(JSON.stringify({ shipped: true, carrier: 'PTT' }))
  })
  const tool = expectStatus(await a.request('POST', TOOLS, { token: owner.token, body: orderTool(shop.origin) }), 201, 'create')
  const res = await a.request('POST', `${TOOLS}/${tool.id}/test`, { token: owner.token, body: { arguments: { order_id: 'A/17 x', include_items: true } } })
  t.equal(res.status, 200, res.text)
  t.match(res.body, { ok: true, version: 1, output: { status: 200, body: { shipped: true, carrier: 'PTT' }, truncated: false } })
  t.notOk('headers' in res.body.output, 'response headers (cookies) are not passed on')
  t.equal(shop.seen.length, 1)
  const seen = shop.seen[0]!
  t.equal(seen.method, 'POST')
  t.equal(seen.url, '/orders/A%2F17%20x/status', 'the placeholder is URL-encoded into the path')
  t.equal(seen.headers['x-caller'], 'agent A/17 x')
  t.equal(seen.headers.authorization, 'Bearer shop-token-42', 'the secret header is sent')
  t.same(JSON.parse(seen.body), { order_id: 'A/17 x', include_items: true }, 'POST without a body template sends the arguments')
  t.match(seen.headers['content-type'], /application\/json/)

  const bad = await a.request('POST', `${TOOLS}/${tool.id}/test`, { token: owner.token, body: { arguments: { order_id: 17, extra: 1 } } })
  t.match(bad.body, { ok: false, output: null, error: { code: 'invalid_arguments', message: /order_id/ } })
  t.equal(shop.seen.length, 1, 'arguments that do not fit the parameters send nothing')
})

t.test('GET sends unused arguments as a query; a body template keeps argument types', async (t) => {
  const { a, owner } = await app(t)
  const shop = await echoServer(t, (_req, _body, res) => res.end('ok'))
  const get = orderTool(shop.origin, { name: 'get_order', runs: { type: 'http', method: 'GET', url: `${shop.origin}/orders/{{order_id}}` } })
  const g = expectStatus(await a.request('POST', TOOLS, { token: owner.token, body: get }), 201, 'create get')
  t.match((await a.request('POST', `${TOOLS}/${g.id}/test`, { token: owner.token, body: { arguments: { order_id: '9', include_items: false } } })).body, {
    ok: true,
    output: { status: 200, body: 'ok' },
  })
  t.equal(shop.seen[0]!.url, '/orders/9?include_items=false')
  const put = orderTool(shop.origin, {
    name: 'put_order',
    runs: { type: 'http', method: 'PUT', url: `${shop.origin}/o`, body: { id: '{{order_id}}', items: '{{include_items}}', note: 'order {{order_id}}' } },
  })
  const p = expectStatus(await a.request('POST', TOOLS, { token: owner.token, body: put }), 201, 'create put')
  expectStatus(
    await a.request('POST', `${TOOLS}/${p.id}/test`, { token: owner.token, body: { arguments: { order_id: '9', include_items: true } } }),
    200,
    'run',
  )
  t.same(JSON.parse(shop.seen[1]!.body), { id: '9', items: true, note: 'order 9' })
})

t.test('a non-2xx answer and a server that never answers are failures, the latter within timeout_ms', async (t) => {
  const { a, owner } = await app(t)
  const shop = await echoServer(t, (req, _body, res) => {
    if (req.url!.startsWith('/orders/slow')) return // never answers
    res.statusCode = 503
    res.end('down')
  })
  const tool = expectStatus(
    await a.request('POST', TOOLS, {
      token: owner.token,
      body: orderTool(shop.origin, { runs: { type: 'http', url: `${shop.origin}/orders/{{order_id}}`, timeout_ms: 300 } }),
    }),
    201,
    'create',
  )
  t.match((await a.request('POST', `${TOOLS}/${tool.id}/test`, { token: owner.token, body: { arguments: { order_id: '1' } } })).body, {
    ok: false,
    error: { code: 'http_status', message: /503/ },
  })
  const started = performance.now()
  const slow = await a.request('POST', `${TOOLS}/${tool.id}/test`, { token: owner.token, body: { arguments: { order_id: 'slow' } } })
  const took = performance.now() - started
  t.match(slow.body, { ok: false, error: { code: 'timeout' } })
  t.ok(took >= 280 && took < 3000, `answered after the 300 ms deadline (${Math.round(took)} ms)`)
  const trail = expectStatus(await a.request('GET', '/api/v1/audit?limit=20', { token: owner.token }), 200, 'audit')
  const runs = ((trail.items ?? trail) as { action: string; outcome: string; metadata: Record<string, unknown> | null }[]).filter(
    (e) => e.action === 'tool.test_run',
  )
  t.equal(runs.length, 2, 'each test run is audited')
  t.match(runs, [{ outcome: 'failure' }, { outcome: 'failure' }])
  t.notOk(JSON.stringify(runs).includes('slow'), 'never the arguments')
})

t.test('the guard refuses at run time a host that now resolves to a private address', async (t) => {
  const { attempts } = loopbackOnly(t)
  const shop = { hits: 0 }
  let lookups = 0
  // Public when the tool is saved, loopback when it runs (DNS rebinding): the run's own check refuses it.
  const a = await startTestApp({
    resolve: async () => (lookups++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]),
  })
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const tool = expectStatus(await a.request('POST', TOOLS, { token: owner.token, body: orderTool('http://shop.example.test') }), 201, 'create')
  const res = await a.request('POST', `${TOOLS}/${tool.id}/test`, { token: owner.token, body: { arguments: { order_id: '1' } } })
  t.match(res.body, { ok: false, error: { code: 'destination_refused', message: /loopback/ } })
  t.equal(shop.hits, 0)
  t.same(attempts, [], 'no connection was attempted')
})

/** An agent whose conversation node offers the tool; the stand-in LLM calls it once, then answers. */
function agentWith(toolId: string, version?: number) {
  return {
    name: 'Shop helper',
    definition: {
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'chat', type: 'conversation', data: { prompt: 'You help with orders.', tools: [{ tool_id: toolId, ...(version && { version }) }] } },
        { id: 'bye', type: 'end' },
      ],
      edges: [
        { id: 'a', source: 'start', target: 'chat' },
        { id: 'b', source: 'chat', target: 'bye', condition: { kind: 'intent', description: 'The caller is done' } },
      ],
    },
  }
}

async function llmApp(t: Test) {
  const llm = await startOpenAiStandIn({ apiKey: KEY })
  t.teardown(() => llm.close())
  const { a, owner } = await app(t, { ...LOOPBACK, OZAN_OPENAI_API_KEY: KEY, OZAN_OPENAI_BASE_URL: llm.url })
  const events: DomainEvent[] = []
  a.services.bus.subscribe((e) => void events.push(e))
  return { a, owner, llm, events }
}

t.test('an agent’s LLM sees the library tool as a function and its call reaches the server', async (t) => {
  const { a, owner, llm, events } = await llmApp(t)
  const shop = await echoServer(t, (_req, _body, res) => {
    res.setHeader('content-type', 'application/json')
    res.end('{"shipped":false}')
  })
  const tool = expectStatus(await a.request('POST', TOOLS, { token: owner.token, body: orderTool(shop.origin) }), 201, 'create tool')
  const wf = expectStatus(await a.request('POST', '/api/v1/workflows', { token: owner.token, body: agentWith(tool.id) }), 201, 'create agent')
  llm.script({ toolCalls: [{ id: 'call_1', name: 'lookup_order', arguments: { order_id: '777' } }] }, { text: 'Your order has not shipped yet.' })
  const run = await a.request('POST', `/api/v1/workflows/${wf.id}/runs/text`, { token: owner.token, body: { input: 'Where is order 777?', use_draft: true } })
  t.equal(run.status, 200, run.text)
  t.equal(run.body.reply, 'Your order has not shipped yet.')
  t.equal(shop.seen.length, 1)
  t.equal(shop.seen[0]!.url, '/orders/777/status')
  t.same(JSON.parse(shop.seen[0]!.body), { order_id: '777' })
  const offered = llm.requests[0]!.tools!.map((x) => x.function).filter((f) => f.name !== 'transition_b')
  t.same(offered, [{ name: 'lookup_order', description: orderTool('').description, parameters: orderTool('').parameters }])
  t.match(llm.requests[1]!.messages.at(-1), { role: 'tool', content: /"shipped":false/ })
  const called = events.filter((e) => e.type === 'function.called')
  t.equal(called.length, 1)
  t.match(called[0]!.data, {
    call_id: 'call_1',
    integration: 'http',
    action: 'request',
    input: { order_id: '777' },
    tool: { id: tool.id, name: 'lookup_order', version: 1 },
  })
})

t.test('a published version keeps the tool as it was; the draft uses the newest; a delete spares the published', async (t) => {
  const { a, owner, llm } = await llmApp(t)
  const shop = await echoServer(t, (_req, _body, res) => res.end('{}'))
  const tool = expectStatus(await a.request('POST', TOOLS, { token: owner.token, body: orderTool(shop.origin) }), 201, 'create tool')
  const wf = expectStatus(await a.request('POST', '/api/v1/workflows', { token: owner.token, body: agentWith(tool.id) }), 201, 'create agent')
  const published = expectStatus(await a.request('POST', `/api/v1/workflows/${wf.id}/publish`, { token: owner.token }), 200, 'publish')
  t.same(published.definition.nodes[1].data.tools, [{ tool_id: tool.id, version: 1 }], 'publishing pinned version 1')
  const draft = expectStatus(await a.request('GET', `/api/v1/workflows/${wf.id}`, { token: owner.token }), 200, 'draft')
  t.same(draft.definition.nodes[1].data.tools, [{ tool_id: tool.id }], 'the draft stays unpinned')

  const v2 = { name: 'order_status', runs: { type: 'http', method: 'POST', url: `${shop.origin}/v2/orders/{{order_id}}` } }
  expectStatus(await a.request('PATCH', `${TOOLS}/${tool.id}`, { token: owner.token, body: v2 }), 200, 'update')

  const ask = async (o: { use_draft: boolean }, name: string) => {
    llm.script({ toolCalls: [{ name, arguments: { order_id: '5' } }] }, { text: 'Done.' })
    const res = await a.request('POST', `/api/v1/workflows/${wf.id}/runs/text`, { token: owner.token, body: { input: 'Order 5?', ...o } })
    t.equal(res.status, 200, res.text)
    return llm.requests
      .at(-2)!
      .tools!.map((x) => x.function.name)
      .filter((n) => n !== 'transition_b')
  }
  t.same(await ask({ use_draft: false }, 'lookup_order'), ['lookup_order'], 'the published version offers version 1')
  t.equal(shop.seen.at(-1)!.url, '/orders/5/status')
  t.same(await ask({ use_draft: true }, 'order_status'), ['order_status'], 'the draft offers version 2')
  t.equal(shop.seen.at(-1)!.url, '/v2/orders/5')

  expectStatus(await a.request('DELETE', `${TOOLS}/${tool.id}`, { token: owner.token }), 204, 'delete')
  t.same(await ask({ use_draft: false }, 'lookup_order'), ['lookup_order'], 'the published version still runs it')
  t.equal(shop.seen.at(-1)!.url, '/orders/5/status')
  llm.script({ text: 'No tools today.' })
  const draftRun = await a.request('POST', `/api/v1/workflows/${wf.id}/runs/text`, { token: owner.token, body: { input: 'Order 5?', use_draft: true } })
  t.equal(draftRun.status, 200)
  t.same(
    llm.requests.at(-1)!.tools!.map((x) => x.function.name),
    ['transition_b'],
    'the draft no longer offers the deleted tool',
  )
  const again = await a.request('POST', `/api/v1/workflows/${wf.id}/publish`, { token: owner.token })
  t.equal(again.status, 422)
  t.match(again.body.detail, [{ type: 'unknown_tool', loc: ['draft', 'definition', 'nodes', 1, 'data', 'tools', 0, 'tool_id'] }])
})

t.test('a graph tool node runs a library tool with its rendered input, without an LLM', async (t) => {
  const { a, owner } = await app(t)
  const shop = await echoServer(t, (_req, _body, res) => {
    res.setHeader('content-type', 'application/json')
    res.end('{"eta":"tomorrow"}')
  })
  const tool = expectStatus(await a.request('POST', TOOLS, { token: owner.token, body: orderTool(shop.origin) }), 201, 'create tool')
  const body = {
    name: 'Deterministic',
    definition: {
      variables: [
        { name: 'order', type: 'string', default: 'B-2' },
        { name: 'eta', type: 'string' },
      ],
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'look', type: 'tool', data: { action: { tool_id: tool.id }, input: { order_id: '{{order}}' }, output: { eta: 'body.eta' } } },
        { id: 'ok', type: 'end', data: { message: 'It arrives {{eta}}.' } },
        { id: 'fail', type: 'end', data: { message: 'Lookup failed.' } },
      ],
      edges: [
        { id: 'a', source: 'start', target: 'look' },
        { id: 'b', source: 'look', target: 'ok', condition: { kind: 'outcome', outcome: 'success' } },
        { id: 'c', source: 'look', target: 'fail', condition: { kind: 'outcome', outcome: 'failure' } },
      ],
    },
  }
  const wf = expectStatus(await a.request('POST', '/api/v1/workflows', { token: owner.token, body }), 201, 'create agent')
  const run = await a.request('POST', `/api/v1/workflows/${wf.id}/runs/text`, { token: owner.token, body: { use_draft: true } })
  t.equal(run.status, 200, run.text)
  t.equal(run.body.output, 'It arrives tomorrow.')
  t.equal(shop.seen[0]!.url, '/orders/B-2/status')
  expectStatus(await a.request('DELETE', `${TOOLS}/${tool.id}`, { token: owner.token }), 204, 'delete')
  const after = await a.request('POST', `/api/v1/workflows/${wf.id}/runs/text`, { token: owner.token, body: { use_draft: true } })
  t.equal(after.body.output, 'Lookup failed.', 'a draft naming a deleted tool takes the failure branch')
})

t.test("an agent cannot name another organization's tool", async (t) => {
  const { a, owner } = await app(t)
  const other = await newOwner(a)
  const theirs = expectStatus(await a.request('POST', TOOLS, { token: other.token, body: orderTool('https://93.184.216.34') }), 201, 'their tool')
  const wf = expectStatus(await a.request('POST', '/api/v1/workflows', { token: owner.token, body: agentWith(theirs.id) }), 201, 'create agent')
  const res = await a.request('POST', `/api/v1/workflows/${wf.id}/publish`, { token: owner.token })
  t.equal(res.status, 422)
  t.match(res.body.detail, [{ type: 'unknown_tool' }])
  const pinned = await a.request('PUT', `/api/v1/workflows/${wf.id}/definition`, { token: owner.token, body: agentWith(theirs.id, 1).definition })
  t.equal(pinned.status, 200)
  t.equal((await a.request('POST', `/api/v1/workflows/${wf.id}/publish`, { token: owner.token })).status, 422, 'nor pinned to a version of it')
  const resolved = a.services.tools.runnerFor(owner.organizationId).resolve({ tool_id: theirs.id, version: 1 })
  t.equal(resolved, undefined, 'the runtime does not resolve it either')
})
