import path from 'node:path'
import t, { type Test } from 'tap'
import { ManualClock } from '../../../core/index.js'
import { createRepos, migrate, openDatabase } from '../../../db/index.js'
import { BillingRepo } from '../../../db/repos/billing.js'
import { CREDIT_CHECK_EVERY_MS, CreditWatches } from '../../../api/billing/credit-watch.js'
import { databaseLiveSpend, LIVE_SPEND_STALE_CHECKS } from '../../../api/billing/live-spend.js'

// Issue 22: "a live call whose credit runs out ends gracefully". Two API or engine processes on
// one database each hold some of an organization's calls: each must compare the balance with what
// all of them spend, or together they spend past it. Here each "process" is its own connection to
// the same database file, with its own CreditWatches.

function twoProcesses(t: Test, grant: number) {
  const file = path.join(t.testdir({}), 'ozan.db')
  const first = openDatabase(file)
  migrate(first)
  const second = openDatabase(file)
  t.teardown(() => (first.close(), second.close()))
  const org = createRepos(first).organizations.create('Two processes', null, Date.now()).id
  const clock = new ManualClock(Date.parse('2026-03-10T12:00:00Z'))
  const repos = [new BillingRepo(first), new BillingRepo(second)] as const
  repos[0].append({ organization_id: org, kind: 'grant', amount_minor: grant, currency: 'usd', description: 'credit', created_at: clock.now() })
  // A long interval: the test runs each check itself.
  const watches = repos.map((r) => new CreditWatches((o) => r.balance(o), databaseLiveSpend(r, clock), 3_600_000))
  return { org, clock, repos, watches, first }
}

t.test('calls in two processes that together spend the balance are both ended, though each alone would not be', async (t) => {
  const { org, watches } = twoProcesses(t, 100)
  const ended: string[] = []
  let spentA = 40
  const spentB = 40
  const stopA = watches[0]!.watch(
    org,
    'call-a',
    () => spentA,
    () => ended.push('a'),
  )
  const stopB = watches[1]!.watch(
    org,
    'call-b',
    () => spentB,
    () => ended.push('b'),
  )
  t.teardown(() => (stopA(), stopB()))
  watches[0]!.check(org)
  watches[1]!.check(org)
  t.same(ended, [], '80 of 100 spent: both go on')
  spentA = 60
  watches[0]!.check(org)
  t.same(ended, ['a'], 'process A sees B’s 40 beside its own 60: its call is told to end')
  watches[1]!.check(org)
  t.same(ended, ['a', 'b'], 'process B, at its next check, sees the same total: A’s call counts until it is settled')
})

t.test('a settled call’s spend leaves the live table in the debit’s transaction; a dead process’s rows stop counting', async (t) => {
  const { org, clock, repos, watches, first } = twoProcesses(t, 100)
  const ended: string[] = []
  watches[0]!.watch(
    org,
    'call-a',
    () => 70,
    () => ended.push('a'),
  )
  watches[0]!.check(org)
  t.equal((first.prepare('SELECT spent_minor FROM live_call_spend WHERE call_id = ?').get('call-a') as { spent_minor: number }).spent_minor, 70)
  // Call A ends: its usage is settled (debit 70) and, in the same transaction, its live row goes.
  repos[0].settle(
    {
      session_id: 'call-a',
      organization_id: org,
      environment_id: 'env',
      workflow_id: null,
      channel: 'web',
      call_ms: 60_000,
      stt_audio_ms: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      tts_characters: 0,
      items: '[]',
      amount_minor: 70,
      currency: 'usd',
      ended_at: clock.now(),
    },
    {
      organization_id: org,
      kind: 'usage',
      amount_minor: -70,
      currency: 'usd',
      description: 'web session usage',
      session_id: 'call-a',
      created_at: clock.now(),
    },
  )
  t.equal(first.prepare('SELECT count(*) AS n FROM live_call_spend').get()!['n' as never], 0, 'not counted twice: once in the ledger, not live')

  // A process dies holding a call: its row stays, but stops counting after three intervals.
  first.prepare('INSERT INTO live_call_spend (call_id, organization_id, spent_minor, updated_at) VALUES (?, ?, ?, ?)').run('ghost', org, 25, clock.now())
  const seenB: string[] = []
  watches[1]!.watch(
    org,
    'call-b',
    () => 10,
    () => seenB.push('b'),
  )
  watches[1]!.check(org)
  t.same(seenB, ['b'], '30 left, 25 (ghost) + 10 spent live: out of credit')
  clock.advance(LIVE_SPEND_STALE_CHECKS * CREDIT_CHECK_EVERY_MS + 1)
  watches[1]!.watch(
    org,
    'call-c',
    () => 10,
    () => seenB.push('c'),
  )
  watches[1]!.check(org)
  t.same(seenB, ['b'], 'the ghost’s row is stale: 30 left, 10 spent, call C goes on')
  t.equal(first.prepare("SELECT count(*) AS n FROM live_call_spend WHERE call_id = 'ghost'").get()!['n' as never], 0, 'and swept')
})

t.test('a call this process stops watching is forgotten at once', async (t) => {
  const { org, watches, first } = twoProcesses(t, 100)
  const stop = watches[0]!.watch(
    org,
    'call-a',
    () => 5,
    () => {},
  )
  watches[0]!.check(org)
  stop()
  t.equal(first.prepare('SELECT count(*) AS n FROM live_call_spend').get()!['n' as never], 0)
})
