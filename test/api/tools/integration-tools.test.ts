import t from 'tap'
import { startSlackStandIn } from '../../../api/integrations/stand-ins/index.js'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { integrationApp, storeCredential } from '../integrations/integration-fixtures.js'

// A library tool that runs an integration action: the organization's stored credential is used,
// the action's input is filled in from the arguments, and the tool's deadline bounds the run.

const TOKEN = 'xoxb-library-tool-0123456789'
const NOTIFY = {
  name: 'notify_team',
  description: 'Tell the team in #alerts that a caller needs something.',
  parameters: { type: 'object', properties: { summary: { type: 'string', maxLength: 500 } }, required: ['summary'] },
  runs: { type: 'integration', integration: 'slack', action: 'post_message', input: { channel: '#alerts', text: 'Caller: {{summary}}' }, timeout_ms: 400 },
}

t.test('an integration tool posts with the stored credential and a fixed channel the model cannot change', async (t) => {
  const slack = await startSlackStandIn({ botToken: TOKEN })
  t.teardown(() => slack.close())
  const { a, owner } = await integrationApp(t, { allowLoopback: true })
  const tool = expectStatus(await a.request('POST', '/api/v1/tools', { token: owner.token, body: NOTIFY }), 201, 'create')
  t.match(tool.runs, { type: 'integration', integration: 'slack', action: 'post_message' })

  const missing = await a.request('POST', `/api/v1/tools/${tool.id}/test`, { token: owner.token, body: { arguments: { summary: 'call back' } } })
  t.match(missing.body, { ok: false, error: { code: 'credential_missing', message: /"slack" credential/ } })

  await storeCredential(a, owner, 'slack', { bot_token: TOKEN, base_url: slack.url })
  const test = (args: Record<string, unknown>) => a.request('POST', `/api/v1/tools/${tool.id}/test`, { token: owner.token, body: { arguments: args } })
  const ok = await test({ summary: 'call back', channel: '#general' })
  t.match(ok.body, { ok: true, version: 1, output: { channel: 'C0ALERTS002' } })
  t.same(
    slack.messages.map((m) => [m.channel, m.text]),
    [['C0ALERTS002', 'Caller: call back']],
    'the input template decides the channel, whatever the arguments say',
  )

  const closed = { parameters: { ...NOTIFY.parameters, additionalProperties: false } }
  t.equal(expectStatus(await a.request('PATCH', `/api/v1/tools/${tool.id}`, { token: owner.token, body: closed }), 200, 'close parameters').version, 2)
  t.match(
    (await test({ summary: 'again', channel: '#general' })).body,
    { ok: false, version: 2, error: { code: 'invalid_arguments' } },
    'closed parameters refuse it',
  )
  t.equal(slack.messages.length, 1, 'nothing was posted')

  slack.fail({ kind: 'hang' })
  const started = performance.now()
  const hung = await a.request('POST', `/api/v1/tools/${tool.id}/test`, { token: owner.token, body: { arguments: { summary: 'again' } } })
  const took = performance.now() - started
  t.match(hung.body, { ok: false, error: { code: 'timeout', message: /400 ms/ } })
  t.ok(took >= 380 && took < 3000, `the tool's 400 ms deadline held (${Math.round(took)} ms)`)
})
