import { spawn } from 'node:child_process'
import path from 'node:path'
import t from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { TOOLS } from '../../mcp/index.js'
import { createKey, setup } from '../helpers/rbac.js'
import { UNKNOWN_UUID, call, strangerWithAgent, withoutRequestId } from './mcp-fixtures.js'

// `ozan mcp` as an MCP client launches it: the command in docs/mcp.md, the key in the environment.
const root = path.resolve(import.meta.dirname, '../..')
const TSX = path.join(root, 'node_modules/.bin/tsx')
const COMMAND = [path.join(root, 'bin/ozan.ts'), 'mcp']

const { a, owner } = await setup(t)
const key = await createKey(a, owner)
const { agentId: strangersAgent } = await strangerWithAgent(a)

async function connect(env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'ozan-stdio-test', version: '1.0.0' })
  const transport = new StdioClientTransport({ command: TSX, args: COMMAND, env: { PATH: process.env.PATH ?? '', ...env }, stderr: 'pipe', cwd: root })
  await client.connect(transport)
  t.teardown(() => client.close())
  return client
}

const client = await connect({ OZAN_URL: a.url, OZAN_API_KEY: key })

t.test('lists the server’s tools through the bridge', async (t) => {
  const { tools } = await client.listTools()
  t.same(tools.map((x) => x.name).sort(), TOOLS.map((x) => x.name).sort())
  t.equal(client.getServerVersion()?.name, 'ozan')
})

t.test('a write tool then a read tool, and a resource read', async (t) => {
  const made = await call(client, 'create_agent', { name: 'Made over stdio' })
  t.notOk(made.isError, JSON.stringify(made.json))
  const got = await call(client, 'get_agent', { workflow_uuid: made.json.id })
  t.equal(got.json.name, 'Made over stdio')
  const read = await client.readResource({ uri: `ozan://workflows/${made.json.id}` })
  t.equal(JSON.parse((read.contents[0] as { text: string }).text).name, 'Made over stdio')
  const rest = await a.request('GET', `/api/v1/workflows/${made.json.id}`, { apiKey: key })
  t.equal(rest.status, 200, 'it is the server’s agent')
})

t.test('a permission error, a validation error and another organization’s id, as over HTTP', async (t) => {
  const narrow = await connect({ OZAN_URL: a.url, OZAN_API_KEY: await createKey(a, owner, ['workflow:read']) })
  const denied = await call(narrow, 'delete_agent', { workflow_uuid: UNKNOWN_UUID })
  t.equal(denied.isError, true)
  t.equal(denied.json.error.code, 'permission_denied')
  const invalid = await call(client, 'create_agent', {})
  t.equal(invalid.json.status, 422)
  t.same(invalid.json.detail, [{ type: 'missing', loc: ['body', 'name'], msg: 'Field required' }])
  const theirs = await call(client, 'get_agent', { workflow_uuid: strangersAgent })
  const nobodys = await call(client, 'get_agent', { workflow_uuid: UNKNOWN_UUID })
  t.equal(theirs.json.error.code, 'not_found')
  t.equal(withoutRequestId(theirs.json), withoutRequestId(nobodys.json))
})

t.test('the environment is chosen by OZAN_ENVIRONMENT_ID, as X-Environment-Id chooses it', async (t) => {
  const staging = await connect({ OZAN_URL: a.url, OZAN_API_KEY: key, OZAN_ENVIRONMENT_ID: 'staging' })
  const made = await call(staging, 'create_agent', { name: 'Staged' })
  t.equal(made.json.environment.slug, 'staging')
  const fromDev = await call(client, 'get_agent', { workflow_uuid: made.json.id })
  t.equal(fromDev.json.error.code, 'not_found', 'the dev key session does not see it')
})

t.test('a wrong key fails the handshake with authentication_required', async (t) => {
  await t.rejects(connect({ OZAN_URL: a.url, OZAN_API_KEY: 'ozan_sk_live_wrong' }), { message: /authentication_required/ })
})

t.test('an unreachable server is an error answer, not a hang', async (t) => {
  await t.rejects(connect({ OZAN_URL: 'http://127.0.0.1:9', OZAN_API_KEY: key }), { message: /cannot reach the Ozan server/ })
})

t.test('without OZAN_API_KEY the command exits 78 and says what to set', async (t) => {
  const child = spawn(TSX, COMMAND, { cwd: root, env: { PATH: process.env.PATH ?? '' }, stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  let stdout = ''
  child.stderr.on('data', (d) => (stderr += d))
  child.stdout.on('data', (d) => (stdout += d))
  const code = await new Promise((resolve) => child.on('exit', resolve))
  t.equal(code, 78)
  t.match(stderr, /OZAN_API_KEY/)
  t.equal(stdout, '', 'nothing but the protocol ever goes to stdout')
})
