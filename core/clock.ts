/** Injected wherever time decides an outcome (expiry, throttling) so tests can move it. */
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** A clock tests advance by hand. */
export class ManualClock implements Clock {
  constructor(private ms = Date.now()) {}
  now(): number {
    return this.ms
  }
  advance(ms: number): void {
    this.ms += ms
  }
}
