import { randomUUID } from 'node:crypto'
import t from 'tap'
import { createLogger } from '../../../core/index.js'
import { BillingRepo } from '../../../db/repos/billing.js'
import type { LlmClient } from '../../../engine/graph-runtime/index.js'
import { ScriptedLlm, text } from '../../../engine/graph-runtime/testing/scripted-llm.js'
import { SessionCallRecorder } from '../../../api/calls/session-recorder.js'
import { initialState, Definition } from '../../../engine/graph-runtime/index.js'
import { expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import type { TestApp } from '../../helpers/app.js'
import { B, billingScene, ledgerSum, type BillingScene } from './billing-fixtures.js'
import { CHAT_AGENT } from '../sessions/session-fixtures.js'

const W = '/api/v1/workflows'
const CHAT = CHAT_AGENT.definition

/** The session service's LLM, set on its dependency field as the session tests do (startTestApp has no option). */
function useLlm(a: TestApp, llm: LlmClient): void {
  ;(a.services.sessions as unknown as { deps: { llmFor: () => LlmClient } }).deps.llmFor = () => llm
}

async function chatAgent(s: BillingScene): Promise<string> {
  const id = expectStatus(await s.send('POST', W, { body: { name: 'Metered chat', definition: CHAT } }), 201, 'create agent').id as string
  expectStatus(await s.send('POST', `${W}/${id}/publish`), 200, 'publish')
  return id
}

/** A chat that answers once using 12,000 prompt and 3,000 completion tokens, then is ended by the API. */
async function meteredChat(s: BillingScene, agentId: string): Promise<string> {
  useLlm(s.a, new ScriptedLlm([[text('Sure.'), { type: 'usage', model: 'm', prompt_tokens: 12_000, completion_tokens: 3000 }]]))
  const started = expectStatus(await s.send('POST', '/api/v1/calls', { body: { channel: 'chat', workflow_uuid: agentId } }), 201, 'chat')
  const id = started.call_uuid as string
  expectStatus(await s.send('POST', `/api/v1/calls/${id}/messages`, { body: { text: 'hello' } }), 200, 'message')
  s.clock.advance(60_000)
  expectStatus(await s.send('POST', `/api/v1/calls/${id}/control`, { body: { action: 'end' } }), 202, 'end')
  return id
}

// 12,000 input tokens at 15 per 1000 × 1k = 0.18 → 1; 3000 output at 60 per 1000 × 1k = 0.18 → 1. Text pays no minutes.
const CHAT_COST = 2

t.test('billing off (the default): nothing is metered or debited, and the report’s amount stays null', async (t) => {
  const s = await billingScene(t)
  const id = await meteredChat(s, await chatAgent(s))
  const report = s.events.find((e) => e.type === 'session.completed' && e.data['session_uuid'] === id)
  t.same(report!.data['cost'], { prompt_tokens: 12_000, completion_tokens: 3000, amount_minor: null, currency: null })
  t.same((await s.send('GET', `/api/v1/calls/${id}`)).body.cost, { prompt_tokens: 12_000, completion_tokens: 3000, amount_minor: null, currency: null })
  t.equal((s.a.db.prepare('SELECT count(*) AS n FROM billing_usage').get() as { n: number }).n, 0)
  t.equal(ledgerSum(s.a, s.owner.organizationId), 0)
  t.equal((await s.send('GET', `${B}/credits`)).body.billing_enabled, false)
  t.equal((await s.send('GET', `${B}/usage`)).body.sessions, 0)
})

t.test('an ended text session is metered from its own token counts; the cost is in session.completed and on the call', async (t) => {
  const s = await billingScene(t, { OZAN_BILLING: 'on' })
  s.a.services.billing.grant({ organizationId: s.owner.organizationId, amountMinor: 100, reason: 'credit', operator: 'test' })
  const id = await meteredChat(s, await chatAgent(s))
  const report = s.events.find((e) => e.type === 'session.completed' && e.data['session_uuid'] === id)
  t.ok(report, 'session.completed was published')
  t.match(report!.data['cost'], {
    prompt_tokens: 12_000,
    completion_tokens: 3000,
    amount_minor: CHAT_COST,
    currency: 'usd',
    items: [
      { service_type: 'llm', provider: 'openai', unit: '1k_input_tokens', base_quantity: 12_000, amount_minor: 1 },
      { service_type: 'llm', provider: 'openai', unit: '1k_output_tokens', base_quantity: 3000, amount_minor: 1 },
    ],
  })
  t.equal((report!.data['cost'] as { items: unknown[] }).items.length, 2, 'no minutes for a text session')
  const detail = expectStatus(await s.send('GET', `/api/v1/calls/${id}`), 200, 'detail')
  t.match(detail.cost, { amount_minor: CHAT_COST, currency: 'usd', items: [{ service_type: 'llm' }, { service_type: 'llm' }] })
})

t.test('with billing on, an ended session debits its cost once; the balance is the ledger’s sum', async (t) => {
  const s = await billingScene(t, { OZAN_BILLING: 'on' })
  s.a.services.billing.grant({ organizationId: s.owner.organizationId, amountMinor: 500, reason: 'welcome credit', operator: 'test' })
  const id = await meteredChat(s, await chatAgent(s))
  const credits = expectStatus(await s.send('GET', `${B}/credits`), 200, 'credits')
  t.match(credits, { balance_minor: 500 - CHAT_COST, currency: 'usd', billing_enabled: true })
  t.equal(credits.balance_minor, ledgerSum(s.a, s.owner.organizationId))
  const txs = expectStatus(await s.send('GET', `${B}/credits/transactions`), 200, 'transactions')
  t.match(txs, [
    { kind: 'usage', amount_minor: -CHAT_COST, balance_after_minor: 500 - CHAT_COST, session_uuid: id, provider: null },
    { kind: 'grant', amount_minor: 500, balance_after_minor: 500, provider: 'manual', description: 'welcome credit' },
  ])
  // Settling the same session again (a retried end) changes nothing.
  const row = s.a.services.repos.sessions.get({ organizationId: s.owner.organizationId, environmentId: environmentOf(s, 'sessions', id) }, id)!
  s.a.services.billing.settle(row, { sttAudioMs: 0, ttsCharacters: 0 })
  t.equal(ledgerSum(s.a, s.owner.organizationId), 500 - CHAT_COST, 'debited once')
})

/** The environment a row was made in (the owner's default one). */
function environmentOf(s: BillingScene, table: 'sessions' | 'workflows', id: string): string {
  return (s.a.db.prepare(`SELECT environment_id FROM ${table} WHERE id = ?`).get(id) as { environment_id: string }).environment_id
}

t.test('a voice call is priced from the engine’s counts: audio into STT, characters synthesized, call minutes', async (t) => {
  const s = await billingScene(t, { OZAN_BILLING: 'on' })
  s.a.services.billing.grant({ organizationId: s.owner.organizationId, amountMinor: 1000, reason: 'credit', operator: 'test' })
  const agentId = await chatAgent(s)
  const env = environmentOf(s, 'workflows', agentId)
  const config = JSON.stringify({ stt: { provider: 'deepgram' }, tts: { provider: 'deepgram' } })
  const recorder = new SessionCallRecorder({
    repos: s.a.services.repos,
    bus: s.a.services.bus,
    clock: s.clock,
    logger: createLogger('silent'),
    organizationId: s.owner.organizationId,
    environmentId: env,
    workflowId: agentId,
    version: 1,
    definition: JSON.stringify(CHAT),
    config,
    initial: initialState(Definition.parse(CHAT), {}),
    callId: randomUUID(),
    pending: false,
    channel: 'phone',
    meter: s.a.services.billing,
  })
  t.ok(recorder.open())
  recorder.event('usage', { prompt_tokens: 2000, completion_tokens: 100 })
  s.clock.advance(150_000)
  recorder.event('call_ended', { reason: 'client_hangup', stt_audio_ms: 149_000, tts_characters: 2500 })
  recorder.ended('client_hangup')
  await recorder.done
  const report = s.events.find((e) => e.type === 'session.completed')!
  const cost = report.data['cost'] as { amount_minor: number; items: { service_type: string; base_quantity: number; amount_minor: number }[] }
  const line = (type: string) => cost.items.filter((i) => i.service_type === type)
  // Independent arithmetic: STT 149 s at 77 per 100 min = 1.912 → 2; LLM 2000 in → 0.03 → 1, 100 out → 0.006 → 1;
  // Deepgram TTS 2500 chars at 3 per 1k = 7.5 → 8; telephony (sip) 0; platform 2.5 min × 5 = 12.5 → 13.
  t.match(line('stt'), [{ base_quantity: 149_000, amount_minor: 2 }])
  t.match(line('tts'), [{ base_quantity: 2500, amount_minor: 8 }])
  t.match(line('telephony'), [{ base_quantity: 150_000, amount_minor: 0 }])
  t.match(line('platform'), [{ base_quantity: 150_000, amount_minor: 13 }])
  t.equal(cost.amount_minor, 2 + 1 + 1 + 8 + 0 + 13)
  t.equal(ledgerSum(s.a, s.owner.organizationId), 1000 - cost.amount_minor)

  const usage = expectStatus(await s.send('GET', `${B}/usage`), 200, 'usage')
  t.equal(usage.sessions, 1)
  t.equal(usage.amount_minor, cost.amount_minor)
  t.match(usage.by_agent, [{ workflow_uuid: agentId, workflow_name: 'Metered chat', sessions: 1, call_ms: 150_000, amount_minor: cost.amount_minor }])
  t.match(
    usage.by_provider.find((l: { service_type: string }) => l.service_type === 'stt'),
    { provider: 'deepgram', unit: 'minute', base_quantity: 149_000, amount_minor: 2 },
  )
  t.equal(usage.period_start, '2026-03-01T00:00:00.000Z', 'the month so far by default')

  const empty = expectStatus(await s.send('GET', `${B}/usage?since=2026-01-01T00:00:00Z&until=2026-02-01T00:00:00Z`), 200, 'January')
  t.match(empty, { sessions: 0, amount_minor: 0, by_provider: [], by_agent: [] })
  const backwards = await s.send('GET', `${B}/usage?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z`)
  t.equal(backwards.status, 422)
  t.equal((await s.send('GET', `${B}/usage?since=yesterday`)).status, 422)

  const other = await newOwner(s.a)
  const theirs = expectStatus(await s.a.request('GET', `${B}/usage`, { token: other.token }), 200, 'other org')
  t.equal(theirs.sessions, 0, "another organization's usage is not visible")
  t.equal((await s.a.request('GET', `${B}/credits`, { token: other.token })).body.balance_minor, 0)
  t.same((await s.a.request('GET', `${B}/credits/transactions`, { token: other.token })).body, [])
})

t.test('twenty chats ending at once are each debited once; the balance is the ledger’s sum', async (t) => {
  const s = await billingScene(t, { OZAN_BILLING: 'on' })
  s.a.services.billing.grant({ organizationId: s.owner.organizationId, amountMinor: 1000, reason: 'credit', operator: 'test' })
  const agentId = await chatAgent(s)
  const n = 20
  useLlm(
    s.a,
    new ScriptedLlm(Array.from({ length: n }, () => [text('Sure.'), { type: 'usage' as const, model: 'm', prompt_tokens: 12_000, completion_tokens: 3000 }])),
  )
  const ids = await Promise.all(
    Array.from({ length: n }, async () => {
      const started = expectStatus(await s.send('POST', '/api/v1/calls', { body: { channel: 'chat', workflow_uuid: agentId } }), 201, 'chat')
      expectStatus(await s.send('POST', `/api/v1/calls/${started.call_uuid}/messages`, { body: { text: 'hi' } }), 200, 'message')
      return started.call_uuid as string
    }),
  )
  // Each ended twice at once: the second end finds it ended (receivers 0) and debits nothing.
  const ends = await Promise.all(ids.flatMap((id) => [1, 2].map(() => s.send('POST', `/api/v1/calls/${id}/control`, { body: { action: 'end' } }))))
  t.same(ends.map((r) => r.body.receivers).sort(), [...Array(n).fill(0), ...Array(n).fill(1)])
  const debits = (await s.send('GET', `${B}/credits/transactions?limit=200`)).body.filter((x: { kind: string }) => x.kind === 'usage')
  t.equal(debits.length, n, 'one debit per session')
  t.equal(new Set(debits.map((d: { session_uuid: string }) => d.session_uuid)).size, n)
  const balance = (await s.send('GET', `${B}/credits`)).body.balance_minor
  t.equal(balance, 1000 - n * CHAT_COST)
  t.equal(balance, ledgerSum(s.a, s.owner.organizationId))
})

t.test('GET /billing/usage sums many sessions by provider and unit and by agent, most expensive first', async (t) => {
  const s = await billingScene(t, { OZAN_BILLING: 'on' })
  const agentId = await chatAgent(s)
  const repo = new BillingRepo(s.a.db)
  const item = (service_type: string, provider: string, unit: string, base_quantity: number, amount_minor: number) => ({
    service_type,
    provider,
    unit,
    base_quantity,
    amount_minor,
  })
  const row = (id: string, workflowId: string | null, items: ReturnType<typeof item>[], callMs: number) => ({
    session_id: id,
    organization_id: s.owner.organizationId,
    environment_id: 'env',
    workflow_id: workflowId,
    channel: 'web',
    call_ms: callMs,
    stt_audio_ms: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    tts_characters: 0,
    items: JSON.stringify(items),
    amount_minor: items.reduce((n, i) => n + i.amount_minor, 0),
    currency: 'usd',
    ended_at: s.clock.now() - 1000,
  })
  repo.settle(row('s1', agentId, [item('stt', 'deepgram', 'minute', 60_000, 1), item('platform', 'ozan', 'minute', 60_000, 5)], 60_000), null)
  repo.settle(row('s2', agentId, [item('stt', 'deepgram', 'minute', 30_000, 1), item('platform', 'ozan', 'minute', 30_000, 3)], 30_000), null)
  repo.settle(row('s3', null, [item('llm', 'openai', '1k_input_tokens', 5000, 1)], 0), null)
  const u = expectStatus(await s.send('GET', `${B}/usage`), 200, 'usage')
  t.match(u, { sessions: 3, amount_minor: 11 })
  t.same(
    u.by_provider.map((l: Record<string, unknown>) => [l['service_type'], l['provider'], l['unit'], l['base_quantity'], l['quantity'], l['amount_minor']]),
    [
      ['platform', 'ozan', 'minute', 90_000, 1.5, 8],
      ['stt', 'deepgram', 'minute', 90_000, 1.5, 2],
      ['llm', 'openai', '1k_input_tokens', 5000, 5, 1],
    ],
  )
  t.same(u.by_agent, [
    { workflow_uuid: agentId, workflow_name: 'Metered chat', sessions: 2, call_ms: 90_000, amount_minor: 10 },
    { workflow_uuid: null, workflow_name: null, sessions: 1, call_ms: 0, amount_minor: 1 },
  ])
})
