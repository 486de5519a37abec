/**
 * Key presses as turns the graph hears (issue #21 item 6): digits gather into one entry until `#`
 * (which ends it and is not part of it) or a pause of DTMF_INTER_DIGIT_MS, as IVRs take "press 1"
 * or an account number. The entry is then a user turn like words (`endOfTurn`), so a collect node
 * takes "1" or "4711" the way it takes speech. Pure: the caller passes the time.
 */
export const DTMF_INTER_DIGIT_MS = 2000
/** Longest entry kept; further digits are dropped (a stuck key must not grow a turn). */
export const MAX_DTMF_DIGITS = 32

const DIGIT = /^[0-9*A-D]$/

export class DtmfEntry {
  #digits = ''
  #dueAt: number | null = null

  /** When the pending entry ends for lack of another key (clock ms), or null. */
  get dueAt(): number | null {
    return this.#dueAt
  }

  /** Keys pressed (one, or several from a web client); returns an entry `#` completed, else null. */
  press(keys: string, now: number): string | null {
    let done: string | null = null
    for (const key of keys.toUpperCase()) {
      if (key === '#' && done === null) done = this.#take() ?? '#'
      else if (DIGIT.test(key) && this.#digits.length < MAX_DTMF_DIGITS) this.#digits += key
    }
    this.#dueAt = this.#digits ? now + DTMF_INTER_DIGIT_MS : null
    return done
  }

  /** The entry, once the pause after its last key is over. */
  due(now: number): string | null {
    return this.#dueAt !== null && now >= this.#dueAt ? this.#take() : null
  }

  #take(): string | null {
    const entry = this.#digits
    this.#digits = ''
    this.#dueAt = null
    return entry || null
  }
}

/** The earliest of four optional deadlines; fixed arity, so a call every frame allocates nothing. */
export function earliest(a: number | null, b: number | null, c: number | null, d: number | null): number | null {
  let at = a
  if (b !== null && (at === null || b < at)) at = b
  if (c !== null && (at === null || c < at)) at = c
  if (d !== null && (at === null || d < at)) at = d
  return at
}
