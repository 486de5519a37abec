/**
 * The telephone-event payload (RFC 4733 §2.3): event (8 bits), E (end), R (reserved), volume
 * (6 bits, -dBm0), duration (16 bits, in timestamp units).
 */

/** DTMF events 0-15 (RFC 4733 §3.2, Table 7): 0-9, then *, #, A, B, C, D. */
export const DTMF_DIGITS = '0123456789*#ABCD'

export type DtmfDigit = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9' | '*' | '#' | 'A' | 'B' | 'C' | 'D'

export const TELEPHONE_EVENT_BYTES = 4
/** The largest duration field; RFC 4733 splits a longer event into segments with new timestamps. */
export const MAX_EVENT_DURATION = 0xffff

export interface TelephoneEventInit {
  readonly event: number
  readonly end: boolean
  /** 0-63, the power level as -dBm0 (§2.3.4); ignored by receivers of DTMF here. */
  readonly volume: number
  readonly duration: number
}

export class TelephoneEvent implements TelephoneEventInit {
  readonly event: number
  readonly end: boolean
  readonly volume: number
  readonly duration: number

  constructor(init: TelephoneEventInit) {
    if (!Number.isInteger(init.event) || init.event < 0 || init.event > 255) throw new RangeError(`event ${init.event}`)
    if (!Number.isInteger(init.volume) || init.volume < 0 || init.volume > 63) throw new RangeError(`volume ${init.volume}`)
    if (!Number.isInteger(init.duration) || init.duration < 0 || init.duration > MAX_EVENT_DURATION) throw new RangeError(`duration ${init.duration}`)
    this.event = init.event
    this.end = init.end
    this.volume = init.volume
    this.duration = init.duration
  }

  /** The DTMF digit this event is, or undefined for other events (flash, tones). */
  get digit(): DtmfDigit | undefined {
    return this.event < DTMF_DIGITS.length ? (DTMF_DIGITS[this.event] as DtmfDigit) : undefined
  }

  serialize(): Uint8Array {
    // §2.3.3: the R bit MUST be zero when sent.
    return Uint8Array.of(this.event, (this.end ? 0x80 : 0) | this.volume, this.duration >>> 8, this.duration & 0xff)
  }

  /**
   * Reads the first event of a payload. RFC 4733 lets a payload carry several 4-octet events;
   * only the first is read here: senders of plain DTMF put one.
   */
  static deserialize(payload: Uint8Array): TelephoneEvent | undefined {
    if (payload.length < TELEPHONE_EVENT_BYTES) return undefined
    return new TelephoneEvent({
      event: payload[0]!,
      end: (payload[1]! & 0x80) !== 0,
      volume: payload[1]! & 0x3f, // the R bit is ignored on receipt (§2.3.3)
      duration: (payload[2]! << 8) | payload[3]!,
    })
  }

  static eventOf(digit: DtmfDigit): number {
    return DTMF_DIGITS.indexOf(digit)
  }
}
