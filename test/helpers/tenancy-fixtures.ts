import { randomUUID } from 'node:crypto'
import type { Reply, TestApp } from './app.js'
import { encodeWav } from '../../engine/audio/index.js'

/** A signed-in user acting in one organization. */
export interface Actor {
  token: string
  refreshToken: string
  userId: string
  email: string
  organizationId: string
}

let seq = 0
export const uniqueEmail = (label = 'user') => `${label}-${++seq}-${randomUUID().slice(0, 8)}@example.com`

/** Registers a user; they own a fresh organization. */
export async function newOwner(a: TestApp, email = uniqueEmail('owner')): Promise<Actor> {
  const r = await a.register(email)
  return { token: r.access_token, refreshToken: r.refresh_token, userId: r.user.id, email, organizationId: r.user.organization.id }
}

/** The body of a reply that must have the given status; otherwise throws naming the request. */
export function expectStatus<T = any>(res: Reply, status: number, what: string): T {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`)
  return res.body as T
}

/** Creates an API key in the actor's organization; unscoped unless scopes are given. */
export async function createKey(a: TestApp, as: Actor, scopes?: string[]): Promise<{ id: string; key: string }> {
  const res = await a.request('POST', '/api/v1/api-keys', { token: as.token, body: { name: `key ${++seq}`, ...(scopes && { scopes }) } })
  return expectStatus(res, 201, 'create API key')
}

/** The token of the newest invitation mailed to an address. */
export function invitationToken(a: TestApp, email: string): string {
  const mail = a.services.repos.mailOutbox
    .forRecipient(email)
    .filter((m) => m.kind === 'invitation')
    .at(-1)
  const m = mail && /token=([^\s&]+)/.exec(mail.body_text)
  if (!m) throw new Error(`no invitation mail for ${email}`)
  return decodeURIComponent(m[1]!)
}

/** Invites a new user into `org` with a role (viewer by default) and lets them accept. */
export async function addMember(a: TestApp, org: Actor, roleId = 4): Promise<Actor> {
  const member = await newOwner(a, uniqueEmail('member'))
  expectStatus(await a.request('POST', '/api/v1/rbac/invitations', { token: org.token, body: { email: member.email, role_id: roleId } }), 201, 'invite')
  const token = invitationToken(a, member.email)
  expectStatus(await a.request('POST', '/api/v1/rbac/invitations/accept', { token: member.token, body: { token } }), 204, 'accept invitation')
  // The member's session is bound to their own organization; switch into the inviting one.
  const sw = await a.request('POST', '/api/v1/organizations/switch', { token: member.token, body: { organization_id: org.organizationId } })
  const session = expectStatus(sw, 200, 'switch organization')
  return { ...member, token: session.access_token, refreshToken: session.refresh_token, organizationId: org.organizationId }
}

/**
 * One entry per path-parameter name the router uses. `create` makes a real resource of that kind
 * in the actor's organization and returns its id as it goes in the path; `unknown` returns a
 * well-formed id that names nothing; `exists` tells, as the owning organization sees it, whether
 * the resource is still there (so a foreign DELETE that answers 404 but acted anyway is caught).
 * A route with a parameter missing here fails the BOLA matrix: add its entry with the route.
 */
export interface ParamFixture {
  create(a: TestApp, owner: Actor): Promise<string>
  unknown(): string
  exists(a: TestApp, owner: Actor, id: string): Promise<boolean>
}

/** A small valid agent graph: start, one line, end. */
export const SMALL_GRAPH = {
  variables: [],
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'hello', type: 'say', data: { text: 'Hello {{system.caller_number}}!' } },
    { id: 'bye', type: 'end' },
  ],
  edges: [
    { id: 'e_hello', source: 'start', target: 'hello' },
    { id: 'e_bye', source: 'hello', target: 'bye' },
  ],
}

/** Creates an agent with the default graph in the environment the request selects (default: the organization's). */
export async function createWorkflow(a: TestApp, owner: Actor, o: { name?: string; environment?: string } = {}): Promise<string> {
  const headers = o.environment ? { 'x-environment-id': o.environment } : undefined
  const res = await a.request('POST', '/api/v1/workflows', { token: owner.token, headers, body: { name: o.name ?? `Agent ${++seq}` } })
  return expectStatus(res, 201, 'create workflow').id
}

/** A webhook endpoint in the request's (default) environment; returns its integer id. */
export async function createWebhookEndpoint(a: TestApp, owner: Actor, headers?: Record<string, string>): Promise<number> {
  const body = { url: 'https://93.184.216.34/hook', events: ['sip.trunk.down'] }
  return expectStatus(await a.request('POST', '/api/v1/webhooks/endpoints', { token: owner.token, headers, body }), 201, 'create webhook endpoint').id
}

/** A SIP trunk at a public address (example.com's): nothing is dialled, it does not register. */
export async function createTrunk(a: TestApp, owner: Actor, body: Record<string, unknown> = {}, headers?: Record<string, string>): Promise<string> {
  const res = await a.request('POST', '/api/v1/sip-trunks', { token: owner.token, headers, body: { name: `Carrier ${++seq}`, host: '93.184.216.34', ...body } })
  return expectStatus(res, 201, 'create SIP trunk').id
}

/** A phone number on a fresh trunk of the same environment. */
export async function createPhoneNumber(a: TestApp, owner: Actor, headers?: Record<string, string>): Promise<string> {
  const trunkId = await createTrunk(a, owner, {}, headers)
  const number = `+9021${String(Date.now() % 1e6).padStart(6, '0')}${String(++seq % 1000).padStart(3, '0')}`
  const res = await a.request('POST', '/api/v1/phone-numbers', { token: owner.token, headers, body: { number, trunk_id: trunkId } })
  return expectStatus(res, 201, 'create phone number').id
}

/** A library tool (an HTTP tool to a public address literal: nothing is sent unless it is run). */
export async function createTool(a: TestApp, owner: Actor, body: Record<string, unknown> = {}): Promise<string> {
  const tool = {
    name: `lookup_order_${++seq}`,
    description: 'Look up an order by its number.',
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    runs: { type: 'http', method: 'GET', url: 'https://93.184.216.34/orders/{{order_id}}' },
    ...body,
  }
  return expectStatus(await a.request('POST', '/api/v1/tools', { token: owner.token, body: tool }), 201, 'create tool').id
}

/** An automation (Slack post on session.completed) in the request's (default) environment; returns its id. */
export async function createAutomation(a: TestApp, owner: Actor, headers?: Record<string, string>): Promise<string> {
  const body = {
    name: `Automation ${++seq}`,
    trigger: { event: 'session.completed' },
    action: { integration: 'slack', action: 'post_message', input: { channel: '#general', text: 'Ended: {{data.session_uuid}}' } },
  }
  return expectStatus(await a.request('POST', '/api/v1/automations', { token: owner.token, headers, body }), 201, 'create automation').id
}

/** A failed run of an automation with no attempt, written straight into the queue; returns its id. */
export function createFailedRun(a: TestApp, automationId: string): string {
  const automation = a.services.repos.automations.byId(automationId)!
  const id = randomUUID()
  const payload = JSON.stringify({ event: 'session.completed', data: { session_uuid: id } })
  a.services.repos.automationRuns.insert(
    {
      id,
      automation_id: automationId,
      organization_id: automation.organization_id,
      environment_id: automation.environment_id,
      event_type: 'session.completed',
      event_key: id,
      payload,
    },
    Date.now(),
  )
  a.db.prepare("UPDATE automation_runs SET status = 'failed', finished_at = updated_at WHERE id = ?").run(id)
  return id
}

/** The automation each `run_id` fixture's run belongs to. */
const runAutomations = new Map<string, string>()

/** A test suite of a fresh agent (its draft: a run needs nothing published) in the request's (default) environment. */
export async function createTestSuite(a: TestApp, owner: Actor, headers?: Record<string, string>): Promise<string> {
  const workflowId = await createWorkflow(a, owner, headers?.['x-environment-id'] ? { environment: headers['x-environment-id'] } : {})
  const body = {
    name: `Suite ${++seq}`,
    workflow_uuid: workflowId,
    use_draft: true,
    cases: [{ name: 'hello', caller: { type: 'scripted', turns: ['Hello'] } }],
  }
  return expectStatus(await a.request('POST', '/api/v1/test-suites', { token: owner.token, headers, body }), 201, 'create test suite').id
}

/** The suite each `test_run_id` fixture's run belongs to. */
const testRunSuites = new Map<string, string>()

/** The workflows that `version` fixtures were published on, by organization and version number. */
const versionedWorkflows = new Map<string, string[]>()

const listHas = async (a: TestApp, owner: Actor, path: string, id: string, field = 'id') => {
  const list = expectStatus<Record<string, unknown>[]>(await a.request('GET', path, { token: owner.token }), 200, `GET ${path}`)
  return list.some((x) => String(x[field]) === id)
}

/** A valid credential body per provider, with a throwaway secret. */
export const credentialSample = (provider: string) => {
  const secret = `test-secret-${randomUUID()}`
  const fields: Record<string, Record<string, string>> = {
    openai: { api_key: secret },
    deepgram: { api_key: secret },
    slack: { bot_token: secret },
    calcom: { api_key: secret },
    hubspot: { access_token: secret },
  }
  return { provider, fields: fields[provider]! }
}
const CREDENTIAL_PROVIDER_CYCLE = ['openai', 'deepgram', 'slack', 'calcom', 'hubspot']
let credentialTurn = 0

export const PARAM_FIXTURES: Record<string, ParamFixture> = {
  key_id: {
    create: async (a, owner) => (await createKey(a, owner)).id,
    unknown: randomUUID,
    exists: (a, owner, id) => listHas(a, owner, '/api/v1/api-keys', id),
  },
  role_id: {
    create: async (a, owner) => {
      const res = await a.request('POST', '/api/v1/rbac/roles', { token: owner.token, body: { name: `Role ${++seq}`, permissions: ['agents:read'] } })
      return String(expectStatus(res, 201, 'create role').id)
    },
    // Integer ids: far above any role a test creates, within the path schema's range.
    unknown: () => String(1_000_000_000 + Math.floor(Math.random() * 1_000_000)),
    exists: (a, owner, id) => listHas(a, owner, '/api/v1/rbac/roles', id),
  },
  user_id: {
    create: async (a, owner) => (await addMember(a, owner)).userId,
    unknown: randomUUID,
    exists: (a, owner, id) => listHas(a, owner, '/api/v1/rbac/members', id, 'user_id'),
  },
  project_uuid: {
    create: async (a, owner) => {
      const res = await a.request('POST', '/api/v1/projects', { token: owner.token, body: { name: `Project ${++seq}` } })
      return expectStatus(res, 201, 'create project').id
    },
    unknown: randomUUID,
    exists: (a, owner, id) => listHas(a, owner, '/api/v1/projects', id),
  },
  workflow_uuid: {
    create: (a, owner) => createWorkflow(a, owner),
    unknown: randomUUID,
    // Listed (not archived, not deleted) in the organization's default environment.
    exists: (a, owner, id) => listHas(a, owner, '/api/v1/workflows', id),
  },
  // A version number names something only under its agent, so the matrix always pairs it with a
  // workflow_uuid: its own organization's agent (never published, so another organization's
  // version 1 names nothing there) or another organization's agent (hidden whatever the version).
  version: {
    create: async (a, owner) => {
      const id = await createWorkflow(a, owner)
      const published = expectStatus(await a.request('POST', `/api/v1/workflows/${id}/publish`, { token: owner.token }), 200, 'publish workflow')
      const key = `${owner.organizationId}/${published.version}`
      versionedWorkflows.set(key, [...(versionedWorkflows.get(key) ?? []), id])
      return String(published.version)
    },
    unknown: () => '999999',
    exists: async (a, owner, version) => {
      const ids = versionedWorkflows.get(`${owner.organizationId}/${version}`) ?? []
      for (const id of ids) if ((await a.request('GET', `/api/v1/workflows/${id}/versions/${version}`, { token: owner.token })).status !== 200) return false
      return ids.length > 0
    },
  },
  // A session names something only under its agent, so the matrix pairs it with a workflow_uuid.
  // It runs a published deterministic template (no LLM needed); its opening is its one turn.
  session_uuid: {
    create: async (a, owner) => {
      const created = await a.request('POST', '/api/v1/workflows', { token: owner.token, body: { name: `Survey ${++seq}`, template_id: 'survey-tr' } })
      const id = expectStatus(created, 201, 'create agent').id
      expectStatus(await a.request('POST', `/api/v1/workflows/${id}/publish`, { token: owner.token }), 200, 'publish workflow')
      return expectStatus(await a.request('POST', `/api/v1/workflows/${id}/sessions`, { token: owner.token }), 201, 'start session').session_id
    },
    unknown: randomUUID,
    // Still listed and still at its opening, so a foreign message that answered 404 but ran is caught.
    exists: async (a, owner, id) => {
      const list = expectStatus<{ id: string; turn_count: number }[]>(
        await a.request('GET', '/api/v1/sessions?limit=200', { token: owner.token }),
        200,
        'list sessions',
      )
      return list.some((x) => x.id === id && x.turn_count === 1)
    },
  },
  // A chat call (POST /calls) of a published deterministic template; its opening is its one turn.
  call_uuid: {
    create: async (a, owner) => {
      const created = await a.request('POST', '/api/v1/workflows', { token: owner.token, body: { name: `Survey ${++seq}`, template_id: 'survey-tr' } })
      const id = expectStatus(created, 201, 'create agent').id
      expectStatus(await a.request('POST', `/api/v1/workflows/${id}/publish`, { token: owner.token }), 200, 'publish workflow')
      const body = { channel: 'chat', workflow_uuid: id }
      return expectStatus(await a.request('POST', '/api/v1/calls', { token: owner.token, body }), 201, 'start chat call').call_uuid
    },
    unknown: randomUUID,
    // Still listed, still active and at its opening: a foreign message or control that answered 404 but ran is caught.
    exists: async (a, owner, id) => {
      const page = expectStatus<{ items: { call_uuid: string; turn_count: number; status: string }[] }>(
        await a.request('GET', '/api/v1/calls?limit=100', { token: owner.token }),
        200,
        'list calls',
      )
      return page.items.some((x) => x.call_uuid === id && x.turn_count === 1 && x.status === 'active')
    },
  },
  // A credential is named by its provider, not a unique id: successive calls take successive
  // providers, so the organizations of one matrix run hold different ones.
  provider: {
    create: async (a, owner) => {
      const provider = CREDENTIAL_PROVIDER_CYCLE[credentialTurn++ % CREDENTIAL_PROVIDER_CYCLE.length]!
      const res = await a.request('PUT', '/api/v1/credentials', { token: owner.token, body: credentialSample(provider) })
      return expectStatus(res, 200, 'store credential').provider
    },
    // Well-formed (passes the path schema) but no provider of the catalog.
    unknown: () => `zz-unknown-${randomUUID().slice(0, 8)}`,
    exists: (a, owner, provider) => listHas(a, owner, '/api/v1/credentials', provider, 'provider'),
  },
  // A knowledge-base document in the organization's default environment.
  document_id: {
    create: async (a, owner) => {
      const res = await a.request('POST', '/api/v1/knowledge-base/documents', { token: owner.token, body: { title: `Doc ${++seq}`, text: 'Fixture text.' } })
      return expectStatus(res, 201, 'create document').id
    },
    unknown: randomUUID,
    exists: (a, owner, id) => listHas(a, owner, '/api/v1/knowledge-base/documents', id),
  },
  invitation_id: {
    create: async (a, owner) => {
      const res = await a.request('POST', '/api/v1/rbac/invitations', { token: owner.token, body: { email: uniqueEmail('invitee'), role_id: 4 } })
      return expectStatus(res, 201, 'create invitation').id
    },
    unknown: randomUUID,
    exists: (a, owner, id) => listHas(a, owner, '/api/v1/rbac/invitations', id),
  },
  // Webhook endpoints take an https URL at a public address literal (no DNS, nothing allowed by
  // the operator needed) and subscribe to a type nothing emits here, so no delivery is attempted.
  endpoint_id: {
    create: (a, owner) => createWebhookEndpoint(a, owner).then(String),
    unknown: () => String(1_000_000_000 + Math.floor(Math.random() * 1_000_000)),
    exists: (a, owner, id) => listHas(a, owner, '/api/v1/webhooks/endpoints', id),
  },
  trunk_id: {
    create: (a, owner) => createTrunk(a, owner),
    unknown: randomUUID,
    exists: (a, owner, id) => listHas(a, owner, '/api/v1/sip-trunks', id),
  },
  phone_number_id: {
    create: (a, owner) => createPhoneNumber(a, owner),
    unknown: randomUUID,
    exists: (a, owner, id) => listHas(a, owner, '/api/v1/phone-numbers', id),
  },
  // A failed delivery, written straight into the outbox: its endpoint points at a closed loopback
  // port, so a redelivery fails at once on the send-time SSRF check, without a packet sent.
  delivery_id: {
    create: async (a, owner) => {
      const endpointId = await createWebhookEndpoint(a, owner)
      a.db.prepare("UPDATE webhook_endpoints SET url = 'http://127.0.0.1:9/' WHERE id = ?").run(endpointId)
      const endpoint = a.services.repos.webhooks.endpointById(endpointId)!
      const id = a.services.repos.webhooks.insertDelivery(endpoint, 'sip.trunk.down', JSON.stringify({ event: 'sip.trunk.down', data: {} }), Date.now())
      a.db.prepare("UPDATE webhook_deliveries SET status = 'failed' WHERE id = ?").run(id)
      return String(id)
    },
    unknown: () => String(1_000_000_000 + Math.floor(Math.random() * 1_000_000)),
    // Still listed, and still failed: a foreign redelivery that answered 404 but queued it is caught.
    exists: async (a, owner, id) => {
      const page = expectStatus<{ items: { id: number; status: string }[] }>(
        await a.request('GET', '/api/v1/webhooks/deliveries?limit=100', { token: owner.token }),
        200,
        'list deliveries',
      )
      return page.items.some((d) => String(d.id) === id && d.status === 'failed')
    },
  },
  // Library tools belong to the organization (every environment sees them). `exists` also sees
  // the tool still at version 1, so a foreign PATCH that answered 404 but wrote a version is caught.
  tool_id: {
    create: (a, owner) => createTool(a, owner),
    unknown: randomUUID,
    exists: async (a, owner, id) => {
      const list = expectStatus<{ id: string; latest_version: number }[]>(await a.request('GET', '/api/v1/tools', { token: owner.token }), 200, 'list tools')
      return list.some((x) => x.id === id && x.latest_version === 1)
    },
  },
  // An automation of the organization's default environment (a Slack post on session.completed;
  // nothing runs it here: no such event is published).
  automation_id: {
    create: (a, owner) => createAutomation(a, owner),
    unknown: randomUUID,
    exists: async (a, owner, id) => (await a.request('GET', `/api/v1/automations/${id}`, { token: owner.token })).status === 200,
  },
  // A run names something only under its automation: a failed run written straight into the
  // queue, under an automation of its own. `exists` sees it still failed with no attempt, so a
  // foreign retry that answered 404 but queued it is caught.
  run_id: {
    create: async (a, owner) => {
      const automationId = await createAutomation(a, owner)
      const runId = createFailedRun(a, automationId)
      runAutomations.set(runId, automationId)
      return runId
    },
    unknown: randomUUID,
    exists: async (a, owner, id) => {
      const res = await a.request('GET', `/api/v1/automations/${runAutomations.get(id)}/runs/${id}`, { token: owner.token })
      return res.status === 200 && res.body.status === 'failed' && res.body.attempt_count === 0
    },
  },
  // A test suite of the default environment, never run: `exists` also sees it unrenamed and with
  // no run, so a foreign PATCH or run start that answered 404 but acted is caught.
  suite_id: {
    create: (a, owner) => createTestSuite(a, owner),
    unknown: randomUUID,
    exists: async (a, owner, id) => {
      const suite = await a.request('GET', `/api/v1/test-suites/${id}`, { token: owner.token })
      const runs = await a.request('GET', `/api/v1/test-suites/${id}/runs`, { token: owner.token })
      return suite.status === 200 && /^Suite \d+$/.test(suite.body.name) && runs.status === 200 && runs.body.length === 0
    },
  },
  // A test run names something only under its suite: a run of a suite of its own.
  test_run_id: {
    create: async (a, owner) => {
      const suiteId = await createTestSuite(a, owner)
      const run = expectStatus(await a.request('POST', `/api/v1/test-suites/${suiteId}/runs`, { token: owner.token }), 202, 'start test run')
      testRunSuites.set(run.id, suiteId)
      return run.id
    },
    unknown: randomUUID,
    exists: async (a, owner, id) => (await a.request('GET', `/api/v1/test-suites/${testRunSuites.get(id)}/runs/${id}`, { token: owner.token })).status === 200,
  },
  // Provider service types (GET /providers/{service_type}/{key}/resources) are a platform-wide
  // catalog: no organization owns one. Paired with `key` below, the matrix checks that an unknown
  // service type and an unknown provider are answered exactly like any unknown id, so the 404
  // tells nothing about which service types or providers exist.
  service_type: {
    create: async () => 'tts',
    unknown: () => `zz_unknown_${randomUUID().slice(0, 8)}`,
    exists: async (a, owner) => {
      const list = expectStatus<{ service_type: string }[]>(await a.request('GET', '/api/v1/providers', { token: owner.token }), 200, 'list providers')
      return list.some((p) => p.service_type === 'tts')
    },
  },
  // Integrations are a platform-wide catalog: no organization owns one, so no key is "another
  // organization's". The fixture stands in a key no integration has, and the matrix then checks
  // that it is answered exactly like any other unknown key (404 before input or credentials are
  // looked at, nothing that tells which keys exist). `exists`: the catalog is still listed whole.
  // The same key is also a feature flag of the organization's own (POST /entitlements/flags/{key}/
  // toggle), set on: `exists` also sees it still on, so a foreign toggle that answered 404 but flipped it is caught.
  key: {
    create: async (a, owner) => {
      const key = `zz_none_${randomUUID().slice(0, 8)}`
      const flag = await a.request('POST', '/api/v1/entitlements/flags', { token: owner.token, body: { key, enabled: true } })
      expectStatus(flag, 201, 'set feature flag')
      return key
    },
    unknown: () => `zz_unknown_${randomUUID().slice(0, 8)}`,
    exists: async (a, owner, key) => {
      const list = expectStatus<{ key: string }[]>(await a.request('GET', '/api/v1/integrations', { token: owner.token }), 200, 'list integrations')
      const flags = expectStatus<Record<string, boolean>>(await a.request('GET', '/api/v1/entitlements/flags', { token: owner.token }), 200, 'list flags')
      return ['http', 'slack', 'calcom'].every((k) => list.some((i) => i.key === k)) && flags[key] === true
    },
  },
}

/**
 * A valid request for each route that cannot be called bare, keyed by operationId (or
 * "METHOD /koa/path" for a router layer that is not a route definition). Validation runs before
 * the handler, so without a valid body (query, headers) a foreign id would be answered 422 and
 * prove nothing.
 */
export interface RequestSample {
  body?: unknown
  /** The bytes of a raw-body route (bodyEncoding 'raw'), sent as is; `headers` give its Content-Type. */
  raw?: Buffer
  query?: Record<string, string>
  headers?: Record<string, string>
}

export const REQUEST_SAMPLES: Record<string, RequestSample> = {
  rbac_roles_update: { body: { name: 'Renamed role' } },
  rbac_members_update: { body: { role_id: 4 } },
  workflows_promote: { body: { target_environment: 'prod' } },
  workflows_put_definition: { body: SMALL_GRAPH },
  workflows_put_config: { body: {} },
  workflows_text_run: { body: { input: 'hello' } },
  sessions_start: { body: {} },
  calls_web_token: { body: { workflow_uuid: '00000000-0000-4000-8000-000000000000' } },
  calls_create: { body: { channel: 'chat', workflow_uuid: '00000000-0000-4000-8000-000000000000' } },
  calls_control: { body: { action: 'end' } },
  calls_message: { body: { text: 'hi' } },
  sessions_message: { body: { text: 'hi' } },
  // 0.1 s of silence: valid audio, so only the session id decides the answer.
  sessions_voice: { raw: encodeWav(new Int16Array(1600), 16000), headers: { 'content-type': 'audio/wav' } },
  integrations_run: { body: { action: 'request', input: { url: 'http://127.0.0.1:9/' } } },
  webhooks_update_endpoint: { body: { enabled: false } },
  sip_trunks_update: { body: { name: 'Renamed trunk' } },
  phone_numbers_update: { body: { label: 'Renamed number' } },
  // Left out, enabled flips the flag: the matrix then checks the foreign flag did not flip.
  entitlements_flags_toggle: { body: {} },
  tools_update: { body: { description: 'Renamed tool.' } },
  test_suites_update: { body: { name: 'Renamed suite' } },
  automations_update: { body: { name: 'Renamed automation' } },
}
