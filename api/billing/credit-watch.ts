/**
 * Live calls against the credit balance. A live call's cost lands in the ledger only when it ends,
 * so while calls run each is watched: every CREDIT_CHECK_EVERY_MS the balance is compared with
 * what the organization's live calls in this process have spent so far; once nothing is left,
 * each of them is told (once) to say OUT_OF_CREDIT_LINE and end. The balance may so dip below 0
 * by at most one check interval of those calls plus their last reply (docs/billing.md).
 */

export const CREDIT_CHECK_EVERY_MS = 5000
export const OUT_OF_CREDIT_LINE = 'I am sorry, this account has run out of credit, so I have to end the call now. Goodbye.'

interface Watched {
  spent: () => number
  exhausted: () => void
  timer: NodeJS.Timeout
}

export class CreditWatches {
  private readonly live = new Map<string, Map<string, Watched>>()

  constructor(
    private readonly balance: (organizationId: string) => number,
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

  /** The organization's live calls' spend so far (all watched in this process). */
  spentBy(organizationId: string): number {
    let n = 0
    for (const w of this.live.get(organizationId)?.values() ?? []) n += w.spent()
    return n
  }

  /** Compares now (the timer's work; tests call it to skip the wait). */
  check(organizationId: string): void {
    const calls = this.live.get(organizationId)
    if (!calls?.size) return
    if (this.balance(organizationId) - this.spentBy(organizationId) > 0) return
    for (const [callId, w] of [...calls]) {
      this.stop(organizationId, callId)
      w.exhausted()
    }
  }

  private stop(organizationId: string, callId: string): void {
    const calls = this.live.get(organizationId)
    const w = calls?.get(callId)
    if (!w) return
    clearInterval(w.timer)
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
