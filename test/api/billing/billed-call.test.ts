import t from 'tap'
import type { DomainEvent, ManualClock } from '../../../core/index.js'
import { OUT_OF_CREDIT_LINE } from '../../../api/billing/index.js'
import { skipWithoutEspeak } from '../../helpers/speech.js'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { Mic } from '../../engine/pipeline/call/fixture.js'
import type { Event } from '../../engine/server/helpers.js'
import { callScene } from '../calls/fixtures.js'
import { B } from './billing-fixtures.js'

// Real browser calls through the engine (Silero VAD, Deepgram stand-in STT, espeak-ng TTS) with
// billing on: what the call used comes from the engine's own counters, and a call whose credit runs
// out says a line and ends.

const skip = await skipWithoutEspeak()
const agentLine = (e: Event) => e.type === 'transcript' && e['role'] === 'agent' && e['final'] === true

t.test('a web call’s cost comes from the engine’s counts and is debited once when it ends', { skip, timeout: 60_000 }, async (t) => {
  const s = await callScene(t, { OZAN_BILLING: 'on' })
  const seen: DomainEvent[] = []
  t.teardown(s.a.services.bus.subscribe((e) => void seen.push(e)))
  s.a.services.billing.grant({ organizationId: s.owner.organizationId, amountMinor: 1000, reason: 'credit', operator: 'test' })
  await s.storeDeepgram()
  const id = await s.agent()
  const minted = expectStatus(await s.mint(id), 201, 'mint')
  const c = await s.connect(minted.ws_url)
  c.keepBinaries = false
  const mic = new Mic(c)
  t.teardown(() => mic.stop())
  await c.event(agentLine, 15_000)
  await new Promise((r) => setTimeout(r, 1500))
  c.ws.send(JSON.stringify({ type: 'stop' }))
  await c.closed
  await c.until(() => seen.some((e) => e.type === 'session.completed'), 5000)
  const report = seen.find((e) => e.type === 'session.completed')!
  const cost = report.data['cost'] as { amount_minor: number; items: { service_type: string; provider: string; base_quantity: number }[] }
  const stt = cost.items.find((i) => i.service_type === 'stt')
  const tts = cost.items.find((i) => i.service_type === 'tts')
  t.ok(stt && stt.base_quantity >= 1000, `the microphone's audio reached STT and was counted (${stt?.base_quantity} ms)`)
  t.equal(stt?.provider, 'deepgram')
  // The greeting's two lines were synthesized by espeak (first call: nothing cached yet).
  t.ok(tts && tts.base_quantity >= 'Hello! Welcome to the demo line.What is your name?'.length, `characters synthesized: ${tts?.base_quantity}`)
  t.ok(cost.amount_minor > 0)
  const credits = expectStatus(await s.a.request('GET', `${B}/credits`, { token: s.owner.token }), 200, 'credits')
  t.equal(credits.balance_minor, 1000 - cost.amount_minor)
  const detail = expectStatus(await s.a.request('GET', `/api/v1/calls/${report.data['session_uuid']}`, { token: s.owner.token }), 200, 'detail')
  t.equal(detail.cost.amount_minor, cost.amount_minor)
})

t.test('a live call whose credit runs out says a line and ends, recorded as insufficient_credit', { skip, timeout: 60_000 }, async (t) => {
  const s = await callScene(t, { OZAN_BILLING: 'on' })
  const seen: DomainEvent[] = []
  t.teardown(s.a.services.bus.subscribe((e) => void seen.push(e)))
  // One cent: the first second of platform and STT minutes already spends it (each line rounds up).
  s.a.services.billing.grant({ organizationId: s.owner.organizationId, amountMinor: 1, reason: 'a little', operator: 'test' })
  await s.storeDeepgram()
  const id = await s.agent()
  const minted = expectStatus(await s.mint(id), 201, 'mint: there is credit')
  const c = await s.connect(minted.ws_url)
  c.keepBinaries = false
  const mic = new Mic(c)
  t.teardown(() => mic.stop())
  await c.event(agentLine, 15_000)
  // The app's clock is the test's: a second of call passes on it, then the watch, which checks
  // every few seconds, checks now.
  ;(s.a.clock as ManualClock).advance(1000)
  s.a.services.billing.checkLiveCalls(s.owner.organizationId)
  const line = await c.event((e) => agentLine(e) && e['text'] === OUT_OF_CREDIT_LINE, 20_000)
  t.ok(line, 'the agent said why the call ends')
  t.match(await c.event((e) => e.type === 'ended', 20_000), { reason: 'ended_by_api' })
  await c.until(() => seen.some((e) => e.type === 'session.completed'), 5000)
  const report = seen.find((e) => e.type === 'session.completed')!
  t.match(report.data, { status: 'completed', disposition: 'insufficient_credit' })
  t.ok(
    (report.data['transcript'] as { text: string }[]).some((l) => l.text === OUT_OF_CREDIT_LINE),
    'the line is in the transcript',
  )
  const credits = expectStatus(await s.a.request('GET', `${B}/credits`, { token: s.owner.token }), 200, 'credits')
  t.ok(credits.balance_minor <= 0, `the call's cost was debited (balance ${credits.balance_minor})`)
  const again = await s.mint(id)
  t.equal(again.status, 402, 'a new call is refused')
  t.equal(again.body.error.code, 'insufficient_credit')
})

t.test('a web-call token minted with credit is refused on connect once the credit is gone', { skip, timeout: 60_000 }, async (t) => {
  const s = await callScene(t, { OZAN_BILLING: 'on' })
  s.a.services.billing.grant({ organizationId: s.owner.organizationId, amountMinor: 5, reason: 'credit', operator: 'test' })
  await s.storeDeepgram()
  const id = await s.agent()
  const minted = expectStatus(await s.mint(id), 201, 'mint: there is credit')
  s.a.services.billing.grant({ organizationId: s.owner.organizationId, amountMinor: -5, reason: 'taken back', operator: 'test' })
  const c = await s.connect(minted.ws_url)
  t.match(await c.event((e) => e.type === 'error', 10_000), { code: 'insufficient_credit' })
  await c.closed
  t.notOk(
    c.events.some((e) => e.type === 'transcript'),
    'no agent line was spoken',
  )
  t.equal((s.a.db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n, 0, 'no session was opened')
})
