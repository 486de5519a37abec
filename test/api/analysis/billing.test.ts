import t from 'tap'
import { GOOD_ANSWER, agent, finishedSession, scene, settle } from './analysis-fixtures.js'

// Issue 22: metering counts "tokens in and out". A post-call analysis spends LLM tokens after the
// session's own bill was settled; with billing on they are priced and debited once, as a usage row
// of their own, in the transaction that finishes the job.

const ledger = (s: Awaited<ReturnType<typeof scene>>) =>
  s.a.db.prepare('SELECT kind, amount_minor, description, session_id FROM credit_transactions ORDER BY seq').all() as {
    kind: string
    amount_minor: number
    description: string
    session_id: string | null
  }[]

t.test('with billing on, a finished analysis’s tokens are debited once, beside the session’s own bill', async (t) => {
  const s = await scene(t, { OZAN_BILLING: 'on' })
  s.a.services.billing.grant({ organizationId: s.owner.organizationId, amountMinor: 1000, reason: 'credit', operator: 'test' })
  const wf = await agent(s)
  // 40,000 tokens in at 15 per 1000 × 1k (0.6) and 20,000 out at 60 (1.2): 1 + 2 minor units, rounded up per line.
  s.llm.script({ text: JSON.stringify(GOOD_ANSWER), usage: { prompt_tokens: 40_000, completion_tokens: 20_000 } })
  const sid = await finishedSession(s, wf)
  t.match(await settle(s, wf, sid), { status: 'completed' })
  s.a.services.analysis.wake()
  await s.a.services.analysis.settled()

  const row = s.a.db
    .prepare('SELECT channel, prompt_tokens, completion_tokens, amount_minor, workflow_id FROM billing_usage WHERE session_id = ?')
    .get(`analysis:${sid}`)
  t.match(row, { channel: 'analysis', prompt_tokens: 40_000, completion_tokens: 20_000, workflow_id: wf })
  const debits = ledger(s).filter((l) => l.description === `post-call analysis of session ${sid}`)
  t.equal(debits.length, 1, 'debited once, though the worker looked again')
  t.equal(debits[0]!.amount_minor, -(row as { amount_minor: number }).amount_minor)
  t.ok((row as { amount_minor: number }).amount_minor > 0)
  const balance = (s.a.db.prepare('SELECT coalesce(sum(amount_minor), 0) AS s FROM credit_transactions').get() as { s: number }).s
  t.equal((await s.send('GET', '/api/v1/billing/credits')).body.balance_minor, balance, 'the balance is still the ledger’s sum')
  const usage = (await s.send('GET', '/api/v1/billing/usage')).body
  t.equal(usage.sessions, 1, 'the analysis is priced, not counted as another session')
})

t.test('with billing off (the default), an analysis debits nothing', async (t) => {
  const s = await scene(t)
  const wf = await agent(s)
  s.llm.script({ text: JSON.stringify(GOOD_ANSWER) })
  const sid = await finishedSession(s, wf)
  t.match(await settle(s, wf, sid), { status: 'completed' })
  t.equal((s.a.db.prepare('SELECT count(*) AS n FROM billing_usage').get() as { n: number }).n, 0)
  t.same(ledger(s), [])
})
