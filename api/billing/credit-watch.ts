/**
 * Live calls against the credit balance. A live call's cost lands in the ledger only when it ends,
 * so while calls run each is watched: every CREDIT_CHECK_EVERY_MS the balance is compared with
 * what the organization's live calls have spent so far, in every process (LiveSpendLedger: each
 * process writes its own calls' spend and reads the total); once nothing is left, each of this
 * process's calls of the organization is told (once) to say OUT_OF_CREDIT_LINE and end, and every
 * other process tells its own at its next check. The balance may so dip below 0 by at most one
 * check interval of those calls plus their last reply (docs/billing.md).
 */

export const CREDIT_CHECK_EVERY_MS = 5000
export const OUT_OF_CREDIT_LINE = 'I am sorry, this account has run out of credit, so I have to end the call now. Goodbye.'

/** Where the processes sharing a database meet: each one's live calls' spend so far. */
export interface LiveSpendLedger {
  /** Stores these calls' spend (this process's calls of the organization) and returns the organization's total in every process. */
  record(organizationId: string, spends: readonly { callId: string; spentMinor: number }[]): number
  /** A call no longer watched here. */
  forget(callId: string): void
}

/** One process alone: the total is what its own calls spent. */
export const PROCESS_LOCAL_SPEND: LiveSpendLedger = {
  record: (_organizationId, spends) => spends.reduce((n, s) => n + s.spentMinor, 0),
  forget: () => {},
}

interface Watched {
  spent: () => number
  exhausted: () => void
  timer: NodeJS.Timeout
}

export class CreditWatches {
  private readonly live = new Map<string, Map<string, Watched>>()

  constructor(
    private readonly balance: (organizationId: string) => number,
    private readonly ledger: LiveSpendLedger = PROCESS_LOCAL_SPEND,
    private readonly everyMs = CREDIT_CHECK_EVERY_MS,
  ) {}

  /** Watches one call until the returned stop() (its end); `exhausted` is called at most once. */
  watch(organizationId: string, callId: string, spent: () => number, exhausted: () => void): () => void {
    const calls = this.live.get(organizationId) ?? new Map<string, Watched>()
    this.live.set(organizationId, calls)
    const timer = setInterval(() => this.check(organizationId), this.everyMs)
    timer.unref()
    calls.set(callId, { spent, exhausted, timer })
    return () => this.stop(organizationId, callId)
  }

  /** Compares now (the timer's work; tests call it to skip the wait). */
  check(organizationId: string): void {
    const calls = this.live.get(organizationId)
    if (!calls?.size) return
    const spends = [...calls].map(([callId, w]) => ({ callId, spentMinor: w.spent() }))
    if (this.balance(organizationId) - this.ledger.record(organizationId, spends) > 0) return
    for (const [callId, w] of [...calls]) {
      // Its spend stays in the ledger's live rows until the call's usage is settled, so other
      // processes still count it while it says its last line.
      this.stop(organizationId, callId, false)
      w.exhausted()
    }
  }

  private stop(organizationId: string, callId: string, forget = true): void {
    const calls = this.live.get(organizationId)
    const w = calls?.get(callId)
    if (!w) return
    clearInterval(w.timer)
    if (forget) this.ledger.forget(callId)
    calls!.delete(callId)
    if (calls!.size === 0) this.live.delete(organizationId)
  }
}

/** What ends a call for credit: the control bus the engine worker holding it listens on. */
export interface ControlPublisher {
  publish(callId: string, message: { action: 'say'; text: string; interrupt: boolean } | { action: 'end'; immediately: boolean }): Promise<number>
}

/** The call says OUT_OF_CREDIT_LINE (cutting what it was saying) and ends once it has been said. */
export function endForCredit(control: ControlPublisher, callId: string, onError: (err: unknown) => void): void {
  control
    .publish(callId, { action: 'say', text: OUT_OF_CREDIT_LINE, interrupt: true })
    .then(() => control.publish(callId, { action: 'end', immediately: false }))
    .catch(onError)
}
