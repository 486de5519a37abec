import { parseSdp, type SessionDescription } from '../../../sip/sdp/index.js'
import { crlf } from './fixtures.js'

/** Our side in the offer/answer tests. */
export const US = { address: '198.51.100.7', port: 40000, sessionId: 42, version: 1 } as const

export function parsed(text: string): SessionDescription {
  const result = parseSdp(text)
  if (!result.ok) throw new Error(`expected to parse: ${result.error.code} at line ${result.error.line}`)
  return result.sdp
}

/** A peer's description: a session head at 203.0.113.9, then the lines given. */
export function peer(lines: readonly string[], { version = 1, head = [] as string[] } = {}): SessionDescription {
  return parsed(crlf('v=0', `o=peer 7 ${version} IN IP4 203.0.113.9`, 's=-', 'c=IN IP4 203.0.113.9', 't=0 0', ...head, ...lines))
}
