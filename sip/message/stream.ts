import { isWs, trimWs } from './charset.js'
import { parseError, type SipParseError } from './errors.js'
import { resolveLimits, type SipLimits } from './limits.js'
import type { SipMessage } from './message.js'
import { parseSipMessage } from './parser.js'
import { parseContentLength } from './scalars.js'

export type StreamEvent =
  | { readonly type: 'message'; readonly message: SipMessage }
  /** `fatal`: the framing is lost (no usable Content-Length, or too large); close the connection. */
  | { readonly type: 'error'; readonly error: SipParseError; readonly fatal: boolean }
  /** A CRLFCRLF "ping" between messages (RFC 5626 §3.5.1), to be answered with one CRLF. */
  | { readonly type: 'keepalive' }

const CRLFCRLF = Buffer.from('\r\n\r\n')

/**
 * Frames SIP messages out of a TCP (or TLS) byte stream by their Content-Length (§18.3), which a
 * stream MUST carry. Synchronous and I/O-free: push() takes the bytes a socket delivered and returns
 * what they completed. It never holds more than `maxMessageBytes` of an incomplete message, scans
 * each byte once for the end of the header section, and after a fatal error ignores further input.
 */
export class SipStreamParser {
  readonly #limits: SipLimits
  #store: Buffer = Buffer.alloc(0)
  #start = 0
  #end = 0
  /** How far past #start the search for the end of the header section has looked. */
  #scanned = 0
  /** Size of the message at #start once its header section is read. */
  #need: number | undefined
  #crlfRun = 0
  #closed = false

  constructor(options: { limits?: Partial<SipLimits> } = {}) {
    this.#limits = resolveLimits(options.limits)
  }

  /** Bytes held for the message not yet complete. */
  get bufferedBytes(): number {
    return this.#end - this.#start
  }

  /** True after a fatal error: nothing more can be framed from this stream. */
  get closed(): boolean {
    return this.#closed
  }

  push(chunk: Buffer): StreamEvent[] {
    if (this.#closed) return []
    this.#append(chunk)
    const events: StreamEvent[] = []
    for (;;) {
      if (this.#need === undefined) {
        this.#skipKeepalives(events)
        if (this.#end - this.#start < 2) break
        const head = this.#store.subarray(0, this.#end).indexOf(CRLFCRLF, Math.max(this.#start, this.#start + this.#scanned - 3))
        if (head < 0) {
          this.#scanned = this.#end - this.#start
          if (this.#scanned > this.#limits.maxMessageBytes) return this.#fail(events, parseError('too_large', 'unknown'))
          break
        }
        const headBytes = this.#store.subarray(this.#start, head + 4)
        const length = contentLength(headBytes.toString('latin1'))
        if (length === undefined) {
          // Parsing the header section alone names the problem and finds whom to answer.
          const parsed = parseSipMessage(headBytes, { transport: 'stream', limits: this.#limits })
          return this.#fail(events, parsed.ok ? parseError('missing_content_length', 'unknown') : parsed.error)
        }
        if (headBytes.length + length > this.#limits.maxMessageBytes) return this.#fail(events, parseError('too_large', 'unknown'))
        this.#need = headBytes.length + length
      }
      if (this.#end - this.#start < this.#need) break
      const bytes = this.#store.subarray(this.#start, this.#start + this.#need)
      const result = parseSipMessage(bytes, { transport: 'stream', limits: this.#limits })
      events.push(result.ok ? { type: 'message', message: result.message } : { type: 'error', error: result.error, fatal: false })
      this.#start += this.#need
      this.#need = undefined
      this.#scanned = 0
    }
    this.#compact()
    return events
  }

  #skipKeepalives(events: StreamEvent[]): void {
    while (this.#end - this.#start >= 2 && this.#store[this.#start] === 0x0d && this.#store[this.#start + 1] === 0x0a) {
      this.#start += 2
      if (++this.#crlfRun === 2) {
        this.#crlfRun = 0
        events.push({ type: 'keepalive' })
      }
    }
    if (this.#end > this.#start && this.#store[this.#start] !== 0x0d) this.#crlfRun = 0
  }

  #fail(events: StreamEvent[], error: SipParseError): StreamEvent[] {
    events.push({ type: 'error', error, fatal: true })
    this.#closed = true
    this.#store = Buffer.alloc(0)
    this.#start = this.#end = this.#scanned = 0
    return events
  }

  /** Appends, doubling the store when full, so a stream of tiny chunks costs linear time. */
  #append(chunk: Buffer): void {
    if (this.#end + chunk.length > this.#store.length) {
      const held = this.#end - this.#start
      const grown = Buffer.allocUnsafe(Math.max(2 * (held + chunk.length), 4096))
      this.#store.copy(grown, 0, this.#start, this.#end)
      this.#store = grown
      this.#start = 0
      this.#end = held
    }
    chunk.copy(this.#store, this.#end)
    this.#end += chunk.length
  }

  /** Moves what is left to the front, and gives back memory a large chunk made the store grow to. */
  #compact(): void {
    const held = this.#end - this.#start
    if (held === 0) {
      this.#start = this.#end = 0
      if (this.#store.length > 4 * 4096) this.#store = Buffer.alloc(0)
      return
    }
    if (this.#store.length > 2 * this.#limits.maxMessageBytes && held <= this.#limits.maxMessageBytes) {
      const smaller = Buffer.allocUnsafe(Math.max(2 * held, 4096))
      this.#store.copy(smaller, 0, this.#start, this.#end)
      this.#store = smaller
      this.#start = 0
      this.#end = held
    }
  }
}

/**
 * Content-Length (or its compact form l) from a header section, folded lines joined; undefined
 * when absent, repeated or not a number (RFC 4475 §3.1.2.3: the framing cannot be recovered).
 */
function contentLength(head: string): number | undefined {
  const values: string[] = []
  let current: string | undefined
  for (const line of head.split('\r\n').slice(1)) {
    if (line.length > 0 && isWs(line.charCodeAt(0))) {
      if (current !== undefined) current += ` ${trimWs(line)}`
      continue
    }
    if (current !== undefined) values.push(trimWs(current))
    current = undefined
    const colon = line.indexOf(':')
    const name = colon < 0 ? '' : trimWs(line.slice(0, colon)).toLowerCase()
    if (name === 'content-length' || name === 'l') current = line.slice(colon + 1)
  }
  if (current !== undefined) values.push(trimWs(current))
  return values.length === 1 ? parseContentLength(values[0]!) : undefined
}
