import { isToken } from './charset.js'
import { parseUri, SipUri, type Uri } from './uri.js'

export type StartLine =
  | { readonly ok: true; readonly kind: 'request'; readonly method: string; readonly uri: Uri }
  | { readonly ok: true; readonly kind: 'response'; readonly status: number; readonly reason: string }
  | { readonly ok: false; readonly code: 'bad_start_line' | 'bad_request_uri' | 'version_not_supported' }

/** SIP-Version = "SIP" "/" 1*DIGIT "." 1*DIGIT, case-insensitive (§7.1). */
const VERSION = /^SIP\/(\d{1,3})\.(\d{1,3})$/i

function versionCheck(text: string): 'ok' | 'bad_start_line' | 'version_not_supported' {
  const m = VERSION.exec(text)
  if (!m) return 'bad_start_line'
  return Number(m[1]) === 2 && Number(m[2]) === 0 ? 'ok' : 'version_not_supported'
}

/**
 * Request-Line = Method SP Request-URI SP SIP-Version CRLF (§7.1), single spaces only, so extra or
 * trailing SP and LWS inside the URI are errors (RFC 4475 §3.1.2.7-§3.1.2.10).
 * Status-Line = SIP-Version SP Status-Code SP Reason-Phrase CRLF (§7.2).
 */
export function parseStartLine(line: string): StartLine {
  if (line.slice(0, 4).toUpperCase() === 'SIP/') return parseStatusLine(line)
  const parts = line.split(' ')
  if (parts.length !== 3) return { ok: false, code: 'bad_start_line' }
  const [method, uriText, version] = parts as [string, string, string]
  if (!isToken(method)) return { ok: false, code: 'bad_start_line' }
  const checked = versionCheck(version)
  if (checked !== 'ok') return { ok: false, code: checked }
  const uri = parseUri(uriText)
  if (!uri || !allowedInRequestUri(uri)) return { ok: false, code: 'bad_request_uri' }
  return { ok: true, kind: 'request', method, uri }
}

/** §19.1.1's table: a Request-URI carries neither the method parameter nor headers (RFC 4475 §3.1.2.11). */
function allowedInRequestUri(uri: Uri): boolean {
  return !(uri instanceof SipUri) || (uri.headers.length === 0 && !uri.params.has('method'))
}

function parseStatusLine(line: string): StartLine {
  const sp = line.indexOf(' ')
  if (sp < 0) return { ok: false, code: 'bad_start_line' }
  const checked = versionCheck(line.slice(0, sp))
  if (checked !== 'ok') return { ok: false, code: checked }
  const rest = line.slice(sp + 1)
  const sp2 = rest.indexOf(' ')
  const code = sp2 < 0 ? rest : rest.slice(0, sp2)
  // A missing SP before an empty Reason-Phrase is tolerated; the phrase is informational (§7.2).
  const reason = sp2 < 0 ? '' : rest.slice(sp2 + 1)
  if (!/^[1-6]\d\d$/.test(code)) return { ok: false, code: 'bad_start_line' }
  for (let i = 0; i < reason.length; i++) {
    const c = reason.charCodeAt(i)
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return { ok: false, code: 'bad_start_line' }
  }
  return { ok: true, kind: 'response', status: Number(code), reason }
}
