// A separate process writing to the ledger (ledger.test.ts runs several at once on one file).
// Args: <db file> <organization id> <label> <count>. Prints one JSON line: what it appended.
import { openDatabase } from '../../../db/index.js'
import { BillingRepo } from '../../../db/repos/billing.js'

const [file, org, label, count] = process.argv.slice(2) as [string, string, string, string]
const repo = new BillingRepo(openDatabase(file))
let sum = 0
let appended = 0
for (let i = 0; i < Number(count); i++) {
  // Own debits, a credit now and then, and sessions every writer races to settle (only one may debit each).
  const shared = i % 5 === 0
  const sessionId = shared ? `shared-${i}` : `${label}-${i}`
  const amount = 1 + ((i * 7) % 13)
  const usage = {
    session_id: sessionId,
    organization_id: org,
    environment_id: 'env',
    workflow_id: null,
    channel: 'web',
    call_ms: 1000,
    stt_audio_ms: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    tts_characters: 0,
    items: '[]',
    amount_minor: amount,
    currency: 'usd',
    ended_at: Date.now(),
  }
  const debit = {
    organization_id: org,
    kind: 'usage' as const,
    amount_minor: -amount,
    currency: 'usd',
    description: 'usage',
    session_id: sessionId,
    created_at: Date.now(),
  }
  const row = repo.settle(usage, debit)
  if (row) {
    sum += row.amount_minor
    appended++
  }
  if (i % 10 === 0) {
    const credit = repo.append({ organization_id: org, kind: 'grant', amount_minor: 50, currency: 'usd', description: 'grant', created_at: Date.now() })
    sum += credit!.amount_minor
    appended++
  }
}
process.stdout.write(`${JSON.stringify({ label, sum, appended })}\n`)
