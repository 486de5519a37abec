import type { SipResponse } from '../../../sip/message/index.js'
import { response } from '../literal-messages.js'

export { parse, request, response } from '../literal-messages.js'

/** A REGISTER as a UA first sends it (§10.2), without credentials. */
export const REGISTER = [
  'REGISTER sip:registrar.biloxi.com SIP/2.0',
  'Via: SIP/2.0/UDP bobspc.biloxi.com:5060;branch=z9hG4bKnashds7',
  'Max-Forwards: 70',
  'To: Bob <sip:bob@biloxi.com>',
  'From: Bob <sip:bob@biloxi.com>;tag=456248',
  'Call-ID: 843817637684230@998sdasdh09',
  'CSeq: 1826 REGISTER',
  'Contact: <sip:bob@192.0.2.4>',
]

/** The 401 answering REGISTER, with `challenges` as WWW-Authenticate lines. */
export function unauthorized(challenges: readonly string[], status = 401): SipResponse {
  const field = status === 407 ? 'Proxy-Authenticate' : 'WWW-Authenticate'
  return response([
    `SIP/2.0 ${status} ${status === 407 ? 'Proxy Authentication Required' : 'Unauthorized'}`,
    'Via: SIP/2.0/UDP bobspc.biloxi.com:5060;branch=z9hG4bKnashds7;received=192.0.2.4',
    'To: Bob <sip:bob@biloxi.com>;tag=2493k59kd',
    'From: Bob <sip:bob@biloxi.com>;tag=456248',
    'Call-ID: 843817637684230@998sdasdh09',
    'CSeq: 1826 REGISTER',
    ...challenges.map((c) => `${field}: ${c}`),
  ])
}

/** A random source returning `bytes` every time (the cnonce is then its hex). */
export function fixedRandom(hex: string): (size: number) => Buffer {
  return (size) => Buffer.from(hex.padEnd(size * 2, '0').slice(0, size * 2), 'hex')
}
