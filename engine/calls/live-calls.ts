/**
 * The live-call cap (spec: "a new call over the cap is refused, not queued"). Minting a web-call
 * token checks for room; connecting takes a slot, released when the call ends. This in-process
 * counter serves the single-process deployment; a Redis-backed one can implement the same interface.
 */
export interface LiveCalls {
  /** True when one more call of the organization fits under its cap. */
  hasRoom(organizationId: string): boolean
  /** Takes a slot, or null at the cap. The release function is idempotent. */
  acquire(organizationId: string): (() => void) | null
  count(organizationId: string): number
}

export class InProcessLiveCalls implements LiveCalls {
  private readonly live = new Map<string, number>()

  /** `capFor` returns the organization's cap, or null for no cap. */
  constructor(private readonly capFor: (organizationId: string) => number | null) {}

  count(organizationId: string): number {
    return this.live.get(organizationId) ?? 0
  }
  hasRoom(organizationId: string): boolean {
    const cap = this.capFor(organizationId)
    return cap === null || this.count(organizationId) < cap
  }
  acquire(organizationId: string): (() => void) | null {
    if (!this.hasRoom(organizationId)) return null
    this.live.set(organizationId, this.count(organizationId) + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const n = this.count(organizationId) - 1
      if (n > 0) this.live.set(organizationId, n)
      else this.live.delete(organizationId)
    }
  }
}
