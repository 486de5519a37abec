/** Why a session description could not be parsed. Stable codes; the message is derived from them. */
export type SdpParseErrorCode =
  | 'empty'
  | 'too_large'
  | 'too_many_lines'
  | 'line_too_long'
  | 'too_many_media'
  | 'too_many_formats'
  | 'bad_line'
  | 'unknown_type'
  | 'out_of_order'
  | 'duplicate_line'
  | 'missing_line'
  | 'bad_version'
  | 'bad_origin'
  | 'bad_connection'
  | 'bad_bandwidth'
  | 'bad_timing'
  | 'bad_media'
  | 'bad_attribute'
  | 'missing_connection'
  | 'internal_error'

export interface SdpParseError {
  readonly code: SdpParseErrorCode
  /** A fixed phrase naming the problem: it never echoes bytes of the description. */
  readonly message: string
  /** 1-based line number at fault; 0 when the fault is the description as a whole. */
  readonly line: number
}

const MESSAGES: Readonly<Record<SdpParseErrorCode, string>> = {
  empty: 'Empty session description',
  too_large: 'Session description too large',
  too_many_lines: 'Too many lines',
  line_too_long: 'Line too long',
  too_many_media: 'Too many media descriptions',
  too_many_formats: 'Too many formats on an m= line',
  bad_line: 'Malformed line (not <type>=<value>)',
  unknown_type: 'Unknown line type',
  out_of_order: 'Line out of the order RFC 8866 §5 gives',
  duplicate_line: 'Line that may appear once appears twice',
  missing_line: 'Missing mandatory line',
  bad_version: 'Protocol version is not v=0',
  bad_origin: 'Malformed o= line',
  bad_connection: 'Malformed c= line',
  bad_bandwidth: 'Malformed b= line',
  bad_timing: 'Malformed t= or r= line',
  bad_media: 'Malformed m= line',
  bad_attribute: 'Malformed attribute',
  missing_connection: 'A media description has no c= line and the session has none',
  internal_error: 'Internal parser error',
}

export function sdpError(code: SdpParseErrorCode, line = 0, detail?: string): SdpParseError {
  return { code, message: detail === undefined ? MESSAGES[code] : `${MESSAGES[code]}: ${detail}`, line }
}
