import { type SipMessage, SipRequest } from '../../../sip/index.js'

/** What a message is, as plain data: start line, fields in order, body. Two equal structures are one message. */
export function structure(message: SipMessage): unknown {
  const start = message instanceof SipRequest ? { method: message.method, uri: message.uri.serialize() } : { status: message.status, reason: message.reason }
  return { ...start, headers: message.headers.toArray().map((h) => [h.name, h.value]), body: message.body.toString('hex') }
}
