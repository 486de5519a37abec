import net from 'node:net'
import type { SipTrunkRow } from '../../db/index.js'
import { CSeq, NameAddr, Params, SipHeaders, SipRequest, type SipResponse, SipUri } from '../../sip/index.js'
import { parseHostPort } from '../addresses.js'

/** The columns of a trunk that shape its registration (a change to any of them restarts it). */
export type RegistrationRow = Pick<
  SipTrunkRow,
  'host' | 'port' | 'transport' | 'outbound_proxy' | 'domain' | 'username' | 'auth_username' | 'register_expires_s'
>

/** What one trunk's REGISTER requests are built from, read once from its row. */
export interface RegistrationSettings {
  /** §10.2: the Request-URI names the registrar's domain, without a user part. */
  readonly requestUri: SipUri
  /** The address-of-record: To and From of every REGISTER (§10.2). */
  readonly aor: SipUri
  /** Our binding: where the registrar sends requests for the AOR. */
  readonly contact: NameAddr
  /** A loose route through the trunk's outbound proxy (§8.1.2), when it has one. */
  readonly route?: NameAddr
  /** The Digest user: auth_username when set, else the From user. */
  readonly authUsername: string
  readonly password: string | null
  readonly expiresS: number
}

const DEFAULT_SIP_PORT = 5060
const uriHost = (host: string): string => (net.isIPv6(host) ? `[${host}]` : host)

/** Where requests for the trunk go first: its outbound proxy when set, else its host and port. */
export function nextHop(row: Pick<SipTrunkRow, 'host' | 'port' | 'outbound_proxy'>): { host: string; port: number } {
  const proxy = row.outbound_proxy === null ? undefined : parseHostPort(row.outbound_proxy)
  return proxy ? { host: proxy.host, port: proxy.port ?? DEFAULT_SIP_PORT } : { host: row.host, port: row.port }
}

/**
 * The settings of a trunk's registration. `contact` is our Contact (the user agent's, for the
 * trunk's username and transport). Throws when the trunk has no username: the API refuses
 * `register` without one, so only a row written around it gets here.
 */
export function registrationSettings(row: RegistrationRow, o: { contact: string; password: string | null }): RegistrationSettings {
  if (row.username === null) throw new TypeError('a trunk registers only with a username')
  const contact = NameAddr.parse(o.contact)
  if (!contact || !(contact.uri instanceof SipUri)) throw new TypeError(`not a SIP contact: ${o.contact}`)
  // The domain names the registrar when it is the trunk's host: then its port is the registrar's too.
  const domain = row.domain ?? row.host
  const port = row.domain === null && row.port !== DEFAULT_SIP_PORT ? row.port : undefined
  const requestUri = new SipUri({ host: uriHost(domain), ...(port !== undefined && { port }) })
  const aor = new SipUri({ user: row.username, host: uriHost(domain) })
  let route: NameAddr | undefined
  if (row.outbound_proxy !== null) {
    const hop = nextHop(row)
    const params: [string, string | null][] =
      row.transport === 'tcp'
        ? [
            ['transport', 'tcp'],
            ['lr', null],
          ]
        : [['lr', null]]
    route = new NameAddr(new SipUri({ host: uriHost(hop.host), port: hop.port, params: new Params(params) }))
  }
  return {
    requestUri,
    aor,
    contact,
    ...(route && { route }),
    authUsername: row.auth_username ?? row.username,
    password: o.password,
    expiresS: row.register_expires_s,
  }
}

/**
 * One REGISTER (§10.2.1), built without Via (the user agent adds it) and without credentials:
 * Request-URI the domain, To the AOR, From the AOR with our tag, the registration's one Call-ID
 * (§10.2.4) and CSeq, our Contact, the lifetime asked for in Expires (0 removes the binding, §10.2.2).
 */
export function registerRequest(s: RegistrationSettings, o: { callId: string; fromTag: string; cseq: number; expiresS: number }): SipRequest {
  const aor = `<${s.aor.serialize()}>`
  const fields: [string, string][] = [['Max-Forwards', '70']]
  if (s.route) fields.push(['Route', s.route.serialize()])
  fields.push(
    ['To', aor],
    ['From', `${aor};tag=${o.fromTag}`],
    ['Call-ID', o.callId],
    ['CSeq', new CSeq(o.cseq, 'REGISTER').serialize()],
    ['Contact', s.contact.serialize()],
    ['Expires', String(o.expiresS)],
    ['User-Agent', 'Ozan'],
  )
  return new SipRequest('REGISTER', s.requestUri, new SipHeaders(fields))
}

/** §19.1.4 as far as a contact we wrote can differ: user, host (any case), port and transport, defaults filled in. */
export function sameContactUri(a: SipUri, b: SipUri): boolean {
  const transport = (u: SipUri) => (u.params.get('transport') ?? 'udp').toLowerCase()
  return (
    a.scheme === b.scheme &&
    a.user === b.user &&
    a.host.toLowerCase() === b.host.toLowerCase() &&
    (a.port ?? DEFAULT_SIP_PORT) === (b.port ?? DEFAULT_SIP_PORT) &&
    transport(a) === transport(b)
  )
}

/**
 * The lifetime a 2xx to REGISTER granted our binding (§10.2.4): the expires parameter of the
 * Contact that is ours, else the Expires field, else what we asked for.
 */
export function grantedExpiresS(response: SipResponse, contact: SipUri, askedS: number): number {
  const contacts = response.headers.contact()
  if (contacts !== '*') {
    for (const c of contacts) {
      if (!(c.uri instanceof SipUri) || !sameContactUri(c.uri, contact)) continue
      const expires = c.params.get('expires')
      if (typeof expires === 'string' && /^\d{1,10}$/.test(expires)) return Number(expires)
      break
    }
  }
  return response.headers.expires() ?? askedS
}

/** Retry-After in seconds (§20.33: delta-seconds, then an optional comment and parameters). */
export function retryAfterS(response: SipResponse): number | undefined {
  const m = /^\s*(\d{1,10})/.exec(response.headers.get('Retry-After') ?? '')
  return m ? Number(m[1]) : undefined
}
