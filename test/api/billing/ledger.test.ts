import { spawn } from 'node:child_process'
import path from 'node:path'
import t, { type Test } from 'tap'
import { createRepos, migrate, openDatabase } from '../../../db/index.js'
import { BillingRepo } from '../../../db/repos/billing.js'
import { runGrant } from '../../../api/billing/grant-cli.js'
import { expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { B, billingScene, ledgerSum } from './billing-fixtures.js'

const ROOT = path.resolve(import.meta.dirname, '../../..')

function freshLedger(t: Test) {
  const file = path.join(t.testdir({}), 'ozan.db')
  const db = openDatabase(file)
  t.teardown(() => db.close())
  migrate(db)
  const org = createRepos(db).organizations.create('Ledger org', null, Date.now())
  return { file, db, org: org.id, repo: new BillingRepo(db) }
}

t.test('the ledger is append-only: a trigger refuses UPDATE and DELETE', async (t) => {
  const { db, org, repo } = freshLedger(t)
  const row = repo.append({ organization_id: org, kind: 'grant', amount_minor: 100, currency: 'usd', description: 'grant', created_at: 1 })!
  t.throws(() => db.prepare('UPDATE credit_transactions SET amount_minor = 1000000 WHERE id = ?').run(row.id), /append-only/)
  t.throws(() => db.prepare('DELETE FROM credit_transactions WHERE id = ?').run(row.id), /append-only/)
  t.throws(() => db.prepare('UPDATE credit_transactions SET balance_after_minor = 0').run(), /append-only/)
  t.equal(repo.balance(org), 100, 'nothing changed')
})

t.test('a payment id or a session credits or debits once', async (t) => {
  const { org, repo } = freshLedger(t)
  const paid = {
    organization_id: org,
    kind: 'topup' as const,
    amount_minor: 500,
    currency: 'usd',
    description: 't',
    provider: 'stripe',
    external_id: 'cs_1',
    created_at: 1,
  }
  t.ok(repo.append(paid))
  t.equal(repo.append(paid), null, 'the same Checkout Session again: nothing')
  const debit = { organization_id: org, kind: 'usage' as const, amount_minor: -7, currency: 'usd', description: 'u', session_id: 's1', created_at: 2 }
  t.ok(repo.append(debit))
  t.equal(repo.append(debit), null, 'the same session again: nothing')
  t.equal(repo.balance(org), 493)
})

t.test('writers in four processes at once: no lost write, no double debit, the balance is the ledger’s sum', { timeout: 120_000 }, async (t) => {
  const { file, db, org } = freshLedger(t)
  const per = 100
  const runs = await Promise.all(
    ['a', 'b', 'c', 'd'].map(
      (label) =>
        new Promise<{ label: string; sum: number; appended: number }>((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'ledger-writer.ts'), file, org, label, String(per)], {
            cwd: ROOT,
            stdio: ['ignore', 'pipe', 'inherit'],
          })
          let out = ''
          child.stdout.on('data', (d) => (out += d))
          child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`writer ${label} exited ${code}`))))
        }),
    ),
  )
  const rows = db
    .prepare('SELECT seq, amount_minor, balance_after_minor, kind, session_id FROM credit_transactions WHERE organization_id = ? ORDER BY seq')
    .all(org) as {
    seq: number
    amount_minor: number
    balance_after_minor: number
    kind: string
    session_id: string | null
  }[]
  const appended = runs.reduce((n, r) => n + r.appended, 0)
  t.equal(rows.length, appended, 'every append the writers saw is in the ledger')
  // 20 shared sessions (i % 5 === 0 of 100) raced by four writers: each debited exactly once.
  const shared = rows.filter((r) => r.session_id?.startsWith('shared-'))
  t.equal(shared.length, 20, 'each raced session debited once')
  t.equal(new Set(shared.map((r) => r.session_id)).size, 20)
  t.equal(rows.length, 4 * 80 + 20 + 4 * 10, 'own debits, the raced ones once, the grants')
  let balance = 0
  let chain = true
  rows.forEach((r, i) => {
    balance += r.amount_minor
    if (r.seq !== i + 1 || r.balance_after_minor !== balance) chain = false
  })
  t.ok(chain, 'seq runs 1…n and each balance_after is the sum up to it: no two writers read the same balance')
  t.equal(
    balance,
    runs.reduce((n, r) => n + r.sum, 0),
    'the ledger sums to what the writers appended',
  )
  t.equal(new BillingRepo(db).balance(org), balance)
})

t.test('GET /billing/credits and /credits/transactions: the balance, the ledger newest first, paged, this organization only', async (t) => {
  const s = await billingScene(t)
  for (const amount of [300, -20, 45])
    s.a.services.billing.grant({ organizationId: s.owner.organizationId, amountMinor: amount, reason: `r${amount}`, operator: 'ops' })
  const credits = expectStatus(await s.send('GET', `${B}/credits`), 200, 'credits')
  t.match(credits, { balance_minor: 325, currency: 'usd', billing_enabled: false })
  t.equal(credits.balance_minor, ledgerSum(s.a, s.owner.organizationId))
  const page = await s.send('GET', `${B}/credits/transactions?limit=2`)
  t.equal(page.status, 200)
  t.equal(page.headers.get('x-total-count'), '3')
  t.match(page.body, [
    { amount_minor: 45, balance_after_minor: 325 },
    { amount_minor: -20, balance_after_minor: 280 },
  ])
  t.match(page.headers.get('link'), /offset=2/)
  t.equal((await s.send('GET', `${B}/credits/transactions?limit=0`)).status, 422)
  const other = await newOwner(s.a)
  t.equal((await s.a.request('GET', `${B}/credits`, { token: other.token })).body.balance_minor, 0, "another organization's balance is its own")
  t.same((await s.a.request('GET', `${B}/credits/transactions`, { token: other.token })).body, [], 'and so is its ledger')
  const audit = s.a.db
    .prepare("SELECT * FROM audit_events WHERE action = 'billing.granted' AND organization_id = ? ORDER BY id")
    .all(s.owner.organizationId) as {
    metadata: string
  }[]
  t.equal(audit.length, 3, 'every grant is audited')
  t.match(JSON.parse(audit[0]!.metadata), { operator: 'ops', amount_minor: 300, reason: 'r300' })
  t.throws(() => s.a.services.billing.grant({ organizationId: s.owner.organizationId, amountMinor: 1.5, reason: 'x', operator: 'o' }), RangeError)
  t.throws(() => s.a.services.billing.grant({ organizationId: s.owner.organizationId, amountMinor: 0, reason: 'x', operator: 'o' }), RangeError)
  t.throws(() => s.a.services.billing.grant({ organizationId: 'no-such-org', amountMinor: 5, reason: 'x', operator: 'o' }), RangeError)
})

t.test('the operator’s grant command writes the ledger and the audit trail of a running server’s database', async (t) => {
  const s = await billingScene(t)
  const env = { OZAN_DATA_DIR: s.a.dataDir }
  const out = JSON.parse(runGrant(['--org', s.owner.organizationId, '--amount-minor', '1500', '--reason', 'invoice 7', '--operator', 'ops@example.com'], env))
  t.match(out, { amount_minor: 1500, balance_after_minor: 1500, currency: 'usd' })
  t.equal((await s.send('GET', `${B}/credits`)).body.balance_minor, 1500)
  t.throws(() => runGrant(['--org', s.owner.organizationId, '--amount-minor', '12.5', '--reason', 'x', '--operator', 'o'], env), /usage/)
  t.throws(() => runGrant(['--org', s.owner.organizationId, '--amount-minor', '10', '--operator', 'o'], env), /usage/, 'a reason is required')
  t.throws(() => runGrant(['--org', 'nobody', '--amount-minor', '10', '--reason', 'x', '--operator', 'o'], env), /no such organization/)
  t.equal((await s.send('GET', `${B}/credits`)).body.balance_minor, 1500, 'the refused ones changed nothing')
})
