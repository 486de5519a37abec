import { createHmac, randomBytes } from 'node:crypto'

/**
 * Signing secrets and the X-Ozan-Signature header:
 *   t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>[,v1=<…with the previous secret>]
 * The HMAC key is the secret string itself (UTF-8), as shown to the user, so receivers paste it in
 * unchanged. During a rotation overlap the header carries one v1 per live secret, newest first;
 * verifiers accept any of them.
 */
export const SECRET_PREFIX = 'whsec_'

export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url')
}

export function signature(secret: string, timestampS: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestampS}.${body}`).digest('hex')
}

export function signatureHeader(secrets: readonly string[], timestampS: number, body: string): string {
  return [`t=${timestampS}`, ...secrets.map((s) => `v1=${signature(s, timestampS, body)}`)].join(',')
}
