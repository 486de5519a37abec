/** Why a message could not be parsed. Stable codes; the reason phrase is derived from them. */
export type SipParseErrorCode =
  | 'empty'
  | 'too_large'
  | 'header_too_long'
  | 'too_many_headers'
  | 'too_many_vias'
  | 'no_header_end'
  | 'bare_line_break'
  | 'bad_start_line'
  | 'bad_request_uri'
  | 'version_not_supported'
  | 'bad_header_line'
  | 'bad_header'
  | 'missing_header'
  | 'duplicate_header'
  | 'cseq_mismatch'
  | 'bad_content_length'
  | 'body_truncated'
  | 'missing_content_length'
  | 'internal_error'

/**
 * What a 400 (or 505) copies from the request it answers (§8.2.6.2): the raw values of its Via
 * fields, From, To, Call-ID and CSeq. Present only when the message was a request, all five were
 * found and the top Via names a transport and sent-by (where the response goes, §18.2.2).
 */
export interface ReplyContext {
  readonly method: string
  readonly via: readonly string[]
  readonly from: string
  readonly to: string
  readonly callId: string
  readonly cseq: string
  /** From the top Via's sent-protocol and sent-by. */
  readonly transport: string
  readonly host: string
  readonly port: number | undefined
}

/**
 * A message that could not be parsed. A server answers a malformed request with `status` when
 * `reply` is present (§8.2, §16.3) and drops it otherwise; a malformed response is dropped.
 */
export interface SipParseError {
  readonly code: SipParseErrorCode
  /** The header field at fault, by its canonical name (only ever a field this parser knows). */
  readonly header?: string
  /** From the start line: "SIP/" starts a response; anything else is taken for a request. */
  readonly kind: 'request' | 'response' | 'unknown'
  /** 505 for a SIP version other than 2.0 (§21.5.6, RFC 4475 §3.1.2.16), else 400 (§21.4.1). */
  readonly status: 400 | 505
  /** A Reason-Phrase naming the problem, as §21.4.1 asks ("Missing Call-ID header field"). */
  readonly reason: string
  readonly reply?: ReplyContext
}

/** Fixed phrases only: a reason never echoes bytes of the message. */
function reasonFor(code: SipParseErrorCode, kind: SipParseError['kind'], header?: string): string {
  switch (code) {
    case 'empty':
      return 'Empty message'
    case 'too_large':
      return 'Message too large'
    case 'header_too_long':
      return 'Header field too long'
    case 'too_many_headers':
      return 'Too many header fields'
    case 'too_many_vias':
      return 'Too many Via header field values'
    case 'no_header_end':
      return 'Incomplete header section'
    case 'bare_line_break':
      return 'Bare CR or LF in header section'
    case 'bad_start_line':
      return kind === 'response' ? 'Malformed Status-Line' : 'Malformed Request-Line'
    case 'bad_request_uri':
      return 'Malformed Request-URI'
    case 'version_not_supported':
      return 'Version Not Supported'
    case 'bad_header_line':
      return 'Malformed header field line'
    case 'bad_header':
      return `Malformed ${header} header field`
    case 'missing_header':
      return `Missing ${header} header field`
    case 'duplicate_header':
      return `Multiple ${header} header fields`
    case 'cseq_mismatch':
      return 'CSeq method does not match the request method'
    case 'bad_content_length':
      return 'Malformed Content-Length header field'
    case 'body_truncated':
      return 'Content-Length larger than the message body'
    case 'missing_content_length':
      return 'Missing Content-Length header field'
    case 'internal_error':
      return 'Internal parser error'
  }
}

/**
 * Builds an error. `reply` holds raw header values (a From may carry a URI password), so it is not
 * enumerable: logging the error (JSON, pino, util.inspect) shows the code and reason, never them.
 */
export function parseError(code: SipParseErrorCode, kind: SipParseError['kind'], extra: { header?: string; reply?: ReplyContext } = {}): SipParseError {
  const error: SipParseError = {
    code,
    kind,
    status: code === 'version_not_supported' ? 505 : 400,
    reason: reasonFor(code, kind, extra.header),
    ...(extra.header === undefined ? {} : { header: extra.header }),
  }
  if (extra.reply !== undefined) Object.defineProperty(error, 'reply', { value: extra.reply, enumerable: false })
  return error
}
