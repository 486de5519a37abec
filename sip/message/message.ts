import type { SipHeaders } from './headers.js'
import { type ParseOptions, type ParseResult, parseSipMessage } from './parser.js'
import { parseError } from './errors.js'
import type { Uri } from './uri.js'

export const SIP_VERSION = 'SIP/2.0'
const EMPTY = Buffer.alloc(0)

/** A header value written on one line: a CR or LF would end the field early (header injection). */
function headerLine(name: string, value: string): string {
  return `${name}: ${value.replace(/[\r\n]+/g, ' ')}\r\n`
}

/**
 * Writes the start line, the fields in order under their canonical names, a Content-Length
 * computed from the body (§20.14: it is mandatory over streams, harmless over UDP) and the body.
 */
function serializeMessage(startLine: string, headers: SipHeaders, body: Buffer): Buffer {
  let head = `${startLine}\r\n`
  for (const { name, value } of headers) head += headerLine(name, value)
  head += `Content-Length: ${body.length}\r\n\r\n`
  return Buffer.concat([Buffer.from(head, 'utf8'), body])
}

export class SipRequest {
  readonly kind = 'request'
  constructor(
    readonly method: string,
    readonly uri: Uri,
    readonly headers: SipHeaders,
    readonly body: Buffer = EMPTY,
  ) {}

  serialize(): Buffer {
    return serializeMessage(`${this.method} ${this.uri.serialize()} ${SIP_VERSION}`, this.headers, this.body)
  }

  /** Parses a request; a response comes back as an error. */
  static parse(input: Buffer, options?: ParseOptions): ParseResult<SipRequest> {
    return parseOnly<SipRequest>(input, options, 'request')
  }
}

export class SipResponse {
  readonly kind = 'response'
  constructor(
    readonly status: number,
    readonly reason: string,
    readonly headers: SipHeaders,
    readonly body: Buffer = EMPTY,
  ) {}

  serialize(): Buffer {
    return serializeMessage(`${SIP_VERSION} ${this.status} ${this.reason.replace(/[\r\n]+/g, ' ')}`, this.headers, this.body)
  }

  /** Parses a response; a request comes back as an error. */
  static parse(input: Buffer, options?: ParseOptions): ParseResult<SipResponse> {
    return parseOnly<SipResponse>(input, options, 'response')
  }
}

export type SipMessage = SipRequest | SipResponse

/** parseSipMessage keeping one kind: the other kind's start line is not the one asked for. */
function parseOnly<M extends SipMessage>(input: Buffer, options: ParseOptions | undefined, kind: M['kind']): ParseResult<M> {
  const result = parseSipMessage(input, options)
  if (!result.ok || result.message.kind === kind) return result as ParseResult<M>
  return { ok: false, error: parseError('bad_start_line', result.message.kind) }
}
