import { parseSipMessage, SipRequest, SipResponse } from '../../sip/message/index.js'

// Literal SIP text in tests: RFC examples written line by line, parsed as the wire would be.

/** Parses literal SIP text (lines joined with CRLF, Content-Length added) into a request or response. */
export function parse(lines: readonly string[], body = ''): SipRequest | SipResponse {
  const text = `${lines.join('\r\n')}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  const result = parseSipMessage(Buffer.from(text))
  if (!result.ok) throw new Error(result.error.reason)
  return result.message
}

export function request(lines: readonly string[], body = ''): SipRequest {
  const message = parse(lines, body)
  if (!(message instanceof SipRequest)) throw new Error('not a request')
  return message
}

export function response(lines: readonly string[], body = ''): SipResponse {
  const message = parse(lines, body)
  if (!(message instanceof SipResponse)) throw new Error('not a response')
  return message
}
