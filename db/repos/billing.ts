import { randomUUID } from 'node:crypto'
import type { Db } from '../database.js'

/** What one ended session used (base units) and cost. */
export interface UsageRow {
  session_id: string
  organization_id: string
  environment_id: string
  workflow_id: string | null
  channel: string
  call_ms: number
  stt_audio_ms: number
  prompt_tokens: number
  completion_tokens: number
  tts_characters: number
  /** The itemised lines, JSON. */
  items: string
  amount_minor: number
  currency: string
  ended_at: number
}

/** The usage summary lists at most this many agents (the most expensive first). */
export const MAX_AGENTS_IN_SUMMARY = 1000

export interface UsageSummary {
  sessions: number
  amount_minor: number
  byProvider: { service_type: string; provider: string; unit: string; base_quantity: number; amount_minor: number }[]
  byAgent: { workflow_id: string | null; workflow_name: string | null; sessions: number; call_ms: number; amount_minor: number }[]
}

export type CreditKind = 'topup' | 'grant' | 'usage'

export interface CreditRow {
  id: string
  seq: number
  organization_id: string
  kind: CreditKind
  amount_minor: number
  balance_after_minor: number
  currency: string
  description: string
  session_id: string | null
  provider: string | null
  external_id: string | null
  created_by_user: string | null
  created_at: number
}

export type NewCredit = Pick<CreditRow, 'organization_id' | 'kind' | 'amount_minor' | 'currency' | 'description' | 'created_at'> &
  Partial<Pick<CreditRow, 'session_id' | 'provider' | 'external_id' | 'created_by_user'>>

export interface TopupRow {
  id: string
  organization_id: string
  provider: string
  amount_minor: number
  currency: string
  status: 'pending' | 'paid'
  external_id: string | null
  created_by_user: string | null
  created_by_key: string | null
  created_at: number
  paid_at: number | null
}

/** A live call's spend so far, in minor units. */
export interface LiveSpend {
  callId: string
  spentMinor: number
}

/**
 * Usage rows, the append-only credit ledger, top-ups and handled payment events. Ledger writes run
 * in IMMEDIATE transactions: the write lock is taken before the balance is read, so two writers
 * (threads, processes) never both read the same balance and the chain of balance_after_minor holds.
 */
export class BillingRepo {
  private readonly insertUsageStmt
  private readonly lastStmt
  private readonly insertCreditStmt
  private readonly usageOnceStmt
  private readonly paidOnceStmt
  private readonly eventSeenStmt
  private readonly insertEventStmt
  private readonly appendTx
  private readonly settleTx
  private readonly forgetLiveStmt
  private readonly upsertLiveStmt
  private readonly sweepLiveStmt
  private readonly sumLiveStmt
  private readonly recordLiveTx

  constructor(private readonly db: Db) {
    this.insertUsageStmt = db.prepare(`INSERT OR IGNORE INTO billing_usage (session_id, organization_id, environment_id, workflow_id, channel,
      call_ms, stt_audio_ms, prompt_tokens, completion_tokens, tts_characters, items, amount_minor, currency, ended_at)
      VALUES (@session_id, @organization_id, @environment_id, @workflow_id, @channel, @call_ms, @stt_audio_ms, @prompt_tokens,
      @completion_tokens, @tts_characters, @items, @amount_minor, @currency, @ended_at)`)
    // The newest row's balance_after is the ledger's sum (each row is written as the sum before it
    // plus its amount, under the write lock): one index step instead of summing every row.
    this.lastStmt = db.prepare('SELECT seq, balance_after_minor FROM credit_transactions WHERE organization_id = ? ORDER BY seq DESC LIMIT 1')
    this.insertCreditStmt = db.prepare(`INSERT INTO credit_transactions (id, seq, organization_id, kind, amount_minor, balance_after_minor, currency,
      description, session_id, provider, external_id, created_by_user, created_at)
      VALUES (@id, @seq, @organization_id, @kind, @amount_minor, @balance_after_minor, @currency, @description, @session_id, @provider,
      @external_id, @created_by_user, @created_at)`)
    this.usageOnceStmt = db.prepare("SELECT 1 FROM credit_transactions WHERE session_id = ? AND kind = 'usage'")
    this.paidOnceStmt = db.prepare('SELECT 1 FROM credit_transactions WHERE provider = ? AND external_id = ?')
    this.eventSeenStmt = db.prepare('SELECT 1 FROM billing_events WHERE provider = ? AND event_id = ?')
    this.insertEventStmt = db.prepare('INSERT INTO billing_events (provider, event_id, type, received_at) VALUES (?, ?, ?, ?)')
    this.appendTx = db.transaction((c: NewCredit) => this.appendNow(c))
    this.forgetLiveStmt = db.prepare('DELETE FROM live_call_spend WHERE call_id = ?')
    this.upsertLiveStmt = db.prepare(`INSERT INTO live_call_spend (call_id, organization_id, spent_minor, updated_at)
      VALUES (@callId, @organizationId, @spentMinor, @now)
      ON CONFLICT (call_id) DO UPDATE SET spent_minor = excluded.spent_minor, updated_at = excluded.updated_at`)
    this.sweepLiveStmt = db.prepare('DELETE FROM live_call_spend WHERE organization_id = ? AND updated_at < ?')
    this.sumLiveStmt = db.prepare('SELECT coalesce(sum(spent_minor), 0) AS s FROM live_call_spend WHERE organization_id = ?')
    this.recordLiveTx = db.transaction((organizationId: string, spends: readonly LiveSpend[], now: number, staleBefore: number) => {
      for (const sp of spends) this.upsertLiveStmt.run({ organizationId, callId: sp.callId, spentMinor: Math.max(0, Math.round(sp.spentMinor)), now })
      this.sweepLiveStmt.run(organizationId, staleBefore)
      return (this.sumLiveStmt.get(organizationId) as { s: number }).s
    })
    this.settleTx = db.transaction((u: UsageRow, debit: NewCredit | null) => {
      // The call's spend moves from live to the ledger at once: never counted twice, never missed.
      this.forgetLiveStmt.run(u.session_id)
      // Inserted once per session: a second settle of the same session changes nothing.
      if (this.insertUsageStmt.run(u).changes === 0) return null
      return debit ? this.appendNow(debit) : null
    })
  }

  /** The organization's balance: the ledger's sum. */
  balance(organizationId: string): number {
    return this.last(organizationId).balance_after_minor
  }

  private last(organizationId: string): { seq: number; balance_after_minor: number } {
    return (this.lastStmt.get(organizationId) as { seq: number; balance_after_minor: number } | undefined) ?? { seq: 0, balance_after_minor: 0 }
  }

  /**
   * Appends one ledger row with its balance after; null when it was appended before (the same
   * session's usage, the same provider payment), so a retry or a replay never counts twice.
   */
  append(c: NewCredit): CreditRow | null {
    return this.appendTx.immediate(c)
  }

  /**
   * Writes what this process's live calls of an organization have spent so far, drops the rows
   * older than `staleBefore` (a dead process's), and returns the organization's live spend across
   * every process.
   */
  recordLiveSpend(organizationId: string, spends: readonly LiveSpend[], now: number, staleBefore: number): number {
    return this.recordLiveTx.immediate(organizationId, spends, now, staleBefore)
  }

  /** A call this process no longer watches (ended, or told to end). */
  forgetLiveSpend(callId: string): void {
    this.forgetLiveStmt.run(callId)
  }

  /** Records a session's usage and, when given, its debit, in one transaction; null when already recorded. */
  settle(u: UsageRow, debit: NewCredit | null): CreditRow | null {
    return this.settleTx.immediate(u, debit)
  }

  private appendNow(c: NewCredit): CreditRow | null {
    if (c.kind === 'usage' && c.session_id && this.usageOnceStmt.get(c.session_id)) return null
    if (c.provider && c.external_id && this.paidOnceStmt.get(c.provider, c.external_id)) return null
    const last = this.last(c.organization_id)
    const row: CreditRow = {
      id: randomUUID(),
      seq: last.seq + 1,
      balance_after_minor: last.balance_after_minor + c.amount_minor,
      session_id: null,
      provider: null,
      external_id: null,
      created_by_user: null,
      ...c,
    }
    this.insertCreditStmt.run(row)
    return row
  }

  transactions(organizationId: string, at: { limit: number; offset: number }): { items: CreditRow[]; total: number } {
    const items = this.db
      .prepare('SELECT * FROM credit_transactions WHERE organization_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?')
      .all(organizationId, at.limit, at.offset) as CreditRow[]
    const total = (this.db.prepare('SELECT count(*) AS n FROM credit_transactions WHERE organization_id = ?').get(organizationId) as { n: number }).n
    return { items, total }
  }

  lastTransactionAt(organizationId: string): number | null {
    const r = this.db.prepare('SELECT max(created_at) AS at FROM credit_transactions WHERE organization_id = ?').get(organizationId) as { at: number | null }
    return r.at
  }

  usage(sessionId: string): UsageRow | undefined {
    return this.db.prepare('SELECT * FROM billing_usage WHERE session_id = ?').get(sessionId) as UsageRow | undefined
  }

  /**
   * The organization's usage that ended in [since, until), summed in SQL (a period may hold
   * millions of sessions; what comes back is one row per provider and unit, and one per agent).
   */
  usageSummary(organizationId: string, since: number, until: number): UsageSummary {
    const args = { org: organizationId, since, until }
    const where = 'u.organization_id = @org AND u.ended_at >= @since AND u.ended_at < @until'
    const totals = this.db
      // A post-call analysis or a test case has its own row (channel 'analysis', 'test'): priced, but not a session.
      .prepare(
        `SELECT coalesce(sum(u.channel NOT IN ('analysis', 'test')), 0) AS sessions, coalesce(sum(amount_minor), 0) AS amount_minor FROM billing_usage u WHERE ${where}`,
      )
      .get(args) as {
      sessions: number
      amount_minor: number
    }
    const byProvider = this.db
      .prepare(
        `SELECT json_extract(i.value, '$.service_type') AS service_type, json_extract(i.value, '$.provider') AS provider,
           json_extract(i.value, '$.unit') AS unit, sum(json_extract(i.value, '$.base_quantity')) AS base_quantity,
           sum(json_extract(i.value, '$.amount_minor')) AS amount_minor
         FROM billing_usage u, json_each(u.items) i WHERE ${where} GROUP BY 1, 2, 3 ORDER BY 5 DESC, 1, 2, 3`,
      )
      .all(args) as UsageSummary['byProvider']
    const byAgent = this.db
      .prepare(
        `SELECT u.workflow_id, w.name AS workflow_name, sum(u.channel NOT IN ('analysis', 'test')) AS sessions, sum(u.call_ms) AS call_ms, sum(u.amount_minor) AS amount_minor
         FROM billing_usage u LEFT JOIN workflows w ON w.id = u.workflow_id WHERE ${where}
         GROUP BY u.workflow_id ORDER BY amount_minor DESC, u.workflow_id LIMIT ${MAX_AGENTS_IN_SUMMARY}`,
      )
      .all(args) as UsageSummary['byAgent']
    return { ...totals, byProvider, byAgent }
  }

  insertTopup(t: TopupRow): void {
    this.db
      .prepare(`INSERT INTO credit_topups (id, organization_id, provider, amount_minor, currency, status, external_id, created_by_user, created_by_key,
        created_at, paid_at) VALUES (@id, @organization_id, @provider, @amount_minor, @currency, @status, @external_id, @created_by_user,
        @created_by_key, @created_at, @paid_at)`)
      .run(t)
  }

  setTopupExternalId(id: string, externalId: string): void {
    this.db.prepare('UPDATE credit_topups SET external_id = ? WHERE id = ?').run(externalId, id)
  }

  discardTopup(id: string): void {
    this.db.prepare("DELETE FROM credit_topups WHERE id = ? AND status = 'pending'").run(id)
  }

  topup(id: string): TopupRow | undefined {
    return this.db.prepare('SELECT * FROM credit_topups WHERE id = ?').get(id) as TopupRow | undefined
  }

  /**
   * Handles a provider's payment event once: `apply` runs inside the same immediate transaction
   * that records the event id, so a replayed event (or two deliveries at once) applies nothing.
   * Returns false when the event had been handled before.
   */
  onceForEvent(provider: string, eventId: string, type: string, now: number, apply: () => void): boolean {
    return this.db
      .transaction(() => {
        if (this.eventSeenStmt.get(provider, eventId)) return false
        this.insertEventStmt.run(provider, eventId, type, now)
        apply()
        return true
      })
      .immediate()
  }

  markTopupPaid(id: string, now: number): boolean {
    return this.db.prepare("UPDATE credit_topups SET status = 'paid', paid_at = ? WHERE id = ? AND status = 'pending'").run(now, id).changes === 1
  }
}
