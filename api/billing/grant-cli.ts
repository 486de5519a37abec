/**
 * The manual provider's operator side: grants (or, with a negative amount, takes back) credit by
 * hand, in the ledger and the audit trail. Run where the server's database is (same OZAN_* env):
 *
 *   npx tsx api/billing/grant-cli.ts --org <organization id> --amount-minor 5000 \
 *     --reason "invoice 42 paid" --operator alice@example.com [--topup <topup id>]
 *
 * A second writer beside a running server is safe: WAL, busy_timeout and the ledger's IMMEDIATE
 * transactions serialise it with the server's own writes.
 */
import { parseArgs } from 'node:util'
import { createLogger, loadConfig, systemClock } from '../../core/index.js'
import { createRepos, openDatabase } from '../../db/index.js'
import { Auditor } from '../audit/auditor.js'
import { createBilling } from './wiring.js'

export function runGrant(argv: string[], env: NodeJS.ProcessEnv = process.env): string {
  const { values } = parseArgs({
    args: argv,
    options: {
      org: { type: 'string' },
      'amount-minor': { type: 'string' },
      reason: { type: 'string' },
      operator: { type: 'string' },
      topup: { type: 'string' },
    },
    strict: true,
  })
  const amount = Number(values['amount-minor'])
  if (!values.org || !values.reason || !values.operator || !/^-?\d+$/.test(values['amount-minor'] ?? ''))
    throw new RangeError('usage: --org <id> --amount-minor <integer> --reason <text> --operator <name> [--topup <id>]')
  const config = loadConfig(env)
  const db = openDatabase(config.databaseFile)
  try {
    const repos = createRepos(db)
    const billing = createBilling({ db, repos, config, clock: systemClock, auditor: new Auditor(repos, systemClock), logger: createLogger('silent') })
    const row = billing.grant({
      organizationId: values.org,
      amountMinor: amount,
      reason: values.reason,
      operator: values.operator,
      ...(values.topup !== undefined && { topupId: values.topup }),
    })
    return JSON.stringify({ id: row.id, amount_minor: row.amount_minor, balance_after_minor: row.balance_after_minor, currency: row.currency })
  } finally {
    db.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.stdout.write(`${runGrant(process.argv.slice(2))}\n`)
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`)
    process.exit(1)
  }
}
