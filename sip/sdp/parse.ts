import { isToken, isWellFormedAttribute } from './attributes.js'
import { type SdpParseError, type SdpParseErrorCode, sdpError } from './errors.js'
import { DEFAULT_SDP_LIMITS, resolveSdpLimits, type SdpLimits } from './limits.js'
import { parseBandwidth, parseConnection, parseMediaLine, parseOrigin, parseTiming } from './lines.js'
import type { SdpAttribute, SdpBandwidth, SdpConnection, SdpMedia, SdpOrigin, SdpTiming, SessionDescription } from './model.js'

export interface SdpParseOptions {
  readonly limits?: Partial<SdpLimits>
}

export type SdpParseResult = { readonly ok: true; readonly sdp: SessionDescription } | { readonly ok: false; readonly error: SdpParseError }

// RFC 8866 §5: the lines of each part in the order they must appear. Lines of one type may
// repeat where the grammar says "*" (e=, p=, b=, a=, and t= with its r= lines, c= in a media part).
const SESSION_ORDER = 'vosiuepcbtrzka'
const MEDIA_ORDER = 'micbka'
const SESSION_ONCE = 'vosiuczk'
const MEDIA_ONCE = 'ik'

/**
 * Parses a session description (RFC 8866). Never throws on any input: a malformed or oversized
 * description comes back as a typed error naming the line at fault. Lines end in CRLF; a bare LF
 * is accepted (§5 asks parsers to), and blank lines are skipped. Text is read as UTF-8.
 * (Limits that are not positive integers are a programming error and throw a RangeError.)
 */
export function parseSdp(input: string | Buffer, options: SdpParseOptions = {}): SdpParseResult {
  const limits = options.limits ? resolveSdpLimits(options.limits) : DEFAULT_SDP_LIMITS
  try {
    return parse(input, limits)
  } catch {
    // A bug, not an input: the fuzz test asserts this never happens.
    return { ok: false, error: sdpError('internal_error') }
  }
}

type MutableMedia = {
  -readonly [K in keyof SdpMedia]: SdpMedia[K] extends readonly (infer T)[] ? T[] : SdpMedia[K]
}

class Failure {
  constructor(readonly error: SdpParseError) {}
}

function parse(input: string | Buffer, limits: SdpLimits): SdpParseResult {
  // A string's UTF-8 length is at least its length in UTF-16 units' worth of ASCII: check cheaply first.
  const bytes = typeof input === 'string' ? (input.length > limits.maxBytes ? Number.POSITIVE_INFINITY : Buffer.byteLength(input)) : input.length
  if (bytes > limits.maxBytes) return { ok: false, error: sdpError('too_large') }
  const text = typeof input === 'string' ? input : input.toString('utf8')
  const rawLines = text.split('\n')
  if (rawLines[rawLines.length - 1] === '') rawLines.pop()
  if (rawLines.length > limits.maxLines) return { ok: false, error: sdpError('too_many_lines') }
  try {
    return { ok: true, sdp: build(rawLines, limits) }
  } catch (e) {
    if (e instanceof Failure) return { ok: false, error: e.error }
    throw e
  }
}

function build(rawLines: readonly string[], limits: SdpLimits): SessionDescription {
  let lineNo = 0
  const fail = (code: SdpParseErrorCode, detail?: string): never => {
    throw new Failure(sdpError(code, lineNo, detail))
  }
  let origin: SdpOrigin | undefined
  let sessionName: string | undefined
  let information: string | undefined
  let uri: string | undefined
  let connection: SdpConnection | undefined
  let timeZones: string | undefined
  let key: string | undefined
  const emails: string[] = []
  const phones: string[] = []
  const bandwidths: SdpBandwidth[] = []
  const timings: Array<{ start: string; stop: string; repeats: string[] }> = []
  const attributes: SdpAttribute[] = []
  const media: MutableMedia[] = []
  let current: MutableMedia | undefined
  let count = 0
  let lastType = ''
  let lastRank = -1

  for (let n = 0; n < rawLines.length; n++) {
    lineNo = n + 1
    const raw = rawLines[n]!
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (line === '') continue
    if (Buffer.byteLength(line) > limits.maxLineBytes) fail('line_too_long')
    if (line.includes('\r') || line.includes('\0')) fail('bad_line')
    if (!/^[a-z]=/.test(line)) fail('bad_line')
    const type = line[0]!
    const value = line.slice(2)

    // §5: v=, o=, s= come first, in that order.
    if (count < 3 && type !== 'vos'[count]) {
      if (SESSION_ORDER.includes(type) || type === 'm') fail('missing_line', `${'vos'[count]}=`)
      fail('unknown_type')
    }
    count++
    if (type === 'm') {
      if (timings.length === 0) fail('missing_line', 't=')
      if (media.length >= limits.maxMediaSections) fail('too_many_media')
      const m = parseMediaLine(value) ?? fail('bad_media')
      if (m.formats.length > limits.maxFormatsPerMedia) fail('too_many_formats')
      current = { ...m, formats: [...m.formats], connections: [], bandwidths: [], attributes: [] }
      media.push(current)
      lastType = 'm'
      lastRank = 0
      continue
    }
    const order = current ? MEDIA_ORDER : SESSION_ORDER
    const rank = order.indexOf(type)
    if (rank < 0) fail(SESSION_ORDER.includes(type) ? 'out_of_order' : 'unknown_type')
    // Each time description is a t= line and its r= lines: t= may follow r=, r= only t= or r=.
    if (rank < lastRank && !(type === 't' && lastType === 'r')) fail('out_of_order')
    if (type === 'r' && lastType !== 't' && lastType !== 'r') fail('out_of_order')
    if (type === lastType && (current ? MEDIA_ONCE : SESSION_ONCE).includes(type)) fail('duplicate_line')
    lastType = type
    lastRank = rank

    if (current) {
      if (type === 'i') current.title = value
      else if (type === 'c') current.connections.push(parseConnection(value) ?? fail('bad_connection'))
      else if (type === 'b') current.bandwidths.push(parseBandwidth(value) ?? fail('bad_bandwidth'))
      else if (type === 'k') current.key = value
      else current.attributes.push(parseAttribute(value) ?? fail('bad_attribute'))
      continue
    }
    switch (type) {
      case 'v':
        if (value !== '0') fail('bad_version')
        break
      case 'o':
        origin = parseOrigin(value) ?? fail('bad_origin')
        break
      case 's':
        sessionName = value
        break
      case 'i':
        information = value
        break
      case 'u':
        uri = value
        break
      case 'e':
        emails.push(value)
        break
      case 'p':
        phones.push(value)
        break
      case 'c':
        connection = parseConnection(value) ?? fail('bad_connection')
        break
      case 'b':
        bandwidths.push(parseBandwidth(value) ?? fail('bad_bandwidth'))
        break
      case 't':
        timings.push({ ...(parseTiming(value) ?? fail('bad_timing')), repeats: [] })
        break
      case 'r':
        if (value.trim() === '') fail('bad_timing')
        timings[timings.length - 1]!.repeats.push(value)
        break
      case 'z':
        timeZones = value
        break
      case 'k':
        key = value
        break
      default:
        attributes.push(parseAttribute(value) ?? fail('bad_attribute'))
    }
  }

  lineNo = 0
  if (count === 0) fail('empty')
  if (origin === undefined || sessionName === undefined) fail('missing_line', count < 2 ? 'o=' : 's=')
  if (timings.length === 0) fail('missing_line', 't=')
  // §5.7: every media description needs a c= line unless the session has one. A stream refused
  // with port 0 carries no media, and many answerers leave its c= out: that is accepted.
  if (!connection) {
    const orphan = media.findIndex((m) => m.port !== 0 && m.connections.length === 0)
    if (orphan >= 0) throw new Failure(sdpError('missing_connection', mediaLineNumber(rawLines, orphan)))
  }
  return {
    origin: origin!,
    sessionName: sessionName!,
    ...(information === undefined ? {} : { information }),
    ...(uri === undefined ? {} : { uri }),
    emails,
    phones,
    ...(connection === undefined ? {} : { connection }),
    bandwidths,
    timings: timings as SdpTiming[],
    ...(timeZones === undefined ? {} : { timeZones }),
    ...(key === undefined ? {} : { key }),
    attributes,
    media: media as SdpMedia[],
  }
}

/** a=<attribute-name>[:<value>]; the attributes this module reads must be well formed. */
function parseAttribute(value: string): SdpAttribute | undefined {
  const colon = value.indexOf(':')
  const name = colon < 0 ? value : value.slice(0, colon)
  if (!isToken(name)) return undefined
  const attribute = colon < 0 ? { name } : { name, value: value.slice(colon + 1) }
  return isWellFormedAttribute(attribute) ? attribute : undefined
}

function mediaLineNumber(rawLines: readonly string[], index: number): number {
  let seen = -1
  for (let n = 0; n < rawLines.length; n++) if (rawLines[n]!.startsWith('m=') && ++seen === index) return n + 1
  return 0
}
