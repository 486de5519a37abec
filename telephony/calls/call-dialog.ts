import type { GuardOptions, Logger } from '../../core/index.js'
import {
  type Dialog,
  negotiateAsUac,
  negotiateAsUas,
  type Peer,
  parseSdp,
  parseUri,
  responseTo,
  type SessionTimerChoice,
  systemTimerClock,
  type TimerClock,
  type SdpSession,
  serializeSdp,
  type SipRequest,
  type SipResponse,
} from '../../sip/index.js'
import type { CallMedia } from '../media/types.js'
import type { IncomingRequest, SipUserAgent } from '../sip/user-agent.js'
import { nextHopUri, peerForUri } from '../sip/peers.js'
import { SessionRefresh } from './session-refresh.js'

/** DTMF in SIP INFO bodies (application/dtmf-relay: "Signal=5", application/dtmf: "5"). */
const INFO_DIGIT = /^(?:Signal\s*=\s*)?([0-9*#A-Da-d])\s*$/m
const BYE_TIMEOUT_MS = 32_000

export interface CallDialogDeps {
  ua: SipUserAgent
  guard: GuardOptions
  logger: Logger
  /** The transport the dialog's requests go over, when the remote target does not say. */
  transport: string
  /** Where the dialog's signalling came from: the fallback next hop when the target is refused or unresolvable. */
  source: Peer
  /** Told once, when the dialog is over (BYE either way, failure): forget the call. */
  onClosed(): void
  /** The host a transfer to a number names (the trunk's domain or host). */
  referDomain: string
  /** Session timers' clock (tests move it by hand). */
  timers?: TimerClock
}

/** How long a transfer may take, REFER to its final NOTIFY. */
const REFER_TIMEOUT_MS = 30_000

/** A transfer target as a URI: sip:/sips:/tel: as given (parsed), a number as sip:<number>@domain. */
export function referTarget(target: string, domain: string): string | undefined {
  const t = target.trim()
  if (/^(sips?|tel):/i.test(t)) return parseUri(t)?.serialize()
  const number = t.replace(/[ \-.()]/g, '')
  return /^\+?[0-9]{2,15}$/.test(number) ? `sip:${number}@${domain}` : undefined
}

/**
 * An established phone call's SIP side, the same for calls we answered and calls we placed: it
 * answers the peer's in-dialog requests (BYE, re-INVITE with or without an offer, UPDATE, INFO
 * DTMF, OPTIONS), hangs up with BYE, and keeps the media in step with each negotiation.
 */
export class CallDialog {
  /** For a call we placed: the ACK of its 2xx, sent again when the 2xx is (§13.2.2.4). */
  lastAck: { request: SipRequest; target: Peer } | undefined
  #closed = false
  #byeSent = false
  #refresh: SessionRefresh | undefined
  #referring = false
  #referTimer: NodeJS.Timeout | undefined
  #onReferOutcome: ((ok: boolean, reason?: string) => void) | undefined

  constructor(
    readonly dialog: Dialog,
    readonly media: CallMedia,
    readonly sdp: SdpSession,
    private readonly deps: CallDialogDeps,
  ) {}

  get closed(): boolean {
    return this.#closed
  }

  /** A request the transaction layer matched to this dialog (by Call-ID and tags). */
  request(incoming: IncomingRequest): void {
    const { request, transaction } = incoming
    const verdict = this.dialog.receiveRequest(request)
    if (!verdict.accept) return this.deps.ua.respond(transaction, responseTo(request, verdict.status, verdict.reason))
    switch (request.method) {
      case 'BYE':
        this.deps.ua.respond(transaction, responseTo(request, 200, 'OK'))
        this.media.transport.callerLeft('hangup')
        return this.close()
      case 'INVITE':
      case 'UPDATE':
        return this.deps.ua.respond(transaction, this.#renegotiate(request))
      case 'INFO':
        return this.#info(incoming)
      case 'OPTIONS':
        return this.deps.ua.respond(transaction, responseTo(request, 200, 'OK', { headers: [['Allow', ALLOW]] }))
      case 'NOTIFY':
        return this.#notify(incoming)
      default:
        return this.deps.ua.respond(transaction, responseTo(request, 405, 'Method Not Allowed', { headers: [['Allow', ALLOW]] }))
    }
  }

  /** Our side hangs up: BYE (§15.1.1), then the dialog is over whatever the answer. */
  hangUp(): void {
    if (this.#byeSent || this.#closed) return
    this.#byeSent = true
    const bye = this.dialog.createRequest('BYE')
    const done = () => this.close()
    const timer = setTimeout(done, BYE_TIMEOUT_MS)
    timer.unref()
    void this.#nextHop()
      .then((target) => {
        this.deps.ua.request(bye, target, {
          response: (r) => {
            if (r.status >= 200) {
              clearTimeout(timer)
              done()
            }
          },
          failed: () => {
            clearTimeout(timer)
            done()
          },
        })
      })
      .catch(() => {
        clearTimeout(timer)
        done()
      })
    this.dialog.transition('terminated')
  }

  /**
   * A blind transfer (RFC 3515): REFER the peer to `target` (a number, sent as a SIP URI of the
   * trunk's domain, or a sip:/tel: URI), then follow its NOTIFYs (message/sipfrag). A final 2xx
   * there is success: the call ends (the engine hangs up). A refused REFER, a failed attempt or
   * no answer in REFER_TIMEOUT_MS is a failure the agent says, and the call goes on.
   */
  refer(target: string): void {
    const report = (ok: boolean, reason?: string) => {
      if (!this.#referring) return
      this.#referring = false
      clearTimeout(this.#referTimer)
      this.media.transport.transferResult(ok, reason)
    }
    const uri = referTarget(target, this.deps.referDomain)
    if (!uri || this.#referring || this.#closed) return this.media.transport.transferResult(false, uri ? 'busy' : 'bad_target')
    this.#referring = true
    this.#onReferOutcome = report
    this.#referTimer = setTimeout(() => report(false, 'timeout'), REFER_TIMEOUT_MS)
    this.#referTimer.unref()
    const refer = this.dialog.createRequest('REFER', {
      extraHeaders: [
        ['Refer-To', `<${uri}>`],
        ['Referred-By', this.dialog.localUri.serialize()],
      ],
    })
    void this.#nextHop().then((hop) =>
      this.deps.ua.request(refer, hop, {
        response: (r) => {
          if (r.status >= 300) report(false, `refer ${r.status}`)
        },
        failed: (why) => report(false, why),
      }),
    )
  }

  /** NOTIFY of our REFER's subscription (RFC 3515 §2.4.4): the attempt's progress as a sipfrag status line. */
  #notify({ request, transaction }: IncomingRequest): void {
    const event = request.headers.get('Event')?.split(';')[0]?.trim().toLowerCase()
    if (event !== 'refer') return this.deps.ua.respond(transaction, responseTo(request, 489, 'Bad Event'))
    this.deps.ua.respond(transaction, responseTo(request, 200, 'OK'))
    const status = Number(/^SIP\/2\.0 (\d{3})/.exec(request.body.toString('utf8', 0, 200))?.[1])
    const terminated = request.headers.get('Subscription-State')?.trim().toLowerCase().startsWith('terminated') ?? false
    if (status >= 200 && status < 300) this.#onReferOutcome?.(true)
    else if (status >= 300) this.#onReferOutcome?.(false, `transfer ${status}`)
    else if (terminated) this.#onReferOutcome?.(false, 'subscription ended')
  }

  /** Runs the session timer the dialog's first exchange negotiated (RFC 4028); `role`: ours in the dialog. */
  startSessionTimer(choice: SessionTimerChoice, role: 'uac' | 'uas'): void {
    this.#refresh?.stop()
    this.#refresh = new SessionRefresh(choice, role, this.deps.timers ?? systemTimerClock, {
      refresh: () => this.#sendRefresh(),
      expired: () => {
        this.deps.logger.warn({ interval_s: choice.intervalS }, 'phone call: the session was not refreshed in time; hanging up (RFC 4028)')
        this.hangUp()
      },
    })
  }

  /** Our session refresh: a re-INVITE with the session as it is (same SDP version), ACKed on its 2xx. */
  #sendRefresh(): void {
    const refresh = this.#refresh
    if (!refresh || this.#closed || this.sdp.state !== 'stable') return
    const reinvite = this.dialog.createRequest('INVITE', {
      body: Buffer.from(serializeSdp(this.sdp.createOffer())),
      contentType: 'application/sdp',
      extraHeaders: [
        ['Supported', 'timer'],
        ['Session-Expires', refresh.sessionExpires],
      ],
    })
    void this.#nextHop().then((hop) => {
      const { sent } = this.deps.ua.request(reinvite, hop, {
        response: (r) => {
          if (r.status < 200) return
          if (r.status >= 300) return this.sdp.cancelOffer() // no refresh: the BYE deadline stands
          this.deps.ua.sendStateless(this.dialog.ack(sent), hop)
          const parsed = parseSdp(r.body)
          const read = parsed.ok ? this.sdp.readAnswer(parsed.sdp) : undefined
          if (read?.ok) this.media.apply(read.negotiated)
          else this.sdp.cancelOffer()
          const terms = negotiateAsUac(r)
          refresh.refreshed(terms.ok ? terms.timer : undefined)
        },
        failed: () => this.sdp.cancelOffer(),
      })
    })
  }

  /** Releases the media; idempotent. */
  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.#refresh?.stop()
    // A dialog ended under the call (no ACK, BYE unanswered): the call hears the caller is gone.
    if (!this.media.transport.closed) this.media.transport.callerLeft('dropped')
    this.media.close()
    this.deps.onClosed()
  }

  /**
   * Where the dialog's requests go: the first loose route or the remote target, through the
   * outbound guard; when that is refused or unresolvable, the address the signalling came from
   * (a carrier behind NAT writes a private Contact but reads replies at its public address).
   */
  async #nextHop(): Promise<Peer> {
    try {
      return await peerForUri(nextHopUri(this.dialog.remoteTarget, this.dialog.routeSet), this.deps.transport, this.deps.guard)
    } catch {
      return this.deps.source
    }
  }

  /** A re-INVITE or UPDATE: hold, resume, a new address or codec (RFC 3264 §8); 488 keeps the old session. */
  #renegotiate(request: SipRequest): SipResponse {
    const contact = this.dialog.localContact.serialize()
    // RFC 4028 §9: a re-INVITE or UPDATE is a session refresh; its 2xx restarts the interval.
    const timer = this.#refresh ? negotiateAsUas(request) : undefined
    if (timer?.kind === 'reject')
      return responseTo(
        request,
        timer.status,
        timer.status === 422 ? 'Session Interval Too Small' : timer.reason,
        timer.status === 422 ? { headers: timer.headers } : {},
      )
    const timerHeaders = timer?.kind === 'accept' ? timer.headers : []
    if (request.body.length === 0) {
      // An offerless re-INVITE (§14.2): we offer what we have; the answer comes in the ACK.
      const offer = serializeSdp(this.sdp.createOffer())
      this.#refresh?.refreshed(timer?.kind === 'accept' ? timer.timer : undefined)
      return responseTo(request, 200, 'OK', {
        headers: [...timerHeaders, ['Contact', contact], ['Content-Type', 'application/sdp']],
        body: Buffer.from(offer),
      })
    }
    const parsed = parseSdp(request.body)
    const answered = parsed.ok ? this.sdp.answerOffer(parsed.sdp) : undefined
    if (!answered?.ok) return responseTo(request, 488, 'Not Acceptable Here')
    this.media.apply(answered.negotiated)
    this.#refresh?.refreshed(timer?.kind === 'accept' ? timer.timer : undefined)
    return responseTo(request, 200, 'OK', {
      headers: [...timerHeaders, ['Contact', contact], ['Content-Type', 'application/sdp']],
      body: Buffer.from(serializeSdp(answered.answer)),
    })
  }

  /** The ACK of an offerless re-INVITE carries the peer's answer. */
  ack(request: SipRequest): void {
    if (request.body.length === 0 || this.sdp.state !== 'offer_sent') return
    const parsed = parseSdp(request.body)
    const read = parsed.ok ? this.sdp.readAnswer(parsed.sdp) : undefined
    if (read?.ok) this.media.apply(read.negotiated)
    else this.sdp.cancelOffer()
  }

  /** SIP INFO DTMF (application/dtmf-relay, application/dtmf); other INFO packages are refused 415. */
  #info({ request, transaction }: IncomingRequest): void {
    const type = request.headers.get('Content-Type')?.split(';')[0]?.trim().toLowerCase()
    if (type !== 'application/dtmf-relay' && type !== 'application/dtmf') {
      return this.deps.ua.respond(
        transaction,
        responseTo(request, 415, 'Unsupported Media Type', { headers: [['Accept', 'application/dtmf-relay, application/dtmf']] }),
      )
    }
    const digit = INFO_DIGIT.exec(request.body.toString('utf8').slice(0, 256))?.[1]
    this.deps.ua.respond(transaction, responseTo(request, 200, 'OK'))
    if (digit) this.media.transport.dtmfReceived(digit.toUpperCase())
  }
}

const ALLOW = 'INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE, REFER, NOTIFY'
