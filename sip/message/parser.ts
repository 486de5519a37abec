import { isToken, isWs, trimWs } from './charset.js'
import { parseError, type ReplyContext, type SipParseError, type SipParseErrorCode } from './errors.js'
import { canonicalName, LIST_HEADERS, SINGLE_HEADERS, STRICT_LISTS } from './header-names.js'
import { type SipHeader, SipHeaders } from './headers.js'
import { DEFAULT_LIMITS, resolveLimits, type SipLimits } from './limits.js'
import { SipRequest, SipResponse, type SipMessage } from './message.js'
import { parseContentLength } from './scalars.js'
import { splitList } from './split.js'
import { parseStartLine, type StartLine } from './start-line.js'
import { Via } from './via.js'

export interface ParseOptions {
  /**
   * 'datagram' (UDP, the default): bytes past Content-Length are discarded and a missing
   * Content-Length means the body runs to the end of the datagram (§18.3). 'stream': the input is
   * exactly one message framed by SipStreamParser, and Content-Length is mandatory.
   */
  readonly transport?: 'datagram' | 'stream'
  readonly limits?: Partial<SipLimits>
}

export type ParseResult<M = SipMessage> = { readonly ok: true; readonly message: M } | { readonly ok: false; readonly error: SipParseError }

const CRLF = Buffer.from('\r\n')
const CRLFCRLF = Buffer.from('\r\n\r\n')
const EMPTY = Buffer.alloc(0)

/**
 * Parses one SIP message (§7). Never throws on any input: every malformed or oversized message
 * comes back as a typed error, with what a server needs to answer a malformed request (§8.2.6.2).
 * (Limits that are not positive integers are a programming error and throw a RangeError.)
 */
export function parseSipMessage(input: Buffer, options: ParseOptions = {}): ParseResult {
  const limits = options.limits ? resolveLimits(options.limits) : DEFAULT_LIMITS
  try {
    return parse(input, options.transport ?? 'datagram', limits)
  } catch {
    // A bug, not an input: the fuzz test asserts this never happens.
    return { ok: false, error: parseError('internal_error', 'unknown') }
  }
}

/** Index just past any CRLFs before the start line, which §7.5 says to ignore. */
export function skipLeadingCrlf(input: Buffer, from = 0): number {
  let i = from
  while (input[i] === 0x0d && input[i + 1] === 0x0a) i += 2
  return i
}

function kindOf(input: Buffer, start: number): 'request' | 'response' {
  return input
    .subarray(start, start + 4)
    .toString('latin1')
    .toUpperCase() === 'SIP/'
    ? 'response'
    : 'request'
}

function parse(input: Buffer, transport: 'datagram' | 'stream', limits: SipLimits): ParseResult {
  const start = skipLeadingCrlf(input)
  const kind = start < input.length ? kindOf(input, start) : 'unknown'
  const fatal = (code: SipParseErrorCode): ParseResult => ({ ok: false, error: parseError(code, kind) })
  if (input.length > limits.maxMessageBytes) return fatal('too_large')
  if (start >= input.length) return fatal('empty')
  const headEnd = input.indexOf(CRLFCRLF, start)
  if (headEnd < 0) return fatal('no_header_end')

  // Physical lines, then logical ones: a line starting with SP or HTAB continues the field above,
  // and the LWS joining them is replaced by one SP (§7.3.1).
  let first: { code: SipParseErrorCode; header?: string } | undefined
  const fail = (code: SipParseErrorCode, header?: string) => {
    first ??= header === undefined ? { code } : { code, header }
  }
  const lines: string[] = []
  for (let pos = start; ; ) {
    let end = input.indexOf(CRLF, pos)
    if (end < 0 || end > headEnd) end = headEnd
    if (end - pos > limits.maxLineBytes) return fatal('header_too_long')
    lines.push(input.toString('utf8', pos, end))
    if (end >= headEnd) break
    pos = end + 2
  }
  const startLineText = lines[0]!
  if (startLineText.includes('\r') || startLineText.includes('\n')) fail('bare_line_break')
  // Each field as its name and the pieces of its value, joined once all folded lines are read.
  const raw: Array<{ name: string; parts: string[]; length: number }> = []
  for (let n = 1; n < lines.length; n++) {
    const line = lines[n]!
    if (line.includes('\r') || line.includes('\n')) fail('bare_line_break')
    if (line.length > 0 && isWs(line.charCodeAt(0))) {
      const current = raw[raw.length - 1]
      if (!current) fail('bad_header_line')
      else {
        const piece = trimWs(line)
        current.length += piece.length + 1
        if (current.length > limits.maxLineBytes) return fatal('header_too_long')
        if (piece !== '') current.parts.push(piece)
      }
      continue
    }
    const colon = line.indexOf(':')
    const name = colon < 0 ? '' : trimWs(line.slice(0, colon))
    if (!isToken(name)) {
      fail('bad_header_line')
      continue
    }
    const piece = trimWs(line.slice(colon + 1))
    raw.push({ name, parts: piece === '' ? [] : [piece], length: piece.length })
    if (raw.length > limits.maxHeaderCount) return fatal('too_many_headers')
  }

  const fields: SipHeader[] = []
  const contentLengths: string[] = []
  const rawVias: string[] = []
  let vias = 0
  let written = Buffer.byteLength(startLineText) + 2
  for (const field of raw) {
    const name = canonicalName(field.name)
    const value = field.parts.join(' ')
    if (name === 'Content-Length') {
      contentLengths.push(value)
      continue
    }
    if (name === 'Via') rawVias.push(value)
    let values = [value]
    if (LIST_HEADERS.has(name)) {
      const split = splitElements(value, STRICT_LISTS.has(name))
      values = split.values
      if (split.emptyElement) fail('bad_header', name)
    }
    for (const v of values) {
      // Limits hold for the message as serialize() writes it ("Name: value" per line), so whatever
      // parses here also parses again once written out: folding joins lines, compact names grow.
      const bytes = Buffer.byteLength(name) + 2 + Buffer.byteLength(v)
      if (bytes > limits.maxLineBytes) return fatal('header_too_long')
      written += bytes + 2
      fields.push({ name, value: v })
    }
    // Content-Length counts as one field even when absent: serialize() always writes it.
    if (fields.length + Math.max(1, contentLengths.length) > limits.maxHeaderCount) return fatal('too_many_headers')
    if (name === 'Via') vias += values.length
  }
  if (vias > limits.maxViaCount) fail('too_many_vias')
  const headers = new SipHeaders(fields)

  const line = parseStartLine(startLineText)
  if (!line.ok) fail(line.code)
  const malformed = headers.firstMalformed()
  if (malformed) fail('bad_header', malformed)
  for (const name of SINGLE_HEADERS) if (headers.getAll(name).length > 1) fail('duplicate_header', name)
  for (const name of ['Via', 'From', 'To', 'Call-ID', 'CSeq']) if (!headers.has(name)) fail('missing_header', name)
  if (line.ok && line.kind === 'request' && !first && headers.cseq().method !== line.method) fail('cseq_mismatch')

  let body = EMPTY
  const bodyStart = headEnd + 4
  if (contentLengths.length > 1) fail('duplicate_header', 'Content-Length')
  else if (contentLengths.length === 1) {
    const length = parseContentLength(contentLengths[0]!)
    if (length === undefined) fail('bad_content_length')
    else if (length > input.length - bodyStart) fail('body_truncated')
    else body = Buffer.from(input.subarray(bodyStart, bodyStart + length))
  } else if (transport === 'stream') fail('missing_content_length')
  else body = Buffer.from(input.subarray(bodyStart))

  written += `Content-Length: ${body.length}\r\n\r\n`.length + body.length
  if (written > limits.maxMessageBytes) return fatal('too_large')

  if (first) {
    const reply = kind === 'request' ? replyContext(startLineText, headers, rawVias) : undefined
    return { ok: false, error: parseError(first.code, kind, { header: first.header, reply }) }
  }
  return { ok: true, message: build(line as StartLine & { ok: true }, headers, body) }
}

/** Elements of a list field; in a strict list (Via, Contact, Route, Record-Route) an empty one is an error (RFC 4475 §3.1.2.1). */
function splitElements(value: string, strict: boolean): { values: string[]; emptyElement: boolean } {
  const parts = splitList(value)
  const present = parts.filter((p) => p !== '')
  if (strict) return { values: present, emptyElement: present.length < parts.length }
  return { values: present.length > 0 ? present : [''], emptyElement: false }
}

function build(line: StartLine & { ok: true }, headers: SipHeaders, body: Buffer): SipMessage {
  return line.kind === 'request' ? new SipRequest(line.method, line.uri, headers, body) : new SipResponse(line.status, line.reason, headers, body)
}

/**
 * §8.2.6.2: the fields a response copies, found as raw values even when the request is malformed.
 * The Via fields are copied as received, unsplit; the top one must at least name its transport and
 * sent-by, where the response goes (§18.2.2).
 */
function replyContext(startLine: string, headers: SipHeaders, rawVias: readonly string[]): ReplyContext | undefined {
  const method = startLine.slice(0, startLine.indexOf(' '))
  const from = headers.get('From')
  const to = headers.get('To')
  const callId = headers.get('Call-ID')
  const cseq = headers.get('CSeq')
  if (!isToken(method) || rawVias.length === 0 || from === undefined || to === undefined || callId === undefined || cseq === undefined) {
    return undefined
  }
  const top = splitList(rawVias[0]!)[0]!
  const semi = top.indexOf(';')
  const sentBy = Via.parse(semi < 0 ? top : top.slice(0, semi))
  if (!sentBy) return undefined
  return { method, via: rawVias, from, to, callId, cseq, transport: sentBy.transport, host: sentBy.host, port: sentBy.port }
}
