import { isToken, isWs, parseBoundedInt, skipWs } from './charset.js'
import { isAddress, isHost, parseHostPort } from './host.js'
import { Params, parseHeaderParams } from './params.js'

/** The magic cookie of RFC 3261 branch values (§8.1.1.7). */
export const BRANCH_COOKIE = 'z9hG4bK'

/**
 * One Via value (§20.42): sent-protocol LWS sent-by *( SEMI via-params ), with
 * sent-protocol = protocol-name SLASH protocol-version SLASH transport, SLASH = SWS "/" SWS.
 */
export class Via {
  constructor(
    readonly transport: string,
    readonly host: string,
    readonly port: number | undefined,
    readonly params: Params = Params.empty,
    readonly protocolName = 'SIP',
    readonly protocolVersion = '2.0',
  ) {
    const sentBy = port === undefined ? host : `${host}:${port}`
    if (![transport, protocolName, protocolVersion].every(isToken) || !parseHostPort(sentBy)) {
      throw new TypeError(`not a Via: ${JSON.stringify([transport, sentBy])}`)
    }
  }

  /** sent-by as written: host [ ":" port ]. */
  get sentBy(): string {
    return this.port === undefined ? this.host : `${this.host}:${this.port}`
  }

  get branch(): string | undefined {
    return this.params.get('branch') ?? undefined
  }

  get received(): string | undefined {
    return this.params.get('received') ?? undefined
  }

  /** RFC 3581: the port a server saw, or true when the client asked for it (`;rport` alone). */
  get rport(): number | true | undefined {
    const value = this.params.get('rport')
    if (value === undefined) return undefined
    return value === null ? true : Number(value)
  }

  get maddr(): string | undefined {
    return this.params.get('maddr') ?? undefined
  }

  serialize(): string {
    return `${this.protocolName}/${this.protocolVersion}/${this.transport} ${this.sentBy}${this.params.serialize()}`
  }

  static parse(value: string): Via | undefined {
    const s = value
    const parts: string[] = []
    let i = skipWs(s, 0)
    for (let n = 0; n < 3; n++) {
      const start = i
      while (i < s.length && s[i] !== '/' && !isWs(s.charCodeAt(i))) i++
      const word = s.slice(start, i)
      if (!isToken(word)) return undefined
      parts.push(word)
      const afterWord = i
      i = skipWs(s, i)
      if (n < 2) {
        if (s[i] !== '/') return undefined
        i = skipWs(s, i + 1)
      } else if (i === afterWord) return undefined // LWS must separate the transport from sent-by
    }
    const sentByStart = i
    while (i < s.length && s[i] !== ';' && !isWs(s.charCodeAt(i)) && s[i] !== ':') i++
    let hostText = s.slice(sentByStart, i)
    if (hostText.startsWith('[')) {
      // An IPv6 reference holds colons: take it whole.
      const close = s.indexOf(']', sentByStart)
      if (close < 0) return undefined
      i = close + 1
      hostText = s.slice(sentByStart, i)
    }
    let portText = ''
    const afterHost = skipWs(s, i)
    if (s[afterHost] === ':') {
      i = skipWs(s, afterHost + 1)
      const portStart = i
      while (i < s.length && s[i] !== ';' && !isWs(s.charCodeAt(i))) i++
      portText = `:${s.slice(portStart, i)}`
    }
    const hostport = parseHostPort(hostText + portText)
    const params = parseHeaderParams(s, i)
    if (!hostport || !params || !validViaParams(params)) return undefined
    const [name, version, transport] = parts as [string, string, string]
    return new Via(transport.toUpperCase(), hostport.host, hostport.port, params, name.toUpperCase(), version)
  }
}

/** via-ttl, via-maddr, via-received, via-branch (§25.1) and response-port (RFC 3581 §3). */
function validViaParams(params: Params): boolean {
  const ttl = params.get('ttl')
  if (ttl !== undefined && (ttl === null || parseBoundedInt(ttl, 255) === undefined)) return false
  const maddr = params.get('maddr')
  if (maddr !== undefined && (maddr === null || !isHost(maddr))) return false
  const received = params.get('received')
  if (received !== undefined && (received === null || !isAddress(received))) return false
  const branch = params.get('branch')
  if (branch !== undefined && (branch === null || !isToken(branch))) return false
  const rport = params.get('rport')
  if (rport !== undefined && rport !== null && parseBoundedInt(rport, 65535) === undefined) return false
  return true
}
