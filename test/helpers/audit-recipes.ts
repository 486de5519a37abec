import { startTranscriptionStandIn } from '../../engine/pipeline/providers/stand-ins/index.js'
import { encodeWav } from '../../engine/audio/index.js'
import { mailedToken, type Reply, type RequestOptions, type TestApp } from './app.js'
import {
  PARAM_FIXTURES,
  SMALL_GRAPH,
  addMember,
  createKey,
  createPhoneNumber,
  createTrunk,
  createWebhookEndpoint,
  createAutomation,
  createFailedRun,
  createTool,
  createTestSuite,
  createWorkflow,
  credentialSample,
  expectStatus,
  invitationToken,
  newOwner,
  uniqueEmail,
  type Actor,
} from './tenancy-fixtures.js'

export const PASSWORD = 'correct horse battery'

/** What one recipe runs against: org A, its owner, and a sender that stamps user agent and environment. */
export interface Scene {
  a: TestApp
  owner: Actor
  /** Org A's staging environment; every request names it in X-Environment-Id. */
  stagingId: string
  send(method: string, path: string, o?: RequestOptions): Promise<Reply>
}

export interface ExpectedEvent {
  action: string
  resourceType: string
  /** Checked when given (undefined: the route has no natural single resource id). */
  resourceId?: string | null
  actor: { type: 'user' | 'api_key' | 'anonymous'; id: string | null; user_id: string | null }
  /** The organization the event belongs to, and a token allowed to read its trail. */
  org: { id: string; token: string }
  environmentId: string | null
  outcome?: 'success' | 'failure'
  /** The response status, when it is not the route's success status. */
  status?: number
}

export type Recipe = (s: Scene) => Promise<{ res: Reply; expect: ExpectedEvent }>

const user = (x: Actor) => ({ type: 'user' as const, id: x.userId, user_id: x.userId })
const orgOf = (x: Actor) => ({ id: x.organizationId, token: x.token })
/** An event recorded for the owner acting in org A, in the environment the request named. */
const byOwner = (s: Scene, action: string, resourceType: string, resourceId?: string | null): ExpectedEvent => ({
  action,
  resourceType,
  resourceId,
  actor: user(s.owner),
  org: orgOf(s.owner),
  environmentId: s.stagingId,
})

/** Mutating routes that write no audit event, and why. Each one is a decision, not an omission. */
export const UNAUDITED: Record<string, string> = {
  billing_stripe_webhook:
    "Stripe's signed callback, not a request of the organization's: the payment it confirms is audited as billing.credited (test/api/billing/topup.test.ts); a forged, stale or replayed one changes nothing",
}

/** An agent in org A's staging environment, where every recipe request acts. */
const stagingWorkflow = (s: Scene) => createWorkflow(s.a, s.owner, { environment: 'staging' })

/** A workflow route run on a fresh staging agent; the event names that agent. */
const onWorkflow =
  (action: string, method: string, suffix: string, body?: unknown, prepare?: (s: Scene, id: string) => Promise<void>): Recipe =>
  async (s) => {
    const id = await stagingWorkflow(s)
    await prepare?.(s, id)
    const res = await s.send(method, `/api/v1/workflows/${id}${suffix}`, { token: s.owner.token, body })
    return { res, expect: byOwner(s, action, 'workflow', id) }
  }

const anonymous = { type: 'anonymous' as const, id: null, user_id: null }

/** A published survey agent (deterministic: it runs with no LLM) in org A's staging environment. */
async function stagingSurvey(s: Scene): Promise<string> {
  const headers = { 'x-environment-id': 'staging' }
  const created = await s.a.request('POST', '/api/v1/workflows', { token: s.owner.token, headers, body: { name: 'Audited survey', template_id: 'survey-tr' } })
  const id = expectStatus(created, 201, 'create agent').id
  expectStatus(await s.a.request('POST', `/api/v1/workflows/${id}/publish`, { token: s.owner.token, headers }), 200, 'publish workflow')
  return id
}

async function stagingChatCall(s: Scene): Promise<string> {
  const id = await stagingSurvey(s)
  const res = await s.a.request('POST', '/api/v1/calls', {
    token: s.owner.token,
    headers: { 'x-environment-id': 'staging' },
    body: { channel: 'chat', workflow_uuid: id },
  })
  return expectStatus(res, 201, 'start chat call').call_uuid
}

/** Asks one yes/no question, then ends saying nothing: a caller turn with an empty reply. */
export const SILENT_ENDING = {
  variables: [{ name: 'consent', type: 'boolean' }],
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'ask', type: 'collect', data: { variable: 'consent', value_type: 'yes_no', prompt: 'Devam edelim mi?' } },
    { id: 'done', type: 'end', data: { disposition: 'answered' } },
  ],
  edges: [
    { id: 'e_ask', source: 'start', target: 'ask' },
    { id: 'e_done', source: 'ask', target: 'done' },
  ],
}

/** One way to perform each mutating route (keyed by operationId) and the event it must write. */
export const MUTATION_RECIPES: Record<string, Recipe> = {
  auth_register: async (s) => {
    const res = await s.send('POST', '/api/v1/auth/register', { body: { email: uniqueEmail(), password: PASSWORD, name: 'New' } })
    const id = res.body.user.id
    return {
      res,
      expect: {
        action: 'user.registered',
        resourceType: 'user',
        resourceId: id,
        actor: { type: 'user', id, user_id: id },
        org: { id: res.body.user.organization.id, token: res.body.access_token },
        environmentId: null,
      },
    }
  },
  auth_login: async (s) => {
    const u = await newOwner(s.a)
    const res = await s.send('POST', '/api/v1/auth/login', { body: { email: u.email, password: PASSWORD } })
    return { res, expect: { action: 'session.login', resourceType: 'user', resourceId: u.userId, actor: user(u), org: orgOf(u), environmentId: null } }
  },
  // A rotation is routine; a refresh token presented twice is the security event.
  auth_refresh: async (s) => {
    const u = await newOwner(s.a)
    expectStatus(await s.a.request('POST', '/api/v1/auth/refresh', { body: { refresh_token: u.refreshToken } }), 200, 'refresh')
    const res = await s.send('POST', '/api/v1/auth/refresh', { body: { refresh_token: u.refreshToken } })
    const again = expectStatus(await s.a.request('POST', '/api/v1/auth/login', { body: { email: u.email, password: PASSWORD } }), 200, 'login')
    return {
      res,
      expect: {
        action: 'session.refresh_reuse',
        resourceType: 'session',
        actor: user(u),
        org: { id: u.organizationId, token: again.access_token },
        environmentId: null,
        outcome: 'failure',
        status: 401,
      },
    }
  },
  auth_logout: async (s) => {
    const second = expectStatus(await s.a.request('POST', '/api/v1/auth/login', { body: { email: s.owner.email, password: PASSWORD } }), 200, 'login')
    const res = await s.send('POST', '/api/v1/auth/logout', { token: second.access_token })
    return { res, expect: byOwner(s, 'session.logout', 'session') }
  },
  auth_verify_email: async (s) => {
    const u = await newOwner(s.a)
    const res = await s.send('POST', '/api/v1/auth/verify-email', { body: { token: mailedToken(s.a, u.email, 'verify_email') } })
    return { res, expect: { action: 'user.email_verified', resourceType: 'user', resourceId: u.userId, actor: user(u), org: orgOf(u), environmentId: null } }
  },
  auth_resend_verification: async (s) => ({
    res: await s.send('POST', '/api/v1/auth/resend-verification', { token: s.owner.token }),
    expect: byOwner(s, 'user.verification_resent', 'user'),
  }),
  // Unauthenticated, so nobody is the actor; the account that will get the mail is the resource.
  auth_forgot_password: async (s) => {
    const u = await newOwner(s.a)
    const res = await s.send('POST', '/api/v1/auth/forgot-password', { body: { email: u.email } })
    return {
      res,
      expect: { action: 'user.password_reset_requested', resourceType: 'user', resourceId: u.userId, actor: anonymous, org: orgOf(u), environmentId: null },
    }
  },
  auth_reset_password: async (s) => {
    const u = await newOwner(s.a)
    expectStatus(await s.a.request('POST', '/api/v1/auth/forgot-password', { body: { email: u.email } }), 204, 'forgot password')
    const res = await s.send('POST', '/api/v1/auth/reset-password', {
      body: { token: mailedToken(s.a, u.email, 'reset_password'), password: 'a brand new secret' },
    })
    return {
      res,
      expect: {
        action: 'user.password_reset',
        resourceType: 'user',
        resourceId: u.userId,
        actor: user(u),
        org: { id: u.organizationId, token: res.body.access_token },
        environmentId: null,
      },
    }
  },
  api_keys_create: async (s) => {
    const res = await s.send('POST', '/api/v1/api-keys', { token: s.owner.token, body: { name: 'audited' } })
    return { res, expect: byOwner(s, 'api_key.created', 'api_key', res.body.id) }
  },
  api_keys_delete: async (s) => {
    const { id } = await createKey(s.a, s.owner)
    return { res: await s.send('DELETE', `/api/v1/api-keys/${id}`, { token: s.owner.token }), expect: byOwner(s, 'api_key.deleted', 'api_key', id) }
  },
  organization_update: async (s) => ({
    res: await s.send('PATCH', '/api/v1/organization', { token: s.owner.token, body: { name: 'Renamed' } }),
    expect: byOwner(s, 'organization.updated', 'organization', s.owner.organizationId),
  }),
  // Recorded in the new organization, where the creator is owner.
  organizations_create: async (s) => {
    const res = await s.send('POST', '/api/v1/organizations', { token: s.owner.token, body: { name: 'Second' } })
    const org = { id: res.body.organization.id, token: res.body.access_token }
    return { res, expect: { action: 'organization.created', resourceType: 'organization', resourceId: org.id, actor: user(s.owner), org, environmentId: null } }
  },
  organizations_switch: async (s) => {
    const created = expectStatus(
      await s.a.request('POST', '/api/v1/organizations', { token: s.owner.token, body: { name: 'Target' } }),
      201,
      'create organization',
    )
    const target = created.organization.id
    const res = await s.send('POST', '/api/v1/organizations/switch', { token: s.owner.token, body: { organization_id: target } })
    return {
      res,
      expect: {
        action: 'organization.switched',
        resourceType: 'organization',
        resourceId: target,
        actor: user(s.owner),
        org: { id: target, token: res.body.access_token },
        environmentId: null,
      },
    }
  },
  projects_create: async (s) => {
    const res = await s.send('POST', '/api/v1/projects', { token: s.owner.token, body: { name: 'Audited project' } })
    return { res, expect: byOwner(s, 'project.created', 'project', res.body.id) }
  },
  rbac_roles_create: async (s) => {
    const res = await s.send('POST', '/api/v1/rbac/roles', { token: s.owner.token, body: { name: 'Auditors', permissions: ['audit:read'] } })
    return { res, expect: byOwner(s, 'role.created', 'role', String(res.body.id)) }
  },
  rbac_roles_update: async (s) => {
    const id = await PARAM_FIXTURES.role_id!.create(s.a, s.owner)
    return {
      res: await s.send('PATCH', `/api/v1/rbac/roles/${id}`, { token: s.owner.token, body: { description: 'changed' } }),
      expect: byOwner(s, 'role.updated', 'role', id),
    }
  },
  rbac_roles_delete: async (s) => {
    const id = await PARAM_FIXTURES.role_id!.create(s.a, s.owner)
    return { res: await s.send('DELETE', `/api/v1/rbac/roles/${id}`, { token: s.owner.token }), expect: byOwner(s, 'role.deleted', 'role', id) }
  },
  rbac_members_update: async (s) => {
    const m = await addMember(s.a, s.owner)
    return {
      res: await s.send('PATCH', `/api/v1/rbac/members/${m.userId}`, { token: s.owner.token, body: { role_id: 3 } }),
      expect: byOwner(s, 'member.role_changed', 'member', m.userId),
    }
  },
  rbac_members_remove: async (s) => {
    const m = await addMember(s.a, s.owner)
    return {
      res: await s.send('DELETE', `/api/v1/rbac/members/${m.userId}`, { token: s.owner.token }),
      expect: byOwner(s, 'member.removed', 'member', m.userId),
    }
  },
  rbac_invitations_create: async (s) => {
    const res = await s.send('POST', '/api/v1/rbac/invitations', { token: s.owner.token, body: { email: uniqueEmail('invitee'), role_id: 4 } })
    return { res, expect: byOwner(s, 'member.invited', 'invitation', res.body.id) }
  },
  rbac_invitations_revoke: async (s) => {
    const id = await PARAM_FIXTURES.invitation_id!.create(s.a, s.owner)
    return {
      res: await s.send('DELETE', `/api/v1/rbac/invitations/${id}`, { token: s.owner.token }),
      expect: byOwner(s, 'invitation.revoked', 'invitation', id),
    }
  },
  // The joining user acts from their own organization; the event belongs to the one they join.
  rbac_invitations_accept: async (s) => {
    const u = await newOwner(s.a)
    const inv = expectStatus(
      await s.a.request('POST', '/api/v1/rbac/invitations', { token: s.owner.token, body: { email: u.email, role_id: 4 } }),
      201,
      'invite',
    )
    const res = await s.send('POST', '/api/v1/rbac/invitations/accept', { token: u.token, body: { token: invitationToken(s.a, u.email) } })
    return {
      res,
      expect: { action: 'invitation.accepted', resourceType: 'invitation', resourceId: inv.id, actor: user(u), org: orgOf(s.owner), environmentId: null },
    }
  },
  // Organization-wide, named by provider; the event's resource id is the provider key.
  credentials_upsert: async (s) => {
    const res = await s.send('PUT', '/api/v1/credentials', { token: s.owner.token, body: credentialSample('openai') })
    return { res, expect: byOwner(s, 'credential.upserted', 'credential', 'openai') }
  },
  credentials_delete: async (s) => {
    const provider = await PARAM_FIXTURES.provider!.create(s.a, s.owner)
    return {
      res: await s.send('DELETE', `/api/v1/credentials/${provider}`, { token: s.owner.token }),
      expect: byOwner(s, 'credential.deleted', 'credential', provider),
    }
  },
  // The recipe app allows no private range, so the loopback target is refused by the SSRF guard:
  // the run still answers 200 and is audited, as a failure, naming the integration.
  integrations_run: async (s) => {
    const res = await s.send('POST', '/api/v1/integrations/http/run', {
      token: s.owner.token,
      body: { action: 'request', input: { url: 'http://127.0.0.1:9/' } },
    })
    return { res, expect: { ...byOwner(s, 'integration.action_run', 'integration', 'http'), outcome: 'failure' } }
  },
  tools_create: async (s) => {
    const body = { name: 'audited_tool', description: 'A tool.', runs: { type: 'http', url: 'https://93.184.216.34/hook' } }
    const res = await s.send('POST', '/api/v1/tools', { token: s.owner.token, body })
    return { res, expect: byOwner(s, 'tool.created', 'tool', res.body.id) }
  },
  tools_update: async (s) => {
    const id = await createTool(s.a, s.owner)
    const res = await s.send('PATCH', `/api/v1/tools/${id}`, { token: s.owner.token, body: { description: 'Changed.' } })
    return { res, expect: byOwner(s, 'tool.updated', 'tool', id) }
  },
  tools_delete: async (s) => {
    const id = await createTool(s.a, s.owner)
    return { res: await s.send('DELETE', `/api/v1/tools/${id}`, { token: s.owner.token }), expect: byOwner(s, 'tool.deleted', 'tool', id) }
  },
  // The recipe app allows no private range: the loopback target is refused by the guard, so the
  // run answers 200 ok false and is audited as a failure.
  tools_test: async (s) => {
    const id = await createTool(s.a, s.owner, { runs: { type: 'http', method: 'GET', url: 'https://93.184.216.34/orders/{{order_id}}' } })
    s.a.db.prepare(`UPDATE tool_versions SET runs = json_set(runs, '$.url', 'http://127.0.0.1:9/{{order_id}}') WHERE tool_id = ?`).run(id)
    const res = await s.send('POST', `/api/v1/tools/${id}/test`, { token: s.owner.token, body: { arguments: { order_id: '42' } } })
    return { res, expect: { ...byOwner(s, 'tool.test_run', 'tool', id), outcome: 'failure' } }
  },
  workflows_create: async (s) => {
    const res = await s.send('POST', '/api/v1/workflows', { token: s.owner.token, body: { name: 'Audited agent' } })
    return { res, expect: byOwner(s, 'workflow.created', 'workflow', res.body.id) }
  },
  workflows_delete: onWorkflow('workflow.deleted', 'DELETE', ''),
  // The event names the promoted agent (the path's), in the environment it was promoted from.
  workflows_promote: onWorkflow('workflow.promoted', 'POST', '/promote', { target_environment: 'prod' }),
  workflows_put_definition: onWorkflow('workflow.definition_updated', 'PUT', '/definition', SMALL_GRAPH),
  workflows_put_config: onWorkflow('workflow.config_updated', 'PUT', '/config', { recording: true }),
  workflows_publish: onWorkflow('workflow.published', 'POST', '/publish'),
  workflows_duplicate: onWorkflow('workflow.duplicated', 'POST', '/duplicate'),
  workflows_archive: onWorkflow('workflow.archived', 'POST', '/archive'),
  workflows_unarchive: onWorkflow('workflow.unarchived', 'POST', '/unarchive', undefined, async (s, id) => {
    const res = await s.a.request('POST', `/api/v1/workflows/${id}/archive`, { token: s.owner.token, headers: { 'x-environment-id': 'staging' } })
    expectStatus(res, 200, 'archive workflow')
  }),
  // Starting and running name the agent, the innermost path id (mount.ts); the new session's id
  // is not recorded (the response calls it session_id, not id).
  workflows_text_run: async (s) => {
    const id = await stagingSurvey(s)
    const res = await s.send('POST', `/api/v1/workflows/${id}/runs/text`, { token: s.owner.token, body: { input: 'evet' } })
    return { res, expect: byOwner(s, 'session.run', 'session', id) }
  },
  // The token's agent is in the body, not the path, so the event names no resource id.
  calls_web_token: async (s) => {
    const id = await stagingSurvey(s)
    // Minting checks the agent's speech-to-text (deepgram by default) has a key.
    expectStatus(
      await s.a.request('PUT', '/api/v1/credentials', { token: s.owner.token, body: credentialSample('deepgram') }),
      200,
      'store deepgram credential',
    )
    const res = await s.send('POST', '/api/v1/calls/web-token', { token: s.owner.token, body: { workflow_uuid: id } })
    return { res, expect: byOwner(s, 'call.web_token_created', 'workflow', null) }
  },
  calls_create: async (s) => {
    const id = await stagingSurvey(s)
    const res = await s.send('POST', '/api/v1/calls', { token: s.owner.token, body: { channel: 'chat', workflow_uuid: id } })
    return { res, expect: byOwner(s, 'call.created', 'call', null) }
  },
  calls_control: async (s) => {
    const call = await stagingChatCall(s)
    const res = await s.send('POST', `/api/v1/calls/${call}/control`, { token: s.owner.token, body: { action: 'end' } })
    return { res, expect: byOwner(s, 'call.controlled', 'call', call) }
  },
  calls_message: async (s) => {
    const call = await stagingChatCall(s)
    const res = await s.send('POST', `/api/v1/calls/${call}/messages`, { token: s.owner.token, body: { text: 'evet' } })
    return { res, expect: byOwner(s, 'session.message', 'call', call) }
  },
  sessions_start: async (s) => {
    const id = await stagingSurvey(s)
    return { res: await s.send('POST', `/api/v1/workflows/${id}/sessions`, { token: s.owner.token }), expect: byOwner(s, 'session.started', 'session', id) }
  },
  sessions_message: async (s) => {
    const id = await stagingSurvey(s)
    const started = await s.a.request('POST', `/api/v1/workflows/${id}/sessions`, { token: s.owner.token, headers: { 'x-environment-id': 'staging' } })
    const sid = expectStatus(started, 201, 'start session').session_id
    const res = await s.send('POST', `/api/v1/workflows/${id}/sessions/${sid}/messages`, { token: s.owner.token, body: { text: 'evet' } })
    return { res, expect: byOwner(s, 'session.message', 'session', sid) }
  },
  // A real voice turn: the transcription stand-in hears "evet"; the agent then ends without a
  // word, so no TTS runs (the trail test needs no espeak-ng).
  sessions_voice: async (s) => {
    const stt = await startTranscriptionStandIn({ apiKey: 'sk-audit-voice' })
    try {
      const headers = { 'x-environment-id': 'staging' }
      expectStatus(
        await s.a.request('PUT', '/api/v1/credentials', {
          token: s.owner.token,
          body: { provider: 'openai', fields: { api_key: 'sk-audit-voice', base_url: stt.url } },
        }),
        200,
        'store credential',
      )
      const id = expectStatus(
        await s.a.request('POST', '/api/v1/workflows', { token: s.owner.token, headers, body: { name: 'Audited voice', definition: SILENT_ENDING } }),
        201,
        'create agent',
      ).id
      expectStatus(
        await s.a.request('PUT', `/api/v1/workflows/${id}/config`, { token: s.owner.token, headers, body: { language: 'tr-TR', stt: { provider: 'openai' } } }),
        200,
        'put config',
      )
      expectStatus(await s.a.request('POST', `/api/v1/workflows/${id}/publish`, { token: s.owner.token, headers }), 200, 'publish workflow')
      const sid = expectStatus(
        await s.a.request('POST', `/api/v1/workflows/${id}/sessions`, { token: s.owner.token, headers }),
        201,
        'start session',
      ).session_id
      stt.script('evet')
      const raw = encodeWav(new Int16Array(3200), 16000)
      const res = await s.send('POST', `/api/v1/workflows/${id}/sessions/${sid}/voice`, { token: s.owner.token, raw, headers: { 'content-type': 'audio/wav' } })
      return { res, expect: byOwner(s, 'session.message', 'session', sid) }
    } finally {
      await stt.close()
    }
  },
  knowledge_base_create_document: async (s) => {
    const res = await s.send('POST', '/api/v1/knowledge-base/documents', { token: s.owner.token, body: { title: 'Audited', text: 'Audited text.' } })
    return { res, expect: byOwner(s, 'knowledge_document.created', 'knowledge_document', res.body.id) }
  },
  knowledge_base_upload_document: async (s) => {
    const boundary = 'ozan-audit-upload'
    const raw = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="audited.txt"\r\nContent-Type: text/plain\r\n\r\nAudited upload.\r\n--${boundary}--\r\n`,
    )
    const res = await s.send('POST', '/api/v1/knowledge-base/documents/upload', {
      token: s.owner.token,
      raw,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    })
    return { res, expect: byOwner(s, 'knowledge_document.uploaded', 'knowledge_document', res.body.id) }
  },
  knowledge_base_delete_document: async (s) => {
    const created = await s.a.request('POST', '/api/v1/knowledge-base/documents', {
      token: s.owner.token,
      headers: { 'x-environment-id': 'staging' },
      body: { title: 'Doomed', text: 'To be deleted.' },
    })
    const id = expectStatus(created, 201, 'create document').id
    return {
      res: await s.send('DELETE', `/api/v1/knowledge-base/documents/${id}`, { token: s.owner.token }),
      expect: byOwner(s, 'knowledge_document.deleted', 'knowledge_document', id),
    }
  },
  webhooks_create_endpoint: async (s) => {
    const res = await s.send('POST', '/api/v1/webhooks/endpoints', {
      token: s.owner.token,
      body: { url: 'https://93.184.216.34/hook', events: ['sip.trunk.down'] },
    })
    return { res, expect: byOwner(s, 'webhook_endpoint.created', 'webhook_endpoint', String(res.body.id)) }
  },
  sip_trunks_create: async (s) => {
    const res = await s.send('POST', '/api/v1/sip-trunks', { token: s.owner.token, body: { name: 'Carrier', host: '93.184.216.34', password: 'pw-123456789' } })
    return { res, expect: byOwner(s, 'sip_trunk.created', 'sip_trunk', String(res.body.id)) }
  },
  sip_trunks_update: onTrunk('sip_trunk.updated', 'PATCH', { password: 'pw-987654321' }),
  sip_trunks_delete: onTrunk('sip_trunk.deleted', 'DELETE'),
  phone_numbers_create: async (s) => {
    const trunkId = await createTrunk(s.a, s.owner, {}, STAGING)
    const res = await s.send('POST', '/api/v1/phone-numbers', { token: s.owner.token, body: { number: '+441632960100', trunk_id: trunkId } })
    return { res, expect: byOwner(s, 'phone_number.created', 'phone_number', String(res.body.id)) }
  },
  phone_numbers_update: onNumber('phone_number.updated', 'PATCH', { label: 'Sales' }),
  test_suites_create: async (s) => {
    const workflowId = await createWorkflow(s.a, s.owner, { environment: 'staging' })
    const body = { name: 'Audited suite', workflow_uuid: workflowId, cases: [{ name: 'hello', caller: { type: 'scripted', turns: ['Hello'] } }] }
    const res = await s.send('POST', '/api/v1/test-suites', { token: s.owner.token, body })
    return { res, expect: byOwner(s, 'test_suite.created', 'test_suite', String(res.body.id)) }
  },
  test_suites_update: onSuite('test_suite.updated', 'PATCH', '', { name: 'Renamed suite' }),
  test_suites_delete: onSuite('test_suite.deleted', 'DELETE', ''),
  test_suites_start_run: onSuite('test_run.started', 'POST', '/runs', {}),
  phone_numbers_delete: onNumber('phone_number.deleted', 'DELETE'),
  entitlements_flags_upsert: async (s) => {
    const res = await s.send('POST', '/api/v1/entitlements/flags', { token: s.owner.token, body: { key: 'beta_dialer', enabled: true } })
    return { res, expect: byOwner(s, 'feature_flag.set', 'feature_flag', 'beta_dialer') }
  },
  entitlements_flags_toggle: async (s) => {
    expectStatus(
      await s.a.request('POST', '/api/v1/entitlements/flags', { token: s.owner.token, body: { key: 'beta_menu', enabled: true } }),
      201,
      'set the flag to toggle',
    )
    const res = await s.send('POST', '/api/v1/entitlements/flags/beta_menu/toggle', { token: s.owner.token, body: { enabled: false } })
    return { res, expect: byOwner(s, 'feature_flag.set', 'feature_flag', 'beta_menu') }
  },
  // The audit app takes top-ups by hand (OZAN_BILLING_PAYMENTS=manual): the recipe needs no payment provider.
  billing_topup: async (s) => {
    const res = await s.send('POST', '/api/v1/billing/topup', { token: s.owner.token, body: { amount_minor: 2500 } })
    return { res, expect: byOwner(s, 'billing.topup_started', 'credit_topup', String(res.body.topup_id)) }
  },
  automations_create: async (s) => {
    const res = await s.send('POST', '/api/v1/automations', {
      token: s.owner.token,
      body: {
        name: 'Audited',
        trigger: { event: 'session.completed' },
        action: { integration: 'slack', action: 'post_message', input: { channel: '#general', text: '{{data.session_uuid}}' } },
      },
    })
    return { res, expect: byOwner(s, 'automation.created', 'automation', res.body.id) }
  },
  automations_update: onAutomation('automation.updated', 'PATCH', { enabled: false }),
  automations_delete: onAutomation('automation.deleted', 'DELETE'),
  // The organization has no Slack credential: the new attempt fails at once (credential_missing), nothing is sent.
  automations_retry_run: async (s) => {
    const id = await createAutomation(s.a, s.owner, STAGING)
    const runId = createFailedRun(s.a, id)
    const res = await s.send('POST', `/api/v1/automations/${id}/runs/${runId}/retry`, { token: s.owner.token })
    await s.a.services.automationWorker.settled()
    return { res, expect: byOwner(s, 'automation_run.retried', 'automation_run', runId) }
  },
  webhooks_update_endpoint: onEndpoint('webhook_endpoint.updated', 'PATCH', '', { enabled: false }),
  webhooks_delete_endpoint: onEndpoint('webhook_endpoint.deleted', 'DELETE', ''),
  webhooks_rotate_secret: onEndpoint('webhook_endpoint.secret_rotated', 'POST', '/rotate-secret', { overlap_seconds: 0 }),
  // The endpoint's URL is swapped for a closed loopback port: the new attempt fails on the
  // send-time SSRF check, without a packet sent.
  webhooks_redeliver: async (s) => {
    const endpointId = await createWebhookEndpoint(s.a, s.owner, { 'x-environment-id': 'staging' })
    s.a.db.prepare("UPDATE webhook_endpoints SET url = 'http://127.0.0.1:9/' WHERE id = ?").run(endpointId)
    const endpoint = s.a.services.repos.webhooks.endpointById(endpointId)!
    const id = s.a.services.repos.webhooks.insertDelivery(endpoint, 'sip.trunk.down', '{"event":"sip.trunk.down","data":{}}', Date.now())
    s.a.db.prepare("UPDATE webhook_deliveries SET status = 'failed' WHERE id = ?").run(id)
    const res = await s.send('POST', `/api/v1/webhooks/deliveries/${id}/redeliver`, { token: s.owner.token })
    await s.a.services.webhookDispatcher.idle()
    return { res, expect: byOwner(s, 'webhook_delivery.redelivered', 'webhook_delivery', String(id)) }
  },
}

/** An automation route run on a fresh staging automation; the event names that automation. */
function onAutomation(action: string, method: string, body?: unknown): Recipe {
  return async (s) => {
    const id = await createAutomation(s.a, s.owner, STAGING)
    const res = await s.send(method, `/api/v1/automations/${id}`, { token: s.owner.token, body })
    return { res, expect: byOwner(s, action, 'automation', id) }
  }
}

/** A webhook-endpoint route run on a fresh staging endpoint; the event names that endpoint. */
const STAGING = { 'x-environment-id': 'staging' }

function onTrunk(action: string, method: string, body?: unknown): Recipe {
  return async (s) => {
    const id = await createTrunk(s.a, s.owner, {}, STAGING)
    const res = await s.send(method, `/api/v1/sip-trunks/${id}`, { token: s.owner.token, body })
    return { res, expect: byOwner(s, action, 'sip_trunk', id) }
  }
}

function onSuite(action: string, method: string, suffix: string, body?: unknown): Recipe {
  return async (s) => {
    const id = await createTestSuite(s.a, s.owner, STAGING)
    const res = await s.send(method, `/api/v1/test-suites/${id}${suffix}`, { token: s.owner.token, body })
    return { res, expect: byOwner(s, action, 'test_suite', id) }
  }
}

function onNumber(action: string, method: string, body?: unknown): Recipe {
  return async (s) => {
    const id = await createPhoneNumber(s.a, s.owner, STAGING)
    const res = await s.send(method, `/api/v1/phone-numbers/${id}`, { token: s.owner.token, body })
    return { res, expect: byOwner(s, action, 'phone_number', id) }
  }
}

function onEndpoint(action: string, method: string, suffix: string, body?: unknown): Recipe {
  return async (s) => {
    const id = await createWebhookEndpoint(s.a, s.owner, { 'x-environment-id': 'staging' })
    const res = await s.send(method, `/api/v1/webhooks/endpoints/${id}${suffix}`, { token: s.owner.token, body })
    return { res, expect: byOwner(s, action, 'webhook_endpoint', String(id)) }
  }
}
