import type { Db } from '../database.js'

export interface WebCallTokenRow {
  jti: string
  organization_id: string
  environment_id: string
  /** Null for a transient call's token (call_id names the call). */
  workflow_id: string | null
  /** The pending call (POST /calls) this token opens; null for POST /calls/web-token. */
  call_id: string | null
  variables: string | null
  created_at: number
  expires_at: number
  consumed_at: number | null
}

export type ConsumeResult = { ok: true; row: WebCallTokenRow } | { ok: false; why: 'used' | 'expired' | 'unknown' }

/** Single-use records of minted web-call tokens. */
export class WebCallTokensRepo {
  private readonly insertStmt
  private readonly consumeStmt
  private readonly getStmt
  private readonly pruneStmt

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO web_call_tokens (jti, organization_id, environment_id, workflow_id, call_id, variables, created_at, expires_at)
       VALUES (@jti, @organization_id, @environment_id, @workflow_id, @call_id, @variables, @created_at, @expires_at)`,
    )
    this.getStmt = db.prepare<[string], WebCallTokenRow>('SELECT * FROM web_call_tokens WHERE jti = ?')
    // The binding columns are part of the WHERE so a row can only be used by the token minted for it.
    this.consumeStmt = db.prepare(
      `UPDATE web_call_tokens SET consumed_at = @now
       WHERE jti = @jti AND organization_id = @organization_id AND environment_id = @environment_id
         AND workflow_id IS @workflow_id AND call_id IS @call_id AND consumed_at IS NULL AND expires_at > @now`,
    )
    this.pruneStmt = db.prepare('DELETE FROM web_call_tokens WHERE expires_at <= ?')
  }

  insert(row: Omit<WebCallTokenRow, 'consumed_at'>): void {
    this.insertStmt.run(row)
  }

  /** Marks the token used; exactly one caller ever gets ok for a given jti. */
  consume(b: { jti: string; organization_id: string; environment_id: string; workflow_id: string | null; call_id: string | null }, now: number): ConsumeResult {
    return this.db.transaction((): ConsumeResult => {
      if (this.consumeStmt.run({ ...b, now }).changes === 1) return { ok: true, row: this.getStmt.get(b.jti)! }
      const row = this.getStmt.get(b.jti)
      if (
        !row ||
        row.organization_id !== b.organization_id ||
        row.environment_id !== b.environment_id ||
        row.workflow_id !== b.workflow_id ||
        row.call_id !== b.call_id
      ) {
        return { ok: false, why: 'unknown' }
      }
      return { ok: false, why: row.consumed_at !== null ? 'used' : 'expired' }
    })()
  }

  /** Deletes rows that expired before `before`; returns how many. */
  prune(before: number): number {
    return this.pruneStmt.run(before).changes
  }
}
