/**
 * Verifies Ozan webhook deliveries.
 *
 * A delivery is signed as `X-Ozan-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>` over the bytes
 * `"<t>.<raw body>"`, keyed with the endpoint's whole signing secret (`whsec_…`, used as UTF-8
 * text, not decoded). While the platform rotates a secret the header carries two `v1=` entries.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

export const DEFAULT_TOLERANCE_S = 300

export interface WebhookEvent {
  event: string
  data: Record<string, unknown>
}

export type WebhookVerificationErrorCode =
  | 'missing_header'
  | 'malformed_header'
  | 'no_matching_signature'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'malformed_body'

export class WebhookVerificationError extends Error {
  readonly code: WebhookVerificationErrorCode

  constructor(code: WebhookVerificationErrorCode, message: string) {
    super(message)
    this.name = 'WebhookVerificationError'
    this.code = code
  }
}

export interface VerifyOptions {
  /** How far, in seconds, the signed timestamp may be from now in either direction. */
  toleranceS?: number
  /** The current time in unix seconds; for tests. */
  now?: () => number
}

export type RawBody = string | Buffer | Uint8Array

/**
 * Checks the signature and timestamp of one delivery and returns its parsed JSON body.
 *
 * `rawBody` must be the bytes exactly as received: JSON that was parsed and re-serialized will not
 * match. `secret` may be several secrets, so a receiver can roll its own configuration over
 * without dropping deliveries. Throws `WebhookVerificationError`.
 */
export function verifyWebhook(
  rawBody: RawBody,
  signatureHeader: string | null | undefined,
  secret: string | string[],
  options: VerifyOptions = {},
): WebhookEvent {
  const secrets = secretList(secret)
  const toleranceS = options.toleranceS ?? DEFAULT_TOLERANCE_S
  if (!Number.isFinite(toleranceS) || toleranceS < 0) {
    throw new RangeError('toleranceS must be a finite number of seconds, 0 or more')
  }
  // Only spaces and tabs count as blank, the same set the Python library strips.
  if (signatureHeader == null || /^[ \t]*$/.test(signatureHeader)) {
    throw new WebhookVerificationError('missing_header', 'The X-Ozan-Signature header is missing')
  }
  const { timestamp, signatures } = parseHeader(signatureHeader)
  const body = toBuffer(rawBody)

  // The signature is checked before the timestamp so that a forged or replayed-and-edited header
  // is reported as forged, and so the timestamp we then trust is one the platform signed.
  const matched = secrets.some((s) => {
    const expected = hmac(s, timestamp, body)
    return signatures.some((sig) => sig.length === expected.length && timingSafeEqual(sig, expected))
  })
  if (!matched) {
    throw new WebhookVerificationError('no_matching_signature', 'No signature matches the secret')
  }

  const now = options.now ? options.now() : Date.now() / 1000
  const t = Number(timestamp)
  if (t < now - toleranceS) {
    throw new WebhookVerificationError('timestamp_too_old', 'The signed timestamp is outside the tolerance')
  }
  if (t > now + toleranceS) {
    throw new WebhookVerificationError('timestamp_in_future', 'The signed timestamp is in the future')
  }

  return parseBody(body)
}

/**
 * Returns an `X-Ozan-Signature` value for `rawBody`, as the platform would send it; for a
 * receiver's own tests. Several secrets give several `v1=` entries, as during a rotation.
 */
export function signPayload(rawBody: RawBody, secret: string | string[], timestampS: number): string {
  if (!Number.isSafeInteger(timestampS) || timestampS < 0) {
    throw new RangeError('timestampS must be a whole number of unix seconds')
  }
  const t = String(timestampS)
  const body = toBuffer(rawBody)
  const v1 = secretList(secret).map((s) => `v1=${hmac(s, t, body).toString('hex')}`)
  return [`t=${t}`, ...v1].join(',')
}

interface ParsedHeader {
  /** As written in the header: the signed bytes use this text, not a re-formatted number. */
  timestamp: string
  signatures: Buffer[]
}

const DIGITS = /^[0-9]+$/
const SHA256_HEX = /^[0-9a-fA-F]{64}$/

/**
 * Parts are split on commas and may have spaces or tabs around them (some proxies re-fold
 * headers). Every part must be `key=value`; keys other than `t` and `v1` are future schemes
 * and are skipped.
 */
function parseHeader(header: string): ParsedHeader {
  let timestamp: string | undefined
  const signatures: Buffer[] = []
  let v1Count = 0
  for (const raw of header.split(',')) {
    const part = raw.replace(/^[ \t]+|[ \t]+$/g, '')
    const eq = part.indexOf('=')
    if (eq <= 0 || eq === part.length - 1) throw malformed(`"${part}" is not key=value`)
    const key = part.slice(0, eq)
    const value = part.slice(eq + 1)
    if (key === 't') {
      if (timestamp !== undefined) throw malformed('more than one t=')
      if (!DIGITS.test(value)) throw malformed('t= is not a whole number of seconds')
      timestamp = value
    } else if (key === 'v1') {
      v1Count++
      // Buffer.from(…, 'hex') silently drops bad characters, so anything that is not exactly a
      // SHA-256 in hex is left out: it can never match, and it is not worth failing the others.
      if (SHA256_HEX.test(value)) signatures.push(Buffer.from(value, 'hex'))
    }
  }
  if (timestamp === undefined) throw malformed('no t=')
  if (v1Count === 0) throw malformed('no v1=')
  return { timestamp, signatures }
}

function parseBody(body: Buffer): WebhookEvent {
  let parsed: unknown
  try {
    // fatal: invalid UTF-8 is an error rather than U+FFFD; ignoreBOM keeps a BOM so JSON.parse
    // rejects it, as Python's json does.
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body))
  } catch {
    throw new WebhookVerificationError('malformed_body', 'The body is not UTF-8 JSON')
  }
  if (!isObject(parsed) || typeof parsed.event !== 'string' || !isObject(parsed.data)) {
    throw new WebhookVerificationError('malformed_body', 'The body is not {"event": string, "data": object}')
  }
  return parsed as unknown as WebhookEvent
}

function hmac(secret: string, timestamp: string, body: Buffer): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest()
}

function secretList(secret: string | string[]): string[] {
  const list = Array.isArray(secret) ? secret : [secret]
  // An empty key would let anyone sign, so it is a setup mistake rather than a failed delivery.
  if (list.length === 0 || list.some((s) => typeof s !== 'string' || s === '')) {
    throw new TypeError('secret must be a non-empty string or a non-empty list of them')
  }
  return list
}

function toBuffer(body: RawBody): Buffer {
  if (typeof body === 'string') return Buffer.from(body, 'utf8')
  if (Buffer.isBuffer(body)) return body
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength)
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function malformed(why: string): WebhookVerificationError {
  return new WebhookVerificationError('malformed_header', `The X-Ozan-Signature header is malformed: ${why}`)
}
