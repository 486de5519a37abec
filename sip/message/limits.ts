/**
 * Bounds on what the parser reads. Every limit reached is answered with a typed parse error, so
 * no input can make the parser allocate or scan past them. They also hold for the message as
 * serialize() writes it, so a message that parses parses again once written out.
 */
export interface SipLimits {
  /**
   * Largest message, start line to the end of the body, in bytes. A UDP datagram can carry at most
   * 65,507 bytes of payload, so the default admits any datagram; over TCP it caps the bytes the
   * stream parser buffers for one message.
   */
  readonly maxMessageBytes: number
  /**
   * Header field values after list splitting (a Via with three comma-separated values counts 3),
   * Content-Length included as one even when absent, since serialize() always writes it.
   */
  readonly maxHeaderCount: number
  /**
   * Bytes of the start line and of each header field line as received, and of each field value as
   * serialize() writes it ("Name: value", folded lines joined, one value of a list per line).
   */
  readonly maxLineBytes: number
  /** Via values: 71 is the originator plus 70 hops, the Max-Forwards a UAC starts with (§8.1.1.6). */
  readonly maxViaCount: number
}

export const DEFAULT_LIMITS: SipLimits = Object.freeze({
  maxMessageBytes: 65_536,
  maxHeaderCount: 256,
  maxLineBytes: 8_192,
  maxViaCount: 71,
})

export function resolveLimits(partial: Partial<SipLimits> = {}): SipLimits {
  const limits = { ...DEFAULT_LIMITS, ...partial }
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`SIP limit ${name} must be a positive integer, got ${value}`)
  }
  return limits
}
