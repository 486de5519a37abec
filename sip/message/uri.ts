import { escapeOutside, PARAM, PASSWORD, URI_HEADER, URIC, USER, unescapeIn } from './charset.js'
import { parseHostPort } from './host.js'
import { type ParamValue, Params } from './params.js'

// URIs of SIP: SIP-URI / SIPS-URI (RFC 3261 §19.1, §25.1), tel (RFC 3966), and any other
// absoluteURI kept opaque (RFC 4475 §3.3.2 and §3.3.4: an unknown scheme is not a syntax error).

export type Uri = SipUri | TelUri | AbsoluteUri

/** An absoluteURI: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ). */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/

/**
 * sip: and sips: URIs with components unescaped (§19.1.4 treats escaped and unescaped forms
 * alike); serialize() escapes what each component's grammar requires. The password is a private
 * field: it is not enumerable, so JSON and util.inspect of a URI never show it.
 */
export class SipUri {
  readonly kind = 'sip'
  readonly scheme: 'sip' | 'sips'
  readonly user: string | undefined
  readonly #password: string | undefined
  readonly host: string
  readonly port: number | undefined
  readonly params: Params
  readonly headers: ReadonlyArray<readonly [string, string]>

  constructor(init: {
    scheme?: 'sip' | 'sips'
    user?: string
    password?: string
    host: string
    port?: number
    params?: Params
    headers?: ReadonlyArray<readonly [string, string]>
  }) {
    // The host and port are written as they are: refuse what would not parse back (a URI built in code).
    if (!parseHostPort(init.port === undefined ? init.host : `${init.host}:${init.port}`)) {
      throw new TypeError(`not a SIP URI host and port: ${JSON.stringify(init.host)} ${init.port ?? ''}`)
    }
    this.scheme = init.scheme ?? 'sip'
    this.user = init.user
    this.#password = init.password
    this.host = init.host
    this.port = init.port
    this.params = init.params ?? Params.empty
    this.headers = init.headers ?? []
  }

  get password(): string | undefined {
    return this.#password
  }

  /** `sip:user@host:port;params?headers` (§19.1.1); `redacted` writes a password as "***". */
  serialize(options: { redacted?: boolean } = {}): string {
    let out = `${this.scheme}:`
    if (this.user !== undefined) {
      out += escapeOutside(USER, this.user)
      if (this.#password !== undefined) out += `:${options.redacted ? '***' : escapeOutside(PASSWORD, this.#password)}`
      out += '@'
    }
    out += this.host
    if (this.port !== undefined) out += `:${this.port}`
    out += serializeUriParams(this.params)
    if (this.headers.length > 0) {
      out += `?${this.headers.map(([n, v]) => `${escapeOutside(URI_HEADER, n)}=${escapeOutside(URI_HEADER, v)}`).join('&')}`
    }
    return out
  }

  static parse(s: string): SipUri | undefined {
    const colon = s.indexOf(':')
    const scheme = s.slice(0, colon).toLowerCase()
    if (scheme !== 'sip' && scheme !== 'sips') return undefined
    let rest = s.slice(colon + 1)
    let user: string | undefined
    let password: string | undefined
    // '@' appears in no component but userinfo, which may itself hold ';' '?' and '/'.
    const at = rest.indexOf('@')
    if (at >= 0) {
      const userinfo = rest.slice(0, at)
      rest = rest.slice(at + 1)
      const pw = userinfo.indexOf(':')
      user = unescapeIn(USER, pw < 0 ? userinfo : userinfo.slice(0, pw))
      if (user === undefined || user === '') return undefined
      if (pw >= 0) {
        password = pw === userinfo.length - 1 ? '' : unescapeIn(PASSWORD, userinfo.slice(pw + 1))
        if (password === undefined) return undefined
      }
    }
    const question = rest.indexOf('?')
    const headerText = question < 0 ? undefined : rest.slice(question + 1)
    if (question >= 0) rest = rest.slice(0, question)
    const semi = rest.indexOf(';')
    const hostport = parseHostPort(semi < 0 ? rest : rest.slice(0, semi))
    if (!hostport) return undefined
    const params = semi < 0 ? Params.empty : parseUriParams(rest.slice(semi + 1))
    if (!params) return undefined
    const headers = headerText === undefined ? [] : parseUriHeaders(headerText)
    if (!headers) return undefined
    return new SipUri({ scheme, user, password, host: hostport.host, port: hostport.port, params, headers })
  }
}

/** tel: URIs (RFC 3966 §3): a global (+digits) or local number, with parameters. */
export class TelUri {
  readonly kind = 'tel'
  readonly scheme = 'tel'
  constructor(
    readonly number: string,
    readonly params: Params = Params.empty,
  ) {}

  serialize(): string {
    return `tel:${this.number}${serializeUriParams(this.params)}`
  }

  static parse(s: string): TelUri | undefined {
    if (s.slice(0, 4).toLowerCase() !== 'tel:') return undefined
    const rest = s.slice(4)
    const semi = rest.indexOf(';')
    const number = semi < 0 ? rest : rest.slice(0, semi)
    const params = semi < 0 ? Params.empty : parseUriParams(rest.slice(semi + 1))
    if (!params) return undefined
    // global-number-digits = "+" *phonedigit DIGIT *phonedigit; a local number needs a phone-context.
    const global = /^\+[0-9().-]*[0-9][0-9().-]*$/.test(number)
    const local = /^[0-9A-Fa-f*#().-]*[0-9A-Fa-f*#][0-9A-Fa-f*#().-]*$/.test(number) && params.has('phone-context')
    return global || local ? new TelUri(number, params) : undefined
  }
}

/** Any other absoluteURI (RFC 2396 §3): kept as scheme and opaque text. */
export class AbsoluteUri {
  readonly kind = 'other'
  constructor(
    readonly scheme: string,
    readonly opaque: string,
  ) {}

  serialize(): string {
    return `${this.scheme}:${this.opaque}`
  }

  static parse(s: string): AbsoluteUri | undefined {
    const colon = s.indexOf(':')
    if (colon < 1) return undefined
    const scheme = s.slice(0, colon)
    const opaque = s.slice(colon + 1)
    if (!SCHEME.test(scheme) || unescapeIn(URIC, opaque) === undefined || opaque === '') return undefined
    return new AbsoluteUri(scheme.toLowerCase(), opaque)
  }
}

/** Parses a URI by its scheme. Undefined when malformed. */
export function parseUri(s: string): Uri | undefined {
  const colon = s.indexOf(':')
  if (colon < 1) return undefined
  const scheme = s.slice(0, colon).toLowerCase()
  if (scheme === 'sip' || scheme === 'sips') return SipUri.parse(s)
  if (scheme === 'tel') return TelUri.parse(s)
  return AbsoluteUri.parse(s)
}

/** The URI as text for a log line: a password never appears. */
export function redactUri(uri: Uri): string {
  return uri instanceof SipUri ? uri.serialize({ redacted: true }) : uri.serialize()
}

/** uri-parameters = *( ";" uri-parameter ): pname [ "=" pvalue ], both 1*paramchar (§25.1). */
function parseUriParams(s: string): Params | undefined {
  const entries: Array<readonly [string, ParamValue]> = []
  const seen = new Set<string>()
  for (const part of s.split(';')) {
    const eq = part.indexOf('=')
    const name = unescapeIn(PARAM, eq < 0 ? part : part.slice(0, eq))?.toLowerCase()
    const value = eq < 0 ? null : unescapeIn(PARAM, part.slice(eq + 1))
    if (!name || value === undefined || value === '' || seen.has(name)) return undefined
    seen.add(name)
    entries.push([name, value])
  }
  return new Params(entries)
}

function serializeUriParams(params: Params): string {
  let out = ''
  for (const [name, value] of params.entries()) {
    out += `;${escapeOutside(PARAM, name)}`
    if (value !== null) out += `=${escapeOutside(PARAM, value)}`
  }
  return out
}

/** headers = header *( "&" header ); header = hname "=" hvalue (§25.1). */
function parseUriHeaders(s: string): Array<readonly [string, string]> | undefined {
  const headers: Array<readonly [string, string]> = []
  for (const part of s.split('&')) {
    const eq = part.indexOf('=')
    if (eq < 1) return undefined
    const name = unescapeIn(URI_HEADER, part.slice(0, eq))
    const value = eq === part.length - 1 ? '' : unescapeIn(URI_HEADER, part.slice(eq + 1))
    if (!name || value === undefined) return undefined
    headers.push([name, value])
  }
  return headers
}
