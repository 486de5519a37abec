import t from 'tap'
import { startSlackStandIn } from '../../../api/integrations/stand-ins/index.js'
import type { TestApp } from '../../helpers/app.js'
import { addMember, createKey } from '../../helpers/tenancy-fixtures.js'
import { RUN, integrationApp, storeCredential } from './integration-fixtures.js'

// Listing is integrations:read (org:read); running is integrations:write (org:manage), because an
// action acts on the outside world with the organization's credentials.

const TOKEN = 'xoxb-access-0123456789'
const ROLE = { admin: 2, developer: 3, viewer: 4 } as const
type Auth = { token: string } | { apiKey: string }

const message = { action: 'post_message', input: { channel: '#general', text: 'access check' } }
const list = (a: TestApp, auth: Auth) => a.request('GET', '/api/v1/integrations', auth)
const runAs = (a: TestApp, auth: Auth) => a.request('POST', RUN('slack'), { ...auth, body: message })

t.test('who may list and who may run', async (t) => {
  const slack = await startSlackStandIn({ botToken: TOKEN })
  t.teardown(() => slack.close())
  const { a, owner } = await integrationApp(t, { allowLoopback: true })
  await storeCredential(a, owner, 'slack', { bot_token: TOKEN, base_url: slack.url })

  for (const role of ['viewer', 'developer'] as const) {
    const m = await addMember(a, owner, ROLE[role])
    t.equal((await list(a, { token: m.token })).status, 200, `a ${role} may list`)
    const res = await runAs(a, { token: m.token })
    t.equal(res.status, 403, `a ${role} may not run`)
    t.equal(res.body.error.code, 'permission_denied')
    t.match(res.body.error.message, /integrations:write/)
  }
  t.equal(slack.requests.length, 0, 'refused runs sent nothing')

  const admin = await addMember(a, owner, ROLE.admin)
  t.match((await runAs(a, { token: admin.token })).body, { ok: true }, 'an admin may run')
  t.match((await runAs(a, { token: owner.token })).body, { ok: true }, 'the owner may run')

  const reader = await createKey(a, owner, ['org:read'])
  t.equal((await list(a, { apiKey: reader.key })).status, 200, 'an org:read key lists')
  t.equal((await runAs(a, { apiKey: reader.key })).status, 403, 'but does not run')
  const manager = await createKey(a, owner, ['org:manage'])
  t.match((await runAs(a, { apiKey: manager.key })).body, { ok: true }, 'an org:manage key runs')
  const runner = await createKey(a, owner, ['workflow:run', 'workflow:read'])
  t.equal((await list(a, { apiKey: runner.key })).status, 403, 'agent scopes do not list integrations')
  t.equal((await runAs(a, { apiKey: runner.key })).status, 403, 'nor run them directly')

  t.equal((await a.request('GET', '/api/v1/integrations')).status, 401)
  t.equal((await a.request('POST', RUN('slack'), { body: message })).status, 401)
  t.equal(slack.messages.length, 3)
})

t.test('each run is audited with the action and its outcome, never its input', async (t) => {
  const slack = await startSlackStandIn({ botToken: TOKEN })
  t.teardown(() => slack.close())
  const { a, owner } = await integrationApp(t, { allowLoopback: true })
  await storeCredential(a, owner, 'slack', { bot_token: TOKEN, base_url: slack.url })
  const key = await createKey(a, owner, ['org:manage'])
  t.equal((await runAs(a, { apiKey: key.key })).body.ok, true)
  t.equal(
    (await a.request('POST', RUN('slack'), { token: owner.token, body: { action: 'post_message', input: { channel: '#nowhere', text: 'secret plans' } } })).body
      .ok,
    false,
  )
  // Refused before running: not an action run, so not in the trail as one.
  t.equal((await a.request('POST', RUN('slack'), { token: owner.token, body: { action: 'post_message', input: {} } })).status, 422)
  t.equal(
    (
      await a.request('POST', RUN('calcom'), {
        token: owner.token,
        body: { action: 'create_booking', input: { event_type_id: 1, start: '2026-12-01T09:00:00Z', name: 'A', email: 'a@example.com' } },
      })
    ).status,
    400,
  )

  const trail = await a.request('GET', '/api/v1/audit?action=integration.action_run', { token: owner.token })
  t.equal(trail.status, 200)
  const [failed, succeeded] = trail.body
  t.equal(trail.body.length, 2)
  t.match(succeeded, {
    action: 'integration.action_run',
    resource_type: 'integration',
    resource_id: 'slack',
    outcome: 'success',
    actor: { type: 'api_key', id: key.id },
    metadata: { action: 'post_message', ok: true, duration_ms: Number },
  })
  t.match(failed, {
    resource_id: 'slack',
    outcome: 'failure',
    actor: { type: 'user', id: owner.userId },
    metadata: { action: 'post_message', ok: false, error_code: 'channel_not_found' },
  })
  t.notOk(trail.text.includes('secret plans'), 'the input is not recorded')
  t.notOk(trail.text.includes(TOKEN), 'nor the credential')
})
