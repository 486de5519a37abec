import { createHmac, timingSafeEqual } from 'node:crypto'

const TIME_BYTES = 8
const SALT_BYTES = 8
const MAC_BYTES = 16
const NONCE_BYTES = TIME_BYTES + SALT_BYTES + MAC_BYTES
/** 32 bytes in unpadded base64url. */
const NONCE_TEXT = /^[A-Za-z0-9_-]{43}$/
const LABEL = 'ozan sip digest nonce\0'

/** The shortest server secret accepted: the HMAC key should carry at least 256 bits. */
export const MIN_NONCE_SECRET_BYTES = 32

function mac(secret: Buffer, realm: string, body: Buffer): Buffer {
  return createHmac('sha256', secret).update(LABEL).update(realm).update('\0').update(body).digest().subarray(0, MAC_BYTES)
}

/**
 * A stateless nonce (RFC 2617 §3.2.1 suggests time-stamp ":" H(time-stamp ":" ETag ":" private-key)):
 * base64url(issue time in ms, 8 random bytes, HMAC-SHA-256(secret, realm, both) cut to 128 bits).
 * The server keeps nothing per nonce: the MAC proves it issued the nonce, for this realm, at that time.
 */
export function issueNonce(secret: Buffer, realm: string, issuedAtMs: number, salt: Buffer): string {
  if (salt.length !== SALT_BYTES) throw new RangeError(`nonce salt must be ${SALT_BYTES} bytes`)
  const body = Buffer.alloc(TIME_BYTES + SALT_BYTES)
  body.writeBigUInt64BE(BigInt(Math.max(0, Math.floor(issuedAtMs))))
  salt.copy(body, TIME_BYTES)
  return Buffer.concat([body, mac(secret, realm, body)]).toString('base64url')
}

/** The issue time of a nonce we issued for `realm`; undefined when malformed or its MAC fails. */
export function readNonce(secret: Buffer, realm: string, nonce: string): number | undefined {
  if (!NONCE_TEXT.test(nonce)) return undefined
  const bytes = Buffer.from(nonce, 'base64url')
  if (bytes.length !== NONCE_BYTES) return undefined
  const body = bytes.subarray(0, TIME_BYTES + SALT_BYTES)
  if (!timingSafeEqual(bytes.subarray(TIME_BYTES + SALT_BYTES), mac(secret, realm, body))) return undefined
  return Number(body.readBigUInt64BE())
}
