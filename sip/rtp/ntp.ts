/**
 * NTP timestamps (RFC 3550 §4): seconds since 1 January 1900 and a 32-bit binary fraction, taken
 * from an injected wall clock in Unix milliseconds. Only differences between them matter to RTCP
 * (round-trip time, §6.4.1), so a clock that is not synchronized is fine.
 */

/** Seconds from 1900-01-01 to 1970-01-01 (RFC 868). */
export const NTP_UNIX_OFFSET_S = 2_208_988_800

export interface NtpTimestamp {
  /** Whole seconds, modulo 2^32 (NTP era 1 starts in 2036; only the low 32 bits travel). */
  readonly seconds: number
  readonly fraction: number
}

export function ntpFromUnixMs(unixMs: number): NtpTimestamp {
  const wholeS = Math.floor(unixMs / 1000)
  const fraction = Math.floor(((unixMs - wholeS * 1000) / 1000) * 2 ** 32)
  return { seconds: (wholeS + NTP_UNIX_OFFSET_S) >>> 0, fraction: Math.min(fraction, 0xffffffff) >>> 0 }
}

/** The middle 32 bits (low 16 of the seconds, high 16 of the fraction): an SR's "LSR" (§6.4.1). */
export function ntpMiddle32(ntp: NtpTimestamp): number {
  return (((ntp.seconds & 0xffff) << 16) | (ntp.fraction >>> 16)) >>> 0
}

/** A duration in milliseconds in the units of DLSR and round-trip times: 1/65536 s. */
export function msToNtpShort(ms: number): number {
  return Math.max(0, Math.min(0xffffffff, Math.round((ms * 65536) / 1000))) >>> 0
}
