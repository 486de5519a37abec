import t from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { TOOLS } from '../../mcp/index.js'
import { SILENT_ENDING } from '../helpers/audit-recipes.js'
import { startTestApp } from '../helpers/app.js'
import { auditOf, createKey, setup } from '../helpers/rbac.js'
import { UNKNOWN_UUID, call, strangerWithAgent, withoutRequestId } from './mcp-fixtures.js'

const { a, owner } = await setup(t)
const key = await createKey(a, owner)
const { agentId: strangersAgent } = await strangerWithAgent(a)

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'ozan-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), { requestInit: { headers } }))
  t.teardown(() => client.close())
  return client
}

const client = await connect({ 'X-API-Key': key })

t.test('lists every tool of the table, each with an object input schema built from its route', async (t) => {
  const { tools } = await client.listTools()
  t.same(tools.map((x) => x.name).sort(), TOOLS.map((x) => x.name).sort())
  const create = tools.find((x) => x.name === 'create_agent')!
  t.equal(create.inputSchema.type, 'object')
  t.ok(create.inputSchema.properties?.name, 'the body field name is an argument')
  t.same(create.inputSchema.required, ['name'])
  t.equal(create.annotations?.readOnlyHint, false)
  const get = tools.find((x) => x.name === 'get_agent')!
  t.same(get.inputSchema.required, ['workflow_uuid'], 'the path parameter is a required argument')
  t.equal(get.annotations?.readOnlyHint, true)
  const control = tools.find((x) => x.name === 'control_call')!
  t.same(control.inputSchema.required, ['call_uuid', 'body'], 'a union body is one argument, body')
})

t.test('a write tool creates an agent that a read tool, REST and the audit trail all see', async (t) => {
  const created = await call(client, 'create_agent', { name: 'Made over MCP', description: 'hi' })
  t.notOk(created.isError, JSON.stringify(created.json))
  const id = created.json.id as string
  t.match(id, /^[0-9a-f-]{36}$/)
  t.same(created.structuredContent, created.json, 'an object result is also structured content')

  const got = await call(client, 'get_agent', { workflow_uuid: id })
  t.notOk(got.isError)
  t.equal(got.json.name, 'Made over MCP')
  const rest = await a.request('GET', `/api/v1/workflows/${id}`, { apiKey: key })
  t.same(got.json, rest.body, 'the tool answers what REST answers')

  const events = await auditOf(a, owner, 'workflow.created')
  const event = events.find((e) => e.resource_id === id)
  t.ok(event, 'the creation is audited like a REST one')
  t.equal(event?.actor.type, 'api_key', 'by the key')
  t.equal(event?.actor.user_id, owner.userId, "on its creator's behalf")
  t.match(event?.request_id, /^[0-9a-f-]{36}$/, 'with the request id of the MCP request')

  await call(client, 'create_agent', { name: 'Another' })
  const listed = await call(client, 'list_agents', { limit: 1 })
  t.equal(listed.json.length, 1, 'a numeric query argument is read as REST reads ?limit=1')
  const headers = listed.content[1]
  t.match(headers?.type === 'text' ? headers.text : '', /X-Total-Count: 2\nLink: <\/api\/v1\/workflows\?limit=1&offset=1>; rel="next"/)
})

t.test('a tool call the key may not make is a tool error carrying permission_denied, as over REST', async (t) => {
  const readOnly = await connect({ 'X-API-Key': await createKey(a, owner, ['workflow:read']) })
  const denied = await call(readOnly, 'create_agent', { name: 'Nope' })
  t.equal(denied.isError, true)
  t.equal(denied.json.status, 403)
  t.equal(denied.json.error.code, 'permission_denied')
  t.equal(denied.json.error.message, 'This needs the permission agents:write.')
  t.same(denied.structuredContent, denied.json)
  const allowed = await call(readOnly, 'list_agents')
  t.notOk(allowed.isError, 'a read the scope grants works')
})

t.test('arguments the route schemas refuse are a tool error with the detail[] REST gives', async (t) => {
  const bad = await call(client, 'create_agent', { name: '', description: 42 })
  t.equal(bad.isError, true)
  t.equal(bad.json.status, 422)
  const rest = await a.request('POST', '/api/v1/workflows', { apiKey: key, body: { name: '', description: 42 } })
  t.equal(rest.status, 422)
  t.same(bad.json.detail, rest.body.detail)
  t.same(
    bad.json.detail.map((d: { loc: unknown[] }) => d.loc),
    [
      ['body', 'name'],
      ['body', 'description'],
    ],
  )
  const badId = await call(client, 'get_agent', { workflow_uuid: 'not-a-uuid' })
  t.equal(badId.json.status, 422)
  t.same(badId.json.detail[0].loc, ['path', 'workflow_uuid'])
  const missing = await call(client, 'get_agent', {})
  t.same(
    missing.json.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]),
    [['missing', ['path', 'workflow_uuid']]],
  )
})

t.test("another organization's agent is not_found, identical to an unknown one", async (t) => {
  const theirs = await call(client, 'get_agent', { workflow_uuid: strangersAgent })
  const nobodys = await call(client, 'get_agent', { workflow_uuid: UNKNOWN_UUID })
  t.equal(theirs.isError, true)
  t.equal(theirs.json.error.code, 'not_found')
  t.equal(withoutRequestId(theirs.json), withoutRequestId(nobodys.json))
  const deleting = await call(client, 'delete_agent', { workflow_uuid: strangersAgent })
  t.equal(deleting.json.error.code, 'not_found')
  const still = await a.request('GET', `/api/v1/workflows/${strangersAgent}`, { apiKey: (await strangerWithAgent(a)).key })
  t.equal(still.status, 404, 'and it is not theirs to reach either way')
  await t.rejects(client.readResource({ uri: `ozan://workflows/${strangersAgent}` }), {
    code: -32002,
    message: /^MCP error -32002: not_found: The resource was not found\.$/,
  })
  await t.rejects(client.readResource({ uri: `ozan://workflows/${UNKNOWN_UUID}` }), {
    code: -32002,
    message: /^MCP error -32002: not_found: The resource was not found\.$/,
  })
})

t.test('agents are resources: listed for the key’s environment and read as their JSON', async (t) => {
  const made = await call(client, 'create_agent', { name: 'A resource' })
  const { resources } = await client.listResources()
  const uri = `ozan://workflows/${made.json.id}`
  t.ok(
    resources.some((r) => r.uri === uri && r.name === 'A resource'),
    'the new agent is listed',
  )
  t.notOk(
    resources.some((r) => r.uri.endsWith(strangersAgent)),
    "another organization's agent is not",
  )
  const { resourceTemplates } = await client.listResourceTemplates()
  t.same(
    resourceTemplates.map((r) => r.uriTemplate),
    ['ozan://workflows/{workflow_uuid}'],
  )
  const read = await client.readResource({ uri })
  const content = read.contents[0] as { uri: string; mimeType: string; text: string }
  t.equal(content.mimeType, 'application/json')
  const agent = JSON.parse(content.text)
  t.equal(agent.id, made.json.id)
  t.ok(agent.definition ?? agent.draft, 'the definition is in it')
  await t.rejects(client.readResource({ uri: 'ozan://elsewhere/1' }), { code: -32002 })
})

t.test('runs and calls: a published agent answers a chat call, controlled by tools', async (t) => {
  const made = await call(client, 'create_agent', { name: 'Chat', definition: SILENT_ENDING })
  const id = made.json.id as string
  t.notOk((await call(client, 'publish_agent', { workflow_uuid: id })).isError)
  const started = await call(client, 'start_call', { channel: 'chat', workflow_uuid: id })
  t.notOk(started.isError, JSON.stringify(started.json))
  t.same(started.json.messages, ['Devam edelim mi?'])
  const answered = await call(client, 'send_call_message', { call_uuid: started.json.call_uuid, text: 'evet' })
  t.equal(answered.json.ended, true)
  t.same(answered.json.variables, { consent: true })
  const fetched = await call(client, 'get_call', { call_uuid: started.json.call_uuid })
  t.equal(fetched.json.call_uuid ?? fetched.json.id, started.json.call_uuid)
  const run = await call(client, 'run_agent_text', { workflow_uuid: id, input: 'hayır' })
  t.notOk(run.isError, JSON.stringify(run.json))

  // control_call's body is a union: it is the one argument `body`, validated as REST validates it.
  const live = await call(client, 'start_call', { channel: 'chat', workflow_uuid: id })
  const wrong = await call(client, 'control_call', { call_uuid: live.json.call_uuid, body: { action: 'dance' } })
  t.equal(wrong.json.status, 422)
  t.equal(wrong.json.detail[0].loc[0], 'body')
  const ended = await call(client, 'control_call', { call_uuid: live.json.call_uuid, body: { action: 'end', immediately: true } })
  t.notOk(ended.isError, JSON.stringify(ended.json))
  const calls = await call(client, 'list_calls', {})
  t.ok(JSON.stringify(calls.json).includes(live.json.call_uuid), 'list_calls lists it')
})

t.test('localization helpers take typed arguments for their query parameters', async (t) => {
  const spelled = await call(client, 'spell_number', { value: 1250, locale: 'tr' })
  t.notOk(spelled.isError, JSON.stringify(spelled.json))
  t.match(JSON.stringify(spelled.json), /bin iki yüz elli/)
})

t.test('an unknown tool is a protocol error, not a tool result', async (t) => {
  await t.rejects(client.callTool({ name: 'format_disk', arguments: {} }), { code: -32602 })
})

t.test('the endpoint admits a request by X-API-Key only, answering 401 with the API error otherwise', async (t) => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  }
  const headers = { accept: 'application/json, text/event-stream' }
  const none = await a.request('POST', '/mcp', { body: initialize, headers })
  t.equal(none.status, 401)
  t.equal(none.body.error.code, 'authentication_required')
  const wrong = await a.request('POST', '/mcp', { body: initialize, headers, apiKey: 'ozan_sk_live_nope' })
  t.equal(wrong.status, 401)
  const bearer = await a.request('POST', '/mcp', { body: initialize, headers, token: owner.token })
  t.equal(bearer.status, 401, 'a dashboard session is not an API key')
  await t.rejects(connect({}), { code: 401, message: /authentication_required/ }, 'the SDK client cannot connect without a key')
  const ok = await a.request('POST', '/mcp', { body: initialize, headers, apiKey: key })
  t.equal(ok.status, 200)
  t.equal(ok.body.result.serverInfo.name, 'ozan')
})

t.test('transport refusals: GET, batches, a body over the limit, a body that is not JSON', async (t) => {
  const get = await a.request('GET', '/mcp', { apiKey: key })
  t.equal(get.status, 405)
  t.equal(get.headers.get('allow'), 'POST')
  const headers = { accept: 'application/json, text/event-stream' }
  const batch = await a.request('POST', '/mcp', { apiKey: key, headers, body: [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }] })
  t.equal(batch.status, 400)
  t.equal(batch.body.error.code, -32600)
  const huge = await a.request('POST', '/mcp', {
    apiKey: key,
    headers,
    body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_agent', arguments: { name: 'x'.repeat(1100 * 1024) } } },
  })
  t.equal(huge.status, 413)
  const garbage = await a.request('POST', '/mcp', { apiKey: key, headers: { ...headers, 'content-type': 'application/json' }, raw: '{"jsonrpc":' })
  t.equal(garbage.status, 400)
  t.equal(garbage.body.error.code, -32700)
  const text = await a.request('POST', '/mcp', { apiKey: key, headers: { ...headers, 'content-type': 'text/plain' }, raw: 'hello' })
  t.equal(text.status, 415)
})

t.test('each MCP request takes a token from the key’s bucket, as a REST request does', async (t) => {
  const small = await startTestApp({ env: { OZAN_RATE_LIMIT_KEY_BURST: '3', OZAN_RATE_LIMIT_KEY_PER_MIN: '1' } })
  t.teardown(() => small.close())
  const them = await small.register()
  const res = await small.request('POST', '/api/v1/api-keys', { token: them.access_token, body: { name: 'k' } })
  const headers = { accept: 'application/json, text/event-stream' }
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' }
  const statuses: number[] = []
  for (let i = 0; i < 4; i++) statuses.push((await small.request('POST', '/mcp', { apiKey: res.body.key, headers, body: list })).status)
  t.same(statuses, [200, 200, 200, 429])
  const last = await small.request('POST', '/mcp', { apiKey: res.body.key, headers, body: list })
  t.equal(last.body.error.code, 'rate_limited')
  t.ok(last.headers.get('retry-after'))
})
