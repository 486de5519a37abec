import t from 'tap'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { agent, runToEnd, S, scene, scripted, suite } from './suite-fixtures.js'
import { CHAT_AGENT } from '../sessions/session-fixtures.js'

// Issue 22: with billing on, what a test run spends is billed like a session's LLM use: a run is
// refused with no credit left (402 insufficient_credit), and each finished case's tokens (the
// agent's, the simulated caller's, the rubric judge's) are debited once.

const CHAT = CHAT_AGENT.definition

t.test('a case’s LLM tokens are debited once with billing on; a run with no credit left is 402', async (t) => {
  const s = await scene(t, { OZAN_BILLING: 'on' })
  const wf = await agent(s.a, s.owner, CHAT)
  const id = await suite(s.a, s.owner, wf, [scripted('answers', ['What are your hours?'], [{ type: 'said', text: 'nine to five' }])])

  const refused = await s.send('POST', `${S}/${id}/runs`, { body: {} })
  t.equal(refused.status, 402, 'a balance of 0 refuses the run')
  t.equal(refused.body.error.code, 'insufficient_credit')

  s.a.services.billing.grant({ organizationId: s.owner.organizationId, amountMinor: 1000, reason: 'credit', operator: 'test' })
  // 40,000 tokens in and 20,000 out: priced 1 + 2 minor units by the default book (rounded up per line).
  s.llm.script({ text: 'We are open nine to five.', usage: { prompt_tokens: 40_000, completion_tokens: 20_000 } })
  const run = await runToEnd(s.a, s.owner, id)
  t.equal(run.cases[0]!.status, 'passed', run.cases[0]!.reason ?? '')
  t.same(run.cases[0]!.usage, { prompt_tokens: 40_000, completion_tokens: 20_000 })

  const rows = s.a.db.prepare("SELECT session_id, channel, prompt_tokens, completion_tokens, amount_minor FROM billing_usage WHERE channel = 'test'").all() as {
    session_id: string
    amount_minor: number
  }[]
  t.match(rows, [{ session_id: `test:${run.id}:0`, channel: 'test', prompt_tokens: 40_000, completion_tokens: 20_000 }])
  t.ok(rows[0]!.amount_minor > 0)
  const credits = expectStatus(await s.send('GET', '/api/v1/billing/credits'), 200, 'credits')
  t.equal(credits.balance_minor, 1000 - rows[0]!.amount_minor, 'debited once')
  const usage = expectStatus(await s.send('GET', '/api/v1/billing/usage'), 200, 'usage')
  t.equal(usage.sessions, 0, 'a test case is priced, not counted as a session')
})
