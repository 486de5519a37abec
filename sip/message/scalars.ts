import { allIn, isToken, isWs, parseBoundedInt, skipWs, trimWs, WORD } from './charset.js'

/** 2**32 - 1: the largest CSeq number (§8.1.1.5), Expires and delta-seconds value (§20.19) accepted. */
export const MAX_UINT32 = 4294967295

/**
 * CSeq = 1*DIGIT LWS Method (§20.16). A number past 2**32 - 1 is malformed (RFC 4475 §3.1.2.4).
 */
export class CSeq {
  constructor(
    readonly seq: number,
    readonly method: string,
  ) {}

  serialize(): string {
    return `${this.seq} ${this.method}`
  }

  static parse(value: string): CSeq | undefined {
    let i = skipWs(value, 0)
    const start = i
    while (i < value.length && !isWs(value.charCodeAt(i))) i++
    const seq = parseBoundedInt(value.slice(start, i), MAX_UINT32)
    if (seq === undefined || i === value.length) return undefined
    const method = trimWs(value.slice(i))
    return isToken(method) ? new CSeq(seq, method) : undefined
  }
}

/** callid = word [ "@" word ] (§25.1). */
export function parseCallId(value: string): string | undefined {
  const at = value.indexOf('@')
  const valid = at < 0 ? allIn(WORD, value) : allIn(WORD, value.slice(0, at)) && allIn(WORD, value.slice(at + 1))
  return valid ? value : undefined
}

/** Max-Forwards = 1*DIGIT, 0-255 (§20.22); leading zeros allowed (RFC 4475 §3.1.1.1). */
export function parseMaxForwards(value: string): number | undefined {
  return parseBoundedInt(value, 255)
}

/** delta-seconds = 1*DIGIT (Expires §20.19, Min-Expires, Retry-After), at most 2**32 - 1. */
export function parseDeltaSeconds(value: string): number | undefined {
  return parseBoundedInt(value, MAX_UINT32)
}

const DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/**
 * Date = rfc1123-date (§20.17): wkday "," SP date1 SP time SP "GMT". Only GMT is allowed
 * (RFC 4475 §3.1.2.12). Returns the time in ms since the epoch.
 */
export function parseSipDate(value: string): number | undefined {
  const m = DATE.exec(value)
  if (!m) return undefined
  const [, , day, month, year, hh, mm, ss] = m as unknown as [string, string, string, string, string, string, string, string]
  const time = Date.UTC(Number(year), MONTHS.indexOf(month), Number(day), Number(hh), Number(mm), Number(ss))
  const check = new Date(time)
  if (check.getUTCDate() !== Number(day) || Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 60) return undefined
  return time
}

/** Content-Length = 1*DIGIT (§20.14); undefined when not a decimal number. */
export function parseContentLength(value: string): number | undefined {
  return parseBoundedInt(value, Number.MAX_SAFE_INTEGER)
}
