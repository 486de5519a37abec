import { AuthHeader } from './auth.js'
import { isToken, parseBoundedInt } from './charset.js'
import { EventHeader, SubscriptionState } from './event.js'
import { canonicalName } from './header-names.js'
import { MediaType } from './media-type.js'
import { NameAddr } from './name-addr.js'
import { CSeq, parseCallId, parseDeltaSeconds, parseMaxForwards, parseSipDate } from './scalars.js'
import { Via } from './via.js'

/** One header field value, by its canonical name (compact forms expanded, §7.3.3). */
export interface SipHeader {
  readonly name: string
  readonly value: string
}

/** Thrown by a typed accessor of a message built in code with a missing or malformed field. */
export class SipHeaderError extends Error {
  constructor(
    readonly header: string,
    problem: 'missing' | 'malformed',
  ) {
    super(`${problem} ${header} header field`)
    this.name = 'SipHeaderError'
  }
}

type Parser = (value: string) => unknown

function keyOf(name: string): string {
  return canonicalName(name).toLowerCase()
}

/** Contact = STAR / contact-param *(COMMA contact-param) (§20.10); `*` stands alone. */
function parseContact(value: string): NameAddr | '*' | undefined {
  if (value === '*') return '*'
  const contact = NameAddr.parse(value)
  if (!contact) return undefined
  // c-p-q = "q" EQUAL qvalue; c-p-expires = "expires" EQUAL delta-seconds (§25.1)
  const q = contact.params.get('q')
  if (q !== undefined && (q === null || !/^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(q))) return undefined
  const expires = contact.params.get('expires')
  if (expires !== undefined && (expires === null || parseDeltaSeconds(expires) === undefined)) return undefined
  return contact
}

/** From and To: the tag, when present, is a token (§19.3). */
function parseFromTo(value: string): NameAddr | undefined {
  const addr = NameAddr.parse(value)
  if (!addr) return undefined
  const tag = addr.params.get('tag')
  return tag === null ? undefined : addr
}

/** The fields the parser checks, each with the grammar that validates and reads it. */
const PARSERS: ReadonlyMap<string, Parser> = new Map<string, Parser>([
  ['Via', Via.parse],
  ['From', parseFromTo],
  ['To', parseFromTo],
  ['Call-ID', parseCallId],
  ['CSeq', CSeq.parse],
  ['Max-Forwards', parseMaxForwards],
  ['Contact', parseContact],
  ['Route', (v) => NameAddr.parse(v, { nameAddrOnly: true })],
  ['Record-Route', (v) => NameAddr.parse(v, { nameAddrOnly: true })],
  ['Refer-To', (v) => NameAddr.parse(v)],
  ['Content-Type', MediaType.parse],
  ['Expires', parseDeltaSeconds],
  ['Min-Expires', parseDeltaSeconds],
  ['Date', parseSipDate],
  ['Event', EventHeader.parse],
  ['Subscription-State', SubscriptionState.parse],
  ['WWW-Authenticate', AuthHeader.parse],
  ['Proxy-Authenticate', AuthHeader.parse],
  ['Authorization', AuthHeader.parse],
  ['Proxy-Authorization', AuthHeader.parse],
  ['RSeq', (v) => parseBoundedInt(v, 4294967295)],
])

/** Header fields in order, looked up case-insensitively, with typed accessors parsed once. */
export class SipHeaders implements Iterable<SipHeader> {
  readonly #list: readonly SipHeader[]
  /** Lower-cased names, index for index: an unknown name keeps its spelling but matches in any case. */
  readonly #keys: readonly string[]
  readonly #typed = new Map<string, readonly unknown[]>()

  constructor(fields: Iterable<SipHeader | readonly [string, string]> = []) {
    this.#list = [...fields].map((f) => {
      const [name, value] = Array.isArray(f) ? f : [(f as SipHeader).name, (f as SipHeader).value]
      // field-name = token (§25.1): anything else written out would break the message.
      if (!isToken(name)) throw new TypeError(`not a header field name: ${JSON.stringify(name)}`)
      return { name: canonicalName(name), value }
    })
    this.#keys = this.#list.map((h) => h.name.toLowerCase())
  }

  get size(): number {
    return this.#list.length
  }

  [Symbol.iterator](): Iterator<SipHeader> {
    return this.#list[Symbol.iterator]()
  }

  toArray(): readonly SipHeader[] {
    return this.#list
  }

  get(name: string): string | undefined {
    const at = this.#keys.indexOf(keyOf(name))
    return at < 0 ? undefined : this.#list[at]!.value
  }

  getAll(name: string): string[] {
    const key = keyOf(name)
    const values: string[] = []
    for (let i = 0; i < this.#list.length; i++) if (this.#keys[i] === key) values.push(this.#list[i]!.value)
    return values
  }

  has(name: string): boolean {
    return this.get(name) !== undefined
  }

  /** A copy with the value appended after the last field of that name (or at the end). */
  with(name: string, value: string): SipHeaders {
    const at = this.#keys.lastIndexOf(keyOf(name))
    const index = at < 0 ? this.#list.length : at + 1
    return new SipHeaders([...this.#list.slice(0, index), { name, value }, ...this.#list.slice(index)])
  }

  /** A copy with the value placed before any other of that name (a new top Via, §8.1.1.7). */
  prepend(name: string, value: string): SipHeaders {
    const at = this.#keys.indexOf(keyOf(name))
    const index = at < 0 ? this.#list.length : at
    return new SipHeaders([...this.#list.slice(0, index), { name, value }, ...this.#list.slice(index)])
  }

  /** A copy with every field of that name replaced by `values`, where the first one stood. */
  set(name: string, ...values: string[]): SipHeaders {
    const key = keyOf(name)
    const at = this.#keys.indexOf(key)
    const rest = this.#list.filter((_, i) => this.#keys[i] !== key)
    const index = at < 0 ? rest.length : at
    return new SipHeaders([...rest.slice(0, index), ...values.map((value) => ({ name, value })), ...rest.slice(index)])
  }

  without(name: string): SipHeaders {
    const key = keyOf(name)
    return new SipHeaders(this.#list.filter((_, i) => this.#keys[i] !== key))
  }

  /** The first field, by its canonical name, whose value does not parse; undefined when all do. */
  firstMalformed(): string | undefined {
    for (const header of this.#list) {
      if (PARSERS.has(header.name) && this.#values(header.name).includes(undefined)) return header.name
    }
    if (this.#values('Contact').includes('*') && this.#values('Contact').length > 1) return 'Contact'
    return undefined
  }

  via(): readonly Via[] {
    return this.#all('Via') as Via[]
  }

  topVia(): Via | undefined {
    return this.via()[0]
  }

  from(): NameAddr {
    return this.#required('From') as NameAddr
  }

  to(): NameAddr {
    return this.#required('To') as NameAddr
  }

  callId(): string {
    return this.#required('Call-ID') as string
  }

  cseq(): CSeq {
    return this.#required('CSeq') as CSeq
  }

  maxForwards(): number | undefined {
    return this.#optional('Max-Forwards') as number | undefined
  }

  /** The Contact values, '*' for the REGISTER wildcard (§10.2.2), [] when absent. */
  contact(): '*' | readonly NameAddr[] {
    const all = this.#all('Contact') as Array<NameAddr | '*'>
    return all[0] === '*' ? '*' : (all as NameAddr[])
  }

  route(): readonly NameAddr[] {
    return this.#all('Route') as NameAddr[]
  }

  recordRoute(): readonly NameAddr[] {
    return this.#all('Record-Route') as NameAddr[]
  }

  referTo(): NameAddr | undefined {
    return this.#optional('Refer-To') as NameAddr | undefined
  }

  contentType(): MediaType | undefined {
    return this.#optional('Content-Type') as MediaType | undefined
  }

  expires(): number | undefined {
    return this.#optional('Expires') as number | undefined
  }

  minExpires(): number | undefined {
    return this.#optional('Min-Expires') as number | undefined
  }

  /** Date in ms since the epoch. */
  date(): number | undefined {
    return this.#optional('Date') as number | undefined
  }

  event(): EventHeader | undefined {
    return this.#optional('Event') as EventHeader | undefined
  }

  subscriptionState(): SubscriptionState | undefined {
    return this.#optional('Subscription-State') as SubscriptionState | undefined
  }

  wwwAuthenticate(): readonly AuthHeader[] {
    return this.#all('WWW-Authenticate') as AuthHeader[]
  }

  proxyAuthenticate(): readonly AuthHeader[] {
    return this.#all('Proxy-Authenticate') as AuthHeader[]
  }

  authorization(): readonly AuthHeader[] {
    return this.#all('Authorization') as AuthHeader[]
  }

  proxyAuthorization(): readonly AuthHeader[] {
    return this.#all('Proxy-Authorization') as AuthHeader[]
  }

  #values(name: string): readonly unknown[] {
    let values = this.#typed.get(name)
    if (!values) {
      const parse = PARSERS.get(name)!
      values = this.getAll(name).map((v) => parse(v))
      this.#typed.set(name, values)
    }
    return values
  }

  #all(name: string): readonly unknown[] {
    const values = this.#values(name)
    if (values.includes(undefined)) throw new SipHeaderError(name, 'malformed')
    return values
  }

  #optional(name: string): unknown {
    return this.#all(name)[0]
  }

  #required(name: string): unknown {
    const value = this.#optional(name)
    if (value === undefined) throw new SipHeaderError(name, 'missing')
    return value
  }
}
