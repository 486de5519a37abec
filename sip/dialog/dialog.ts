import { CSeq, NameAddr, SipHeaders, SipRequest, type SipResponse, SipUri, type Uri } from '../message/index.js'
import { type DialogId, requestDialogIdOf } from './dialog-id.js'
import { DialogStateError } from './errors.js'

/** §12: early until a 2xx confirms it; terminated by BYE, a non-2xx final answer, 481 or 408. */
export type DialogState = 'early' | 'confirmed' | 'terminated'

const TRANSITIONS: Readonly<Record<DialogState, readonly DialogState[]>> = {
  early: ['confirmed', 'terminated'],
  confirmed: ['terminated'],
  terminated: [],
}

/**
 * Target refresh requests (§12.2, RFC 3311 UPDATE, RFC 6665 SUBSCRIBE/NOTIFY, RFC 3515 REFER):
 * they carry our Contact and theirs replaces the remote target.
 */
export const TARGET_REFRESH_METHODS: ReadonlySet<string> = new Set(['INVITE', 'UPDATE', 'SUBSCRIBE', 'NOTIFY', 'REFER'])

/** Fields `createRequest` writes itself; extraHeaders may not set them. */
const OWNED = new Set(['via', 'to', 'from', 'call-id', 'cseq', 'route', 'max-forwards', 'contact', 'content-type', 'content-length'])

/** §8.1.1.6: the recommended initial Max-Forwards. */
export const DEFAULT_MAX_FORWARDS = 70

export interface DialogInit {
  readonly id: DialogId
  readonly state: 'early' | 'confirmed'
  /** The local and remote URIs (§12.1) as From/To values, without tags. */
  readonly localUri: NameAddr
  readonly remoteUri: NameAddr
  readonly remoteTarget: Uri
  readonly routeSet: readonly NameAddr[]
  readonly localCSeq: number | undefined
  readonly remoteCSeq: number | undefined
  readonly secure: boolean
  /** Our Contact, sent in target refresh requests (§12.2.1.1). */
  readonly localContact: NameAddr
  /** The first local CSeq when the dialog has none yet (a UAS's first request, §12.2.1.1). */
  readonly initialLocalCSeq?: number
}

export interface InDialogRequestOptions {
  readonly body?: Buffer
  /** Required with a body, e.g. application/sdp. */
  readonly contentType?: string
  /** Further fields (Supported, Session-Expires, Authorization, …), after the dialog's own. */
  readonly extraHeaders?: ReadonlyArray<readonly [string, string]>
}

/** What to do with a request received in this dialog (§12.2.2). */
export type InDialogVerdict = { readonly accept: true } | { readonly accept: false; readonly status: 481 | 500; readonly reason: string }

/**
 * A dialog (RFC 3261 §12): its state and the values every in-dialog request is built from. The
 * requests it builds carry no Via: the transaction layer prepends one with a fresh branch, for
 * these as for every request a UA sends (§8.1.1.7).
 */
export class Dialog {
  readonly id: DialogId
  readonly localUri: NameAddr
  readonly remoteUri: NameAddr
  readonly secure: boolean
  readonly localContact: NameAddr
  #state: DialogState
  #remoteTarget: Uri
  #routeSet: readonly NameAddr[]
  #localCSeq: number | undefined
  #remoteCSeq: number | undefined
  readonly #initialLocalCSeq: number

  constructor(init: DialogInit) {
    this.id = init.id
    this.#state = init.state
    this.localUri = withoutTag(init.localUri)
    this.remoteUri = withoutTag(init.remoteUri)
    this.#remoteTarget = init.remoteTarget
    this.#routeSet = init.routeSet
    this.#localCSeq = init.localCSeq
    this.#remoteCSeq = init.remoteCSeq
    this.secure = init.secure
    this.localContact = init.localContact
    // §8.1.1.5: any value below 2**31 will do; a dialog ID is unique already, so 1 serves.
    this.#initialLocalCSeq = init.initialLocalCSeq ?? 1
    if (!Number.isInteger(this.#initialLocalCSeq) || this.#initialLocalCSeq < 0 || this.#initialLocalCSeq >= 2 ** 31) {
      throw new RangeError('initialLocalCSeq must be an integer below 2**31')
    }
  }

  get state(): DialogState {
    return this.#state
  }

  get remoteTarget(): Uri {
    return this.#remoteTarget
  }

  get routeSet(): readonly NameAddr[] {
    return this.#routeSet
  }

  get localCSeq(): number | undefined {
    return this.#localCSeq
  }

  get remoteCSeq(): number | undefined {
    return this.#remoteCSeq
  }

  /** The one way the state changes; throws on a transition §12 does not have. */
  transition(to: DialogState): void {
    if (!TRANSITIONS[this.#state].includes(to)) throw new DialogStateError(this.#state, to)
    this.#state = to
  }

  /** From of our requests, To of our responses: the local URI with the local tag. */
  localAddress(): NameAddr {
    return new NameAddr(this.localUri.uri, this.localUri.params.with('tag', this.id.localTag), this.localUri.displayName)
  }

  /** To of our requests: the remote URI with the remote tag. */
  remoteAddress(): NameAddr {
    return new NameAddr(this.remoteUri.uri, this.remoteUri.params.with('tag', this.id.remoteTag), this.remoteUri.displayName)
  }

  /**
   * Takes the next local CSeq number (§12.2.1.1: one more than the last; the initial value when
   * none was sent yet). createRequest calls it; a request re-sent with credentials (§22.2) takes one too.
   */
  nextLocalCSeq(): number {
    this.#localCSeq = this.#localCSeq === undefined ? this.#initialLocalCSeq : this.#localCSeq + 1
    return this.#localCSeq
  }

  /**
   * A request within the dialog (§12.2.1.1). ACK for a 2xx is `ack()` (its CSeq is the INVITE's,
   * §13.2.2.4) and CANCEL is the transaction layer's `cancelFor()` (§9.1): both are refused here.
   */
  createRequest(method: string, options: InDialogRequestOptions = {}): SipRequest {
    if (method === 'ACK' || method === 'CANCEL') throw new TypeError(`${method} is built by ${method === 'ACK' ? 'Dialog.ack' : 'cancelFor'}`)
    this.#assertOpen(method)
    for (const [name] of options.extraHeaders ?? []) {
      if (OWNED.has(name.toLowerCase())) throw new TypeError(`extraHeaders may not set ${name}: the dialog writes it`)
    }
    const { uri, headers } = this.#base(method, this.nextLocalCSeq())
    let all = headers
    if (TARGET_REFRESH_METHODS.has(method)) all = all.with('Contact', this.localContact.serialize())
    return finish(method, uri, all, options)
  }

  /**
   * The ACK for a 2xx to `invite` (§13.2.2.4): built as any in-dialog request, but with the INVITE's
   * CSeq number and the INVITE's credentials. It is sent outside any transaction, with a new branch.
   */
  ack(invite: SipRequest, options: Omit<InDialogRequestOptions, 'extraHeaders'> = {}): SipRequest {
    this.#assertOpen('ACK')
    const { uri, headers } = this.#base('ACK', invite.headers.cseq().seq)
    let all = headers
    for (const name of ['Authorization', 'Proxy-Authorization']) for (const value of invite.headers.getAll(name)) all = all.with(name, value)
    return finish('ACK', uri, all, options)
  }

  /**
   * A request received in this dialog (§12.2.2): a lower CSeq than the last one is answered 500;
   * a target refresh takes the remote target from its Contact; a BYE terminates the dialog (answer
   * it 200). ACK and CANCEL carry an older request's CSeq and are not counted.
   */
  receiveRequest(request: SipRequest): InDialogVerdict {
    const id = requestDialogIdOf(request)
    if (this.#state === 'terminated' || !id || id.callId !== this.id.callId || id.localTag !== this.id.localTag || id.remoteTag !== this.id.remoteTag) {
      return { accept: false, status: 481, reason: 'Call/Transaction Does Not Exist' }
    }
    if (request.method === 'ACK' || request.method === 'CANCEL') return { accept: true }
    const seq = request.headers.cseq().seq
    if (this.#remoteCSeq !== undefined && seq < this.#remoteCSeq) return { accept: false, status: 500, reason: 'CSeq out of order' }
    this.#remoteCSeq = seq
    if (TARGET_REFRESH_METHODS.has(request.method)) this.#refreshTarget(request.headers)
    if (request.method === 'BYE') this.transition('terminated')
    return { accept: true }
  }

  /**
   * A response to a request we sent in this dialog, or to the INVITE that made it (§12.2.1.2, §13.2.2.4):
   * a 2xx to INVITE confirms an early dialog and recomputes its route set; a 2xx to a target refresh
   * takes the remote target from Contact; a non-2xx final answer to INVITE ends an early dialog; 481
   * and 408 end any dialog.
   */
  receiveResponse(response: SipResponse): void {
    if (this.#state === 'terminated') return
    const method = response.headers.cseq().method
    const { status } = response
    if (status === 481 || status === 408) return this.transition('terminated')
    if (status >= 200 && status < 300) {
      if (method === 'INVITE' && this.#state === 'early') {
        this.#routeSet = [...response.headers.recordRoute()].reverse()
        this.transition('confirmed')
      }
      if (TARGET_REFRESH_METHODS.has(method)) this.#refreshTarget(response.headers)
    } else if (status >= 300 && method === 'INVITE' && this.#state === 'early') {
      this.transition('terminated')
    }
  }

  /** For a UAS: the final answer we sent to the dialog's INVITE confirms or ends an early dialog (§13.3.1.4). */
  answered(status: number): void {
    if (this.#state !== 'early') return
    if (status >= 200 && status < 300) this.transition('confirmed')
    else if (status >= 300) this.transition('terminated')
  }

  #assertOpen(method: string): void {
    if (this.#state === 'terminated') throw new DialogStateError('terminated', `sending ${method}`)
  }

  #refreshTarget(headers: SipHeaders): void {
    const contact = headers.contact()
    if (contact !== '*' && contact.length === 1) this.#remoteTarget = contact[0]!.uri
  }

  /** Request-URI, Route, To, From, Call-ID, CSeq and Max-Forwards (§12.2.1.1). */
  #base(method: string, seq: number): { uri: Uri; headers: SipHeaders } {
    const { uri, route } = requestTarget(this.#remoteTarget, this.#routeSet)
    const headers = new SipHeaders([
      ...route.map((r) => ['Route', r.serialize()] as const),
      ['Max-Forwards', String(DEFAULT_MAX_FORWARDS)],
      ['To', this.remoteAddress().serialize()],
      ['From', this.localAddress().serialize()],
      ['Call-ID', this.id.callId],
      ['CSeq', new CSeq(seq, method).serialize()],
    ])
    return { uri, headers }
  }
}

/**
 * The Request-URI and Route values for a remote target and route set (§12.2.1.1). Loose routing
 * when the first route has `lr`: the target is the Request-URI and the route set the Route. Strict
 * routing otherwise: the first route becomes the Request-URI (without parameters a Request-URI
 * may not have) and the remote target the last Route value.
 */
export function requestTarget(remoteTarget: Uri, routeSet: readonly NameAddr[]): { uri: Uri; route: readonly NameAddr[] } {
  const first = routeSet[0]
  if (!first) return { uri: remoteTarget, route: [] }
  if (first.uri instanceof SipUri && first.uri.params.has('lr')) return { uri: remoteTarget, route: routeSet }
  return { uri: requestUriOf(first.uri), route: [...routeSet.slice(1), new NameAddr(remoteTarget)] }
}

/** §19.1.1 Table 1: the method parameter and URI headers are not allowed in a Request-URI. */
function requestUriOf(uri: Uri): Uri {
  if (!(uri instanceof SipUri)) return uri
  return new SipUri({
    scheme: uri.scheme,
    ...(uri.user === undefined ? {} : { user: uri.user }),
    ...(uri.password === undefined ? {} : { password: uri.password }),
    host: uri.host,
    ...(uri.port === undefined ? {} : { port: uri.port }),
    params: uri.params.without('method'),
  })
}

function withoutTag(addr: NameAddr): NameAddr {
  return addr.params.has('tag') ? new NameAddr(addr.uri, addr.params.without('tag'), addr.displayName) : addr
}

function finish(method: string, uri: Uri, headers: SipHeaders, options: InDialogRequestOptions): SipRequest {
  let all = headers
  if (options.body && options.body.length > 0) {
    if (!options.contentType) throw new TypeError('a body needs a contentType')
    all = all.with('Content-Type', options.contentType)
  }
  for (const [name, value] of options.extraHeaders ?? []) all = all.with(name, value)
  return new SipRequest(method, uri, all, options.body)
}
