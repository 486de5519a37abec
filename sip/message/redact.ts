import type { SipMessage } from './message.js'
import { SipRequest } from './message.js'
import { redactUri } from './uri.js'

const MASK = '***'

/** A password in a sip: or sips: URI: the userinfo's part after ':' (§19.1.1). Over-masking is fine here. */
const URI_PASSWORD = /(sips?:[^\s:@<>"]+):[^\s@<>"]*@/gi
/** Digest's response, and rspauth of Authentication-Info (RFC 2617 §3.2.2, §3.2.3). */
const DIGEST_SECRET = /\b(response|rspauth)(\s*=\s*)("(?:[^"\\]|\\.)*"|[^\s,]*)/gi
const CREDENTIAL_FIELDS = new Set(['authorization', 'proxy-authorization', 'authentication-info'])

/** One header field's value with its credentials masked. */
function redactValue(name: string, value: string): string {
  let out = value.replace(URI_PASSWORD, `$1:${MASK}@`)
  if (CREDENTIAL_FIELDS.has(name.toLowerCase())) {
    const scheme = /^\s*([^\s]+)/.exec(out)?.[1] ?? ''
    // Digest keeps its parameters readable; any other scheme's credentials are opaque, so all go.
    out = name.toLowerCase() === 'authentication-info' || scheme.toLowerCase() === 'digest' ? out.replace(DIGEST_SECRET, `$1$2"${MASK}"`) : `${scheme} ${MASK}`
  }
  return out
}

/**
 * Redacts SIP text line by line (a header section, or a message/sipfrag body): Authorization,
 * Proxy-Authorization and Authentication-Info lose their secrets, and every URI its password.
 * Folded lines are joined first so a secret on a continuation line is caught too.
 */
export function redactSipText(text: string): string {
  const lines = text.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)
  return lines
    .map((line) => {
      const colon = line.indexOf(':')
      const name = colon < 0 ? '' : line.slice(0, colon).trim()
      // A start line, a body line or anything else that is no field: only URI passwords to mask.
      if (colon < 0 || !/^[A-Za-z0-9.!%*_+`'~-]+$/.test(name)) {
        return line.replace(URI_PASSWORD, `$1:${MASK}@`)
      }
      return `${line.slice(0, colon + 1)}${redactValue(name, line.slice(colon + 1))}`
    })
    .join('\n')
}

/** Bodies shown as text in a log; anything else is summarised by its size and type. */
const TEXT_BODY = /^(application\/sdp|message\/sipfrag|message\/sip|text\/[a-z0-9.+-]+)$/

/**
 * The message as text fit for a log line: no credential (Digest response, a URI's password, any
 * non-Digest credentials) reaches it. Text bodies are redacted the same way; others are summarised.
 */
export function redactForLog(message: SipMessage): string {
  const start = message instanceof SipRequest ? `${message.method} ${redactUri(message.uri)} SIP/2.0` : `SIP/2.0 ${message.status} ${message.reason}`
  const lines = [start, ...message.headers.toArray().map((h) => `${h.name}: ${redactValue(h.name, h.value)}`)]
  let body = ''
  if (message.body.length > 0) {
    const type = message.headers.get('Content-Type')?.split(';')[0]?.trim().toLowerCase() ?? ''
    body = TEXT_BODY.test(type) ? `\n\n${redactSipText(message.body.toString('utf8'))}` : `\n\n[${message.body.length} bytes ${type || 'body'}]`
  }
  return `${lines.join('\n')}${body}`
}
