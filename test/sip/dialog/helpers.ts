import type { SipRequest, SipResponse } from '../../../sip/message/index.js'

export { request, response } from '../literal-messages.js'

/** The header lines of a message as written, for comparing with an RFC's example. */
export function lines(message: SipRequest | SipResponse): string[] {
  return message.serialize().toString().split('\r\n')
}

/** RFC 3261 §24.2 F1: Alice's INVITE (as sent to her proxy; it has no Route). */
export const RFC3261_INVITE = [
  'INVITE sip:bob@biloxi.com SIP/2.0',
  'Via: SIP/2.0/UDP pc33.atlanta.com;branch=z9hG4bKnashds8',
  'Max-Forwards: 70',
  'To: Bob <sip:bob@biloxi.com>',
  'From: Alice <sip:alice@atlanta.com>;tag=1928301774',
  'Call-ID: a84b4c76e66710',
  'CSeq: 314159 INVITE',
  'Contact: <sip:alice@pc33.atlanta.com>',
  'Content-Type: application/sdp',
]

/** RFC 3261 §24.2 F9: Bob's 200 OK as Alice receives it (no proxy record-routed). */
export const RFC3261_200 = [
  'SIP/2.0 200 OK',
  'Via: SIP/2.0/UDP pc33.atlanta.com;branch=z9hG4bKnashds8;received=192.0.2.1',
  'To: Bob <sip:bob@biloxi.com>;tag=a6c85cf',
  'From: Alice <sip:alice@atlanta.com>;tag=1928301774',
  'Call-ID: a84b4c76e66710',
  'CSeq: 314159 INVITE',
  'Contact: <sip:bob@192.0.2.4>',
  'Content-Type: application/sdp',
]

/** RFC 3665 §3.2 F1: Alice's INVITE through two record-routing proxies. */
export const RFC3665_INVITE = [
  'INVITE sip:bob@biloxi.example.com SIP/2.0',
  'Via: SIP/2.0/TCP client.atlanta.example.com:5060;branch=z9hG4bK74bf9',
  'Max-Forwards: 70',
  'From: Alice <sip:alice@atlanta.example.com>;tag=9fxced76sl',
  'To: Bob <sip:bob@biloxi.example.com>',
  'Call-ID: 3848276298220188511@atlanta.example.com',
  'CSeq: 1 INVITE',
  'Contact: <sip:alice@client.atlanta.example.com;transport=tcp>',
]

/** RFC 3665 §3.2: the 2xx as Alice receives it, Record-Route in the order the proxies wrote it. */
export function rfc3665Response(status = '200 OK', extra: readonly string[] = []): string[] {
  return [
    `SIP/2.0 ${status}`,
    'Via: SIP/2.0/TCP client.atlanta.example.com:5060;branch=z9hG4bK74bf9;received=192.0.2.101',
    'Record-Route: <sip:ss2.biloxi.example.com;lr>, <sip:ss1.atlanta.example.com;lr>',
    'From: Alice <sip:alice@atlanta.example.com>;tag=9fxced76sl',
    'To: Bob <sip:bob@biloxi.example.com>;tag=314159',
    'Call-ID: 3848276298220188511@atlanta.example.com',
    'CSeq: 1 INVITE',
    'Contact: <sip:bob@client.biloxi.example.com;transport=tcp>',
    ...extra,
  ]
}

/** RFC 3665 §3.2 F4 as Bob receives it: the INVITE with both proxies' Record-Route. */
export const RFC3665_INVITE_AT_BOB = [
  'INVITE sip:bob@client.biloxi.example.com SIP/2.0',
  'Via: SIP/2.0/TCP ss2.biloxi.example.com:5060;branch=z9hG4bK721e4.1',
  'Via: SIP/2.0/TCP ss1.atlanta.example.com:5060;branch=z9hG4bK2d4790.1;received=192.0.2.111',
  'Via: SIP/2.0/TCP client.atlanta.example.com:5060;branch=z9hG4bK74bf9;received=192.0.2.101',
  'Max-Forwards: 68',
  'Record-Route: <sip:ss2.biloxi.example.com;lr>, <sip:ss1.atlanta.example.com;lr>',
  'From: Alice <sip:alice@atlanta.example.com>;tag=9fxced76sl',
  'To: Bob <sip:bob@biloxi.example.com>',
  'Call-ID: 3848276298220188511@atlanta.example.com',
  'CSeq: 1 INVITE',
  'Contact: <sip:alice@client.atlanta.example.com;transport=tcp>',
]
