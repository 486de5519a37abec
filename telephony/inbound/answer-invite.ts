import { randomBytes, randomUUID } from 'node:crypto'
import type { Logger } from '../../core/index.js'
import type { LiveCalls, PreparedCall } from '../../engine/index.js'
import { NameAddr, negotiateAsUas, parseSdp, parseUri, responseTo, SdpSession, serializeSdp, type SipResponse, uasDialog } from '../../sip/index.js'
import { CallDialog, type CallDialogDeps } from '../calls/call-dialog.js'
import type { PhoneCallStart } from '../calls/types.js'
import type { CallMedia, PhoneSignals } from '../media/types.js'
import { uriHost } from '../sip/peers.js'
import type { IncomingRequest, SipUserAgent } from '../sip/user-agent.js'
import { admitInvite, type AdmissionDeps } from './admission.js'

/** §13.3.1.4: the 2xx is sent again at T1, 2·T1 … up to T2 until the ACK comes, for at most 64·T1. */
const T1_MS = 500
const T2_MS = 4000

export interface AnswerContext extends AdmissionDeps {
  ua: SipUserAgent
  logger: Logger
  liveCalls: LiveCalls
  /** The address written in SDP c= (an IP literal peers send RTP to). */
  mediaAddress: string
  /** Ring time between 180 and 200 (OZAN_SIP_ANSWER_DELAY_MS). */
  answerDelayMs: number
  openMedia(signals: PhoneSignals): Promise<CallMedia>
  /** What the call runs; throws an error with a `code` when no agent can answer (→ 480). */
  prepare(start: PhoneCallStart): PreparedCall
  recordRefused(start: PhoneCallStart & { code: string }): void
  startCall(callId: string, media: CallMedia, prepared: PreparedCall): void
  dialogDeps: Omit<CallDialogDeps, 'transport' | 'source' | 'onClosed' | 'referDomain'>
  /** The call's dialog is established: in-dialog requests go to it from now on. */
  established(call: CallDialog): void
  /** The call's dialog is over: forget it. */
  closed(call: CallDialog): void
}

/** One INVITE being answered, until its 2xx is acknowledged; a CANCEL meanwhile ends it with 487. */
export class PendingInvite {
  cancelled = false
  #answered = false
  #retransmit: NodeJS.Timeout | undefined
  #release: (() => void) | undefined
  #media: CallMedia | undefined

  constructor(
    readonly incoming: IncomingRequest,
    private readonly ctx: AnswerContext,
  ) {}

  /** §9.2: a CANCEL before the final answer gets 487 Request Terminated for the INVITE. */
  cancel(): void {
    if (this.#answered || this.cancelled) return
    this.cancelled = true
    this.#reply(487, 'Request Terminated')
    this.#cleanUp()
  }

  /** A 2xx went out: the INVITE is over once it is acknowledged (or hung up for want of an ACK). */
  get answered(): boolean {
    return this.#answered
  }

  /** The ACK of our 2xx (§13.3.1.4): retransmission stops. */
  acknowledged(): void {
    clearTimeout(this.#retransmit)
    this.#retransmit = undefined
  }

  async answer(): Promise<void> {
    const { request, source } = this.incoming
    const ctx = this.ctx
    this.#reply(100, 'Trying')
    const admitted = admitInvite(request, source, ctx)
    if (!admitted.ok) {
      ctx.logger.info({ status: admitted.status, why: admitted.why, source: source.host }, 'inbound call refused')
      return this.#reply(admitted.status, admitted.reason, admitted.headers)
    }
    const { number, trunk } = admitted
    const start: PhoneCallStart = {
      callId: randomUUID(),
      organizationId: number.organization_id,
      environmentId: number.environment_id,
      workflowId: number.workflow_id!,
      callerNumber: admitted.callerNumber,
      calledNumber: admitted.calledNumber,
      direction: 'inbound',
    }
    const log = ctx.logger.child({ call_id: start.callId, organization_id: start.organizationId, trunk_id: trunk.id })
    const offer = request.body.length > 0 ? parseSdp(request.body) : undefined
    if (offer && !offer.ok) return this.#reply(488, 'Not Acceptable Here')
    // RFC 4028: the session timer, or 422 (with our Min-SE) for an interval too short.
    const timer = negotiateAsUas(request)
    if (timer.kind === 'reject')
      return this.#reply(
        timer.status,
        timer.status === 422 ? 'Session Interval Too Small' : timer.reason,
        timer.status === 422 ? timer.headers.map(([n, v]) => [n, v] as [string, string]) : [],
      )
    this.#release = ctx.liveCalls.acquire(start.organizationId) ?? undefined
    if (!this.#release) {
      log.warn('inbound call refused: the organization is at its live-call cap')
      ctx.recordRefused({ ...start, code: 'concurrency_limit' })
      return this.#reply(486, 'Busy Here')
    }
    const signals: PhoneSignals = { ended: () => call?.hangUp(), transfer: (target) => call?.refer(target) }
    let call: CallDialog | undefined
    try {
      this.#media = await ctx.openMedia(signals)
    } catch (err) {
      log.error({ err }, 'inbound call: no media port')
      this.#cleanUp()
      return this.#reply(503, 'Service Unavailable', [['Retry-After', '5']])
    }
    if (this.cancelled) return this.#cleanUp()
    const media = this.#media
    const sdp = new SdpSession({ address: ctx.mediaAddress, port: media.localPort, sessionId: BigInt(`0x${randomBytes(6).toString('hex')}`), ptimesMs: [20] })
    const negotiated = offer?.ok ? sdp.answerOffer(offer.sdp) : undefined
    if (negotiated && !negotiated.ok) {
      this.#cleanUp()
      return this.#reply(488, 'Not Acceptable Here', [['Warning', `399 ozan "${negotiated.error.code}"`]])
    }
    const toTag = randomBytes(6).toString('hex')
    // §12.1.1: a dialog-creating response copies the request's Record-Route, so the caller's later
    // requests (ACK, BYE) take the route the proxies asked for.
    const recordRoute = request.headers.getAll('Record-Route').map((v) => ['Record-Route', v] as [string, string])
    this.#reply(180, 'Ringing', recordRoute, toTag)
    if (ctx.answerDelayMs > 0) await new Promise((r) => setTimeout(r, ctx.answerDelayMs))
    if (this.cancelled) return
    let prepared: PreparedCall
    try {
      prepared = ctx.prepare(start)
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'internal_error'
      log.warn({ code }, 'inbound call refused: the agent cannot answer')
      this.#cleanUp()
      return this.#reply(480, 'Temporarily Unavailable', [['Warning', `399 ozan "${code}"`]], toTag)
    }
    const contact = new NameAddr(parseUri(ctx.ua.contact('agent', source.transport).slice(1, -1))!)
    const made = uasDialog(request, { localTag: toTag, localContact: contact, state: 'confirmed' })
    if (!made.ok) {
      prepared.recorder.ended('error')
      this.#cleanUp()
      return this.#reply(400, 'Bad Request', [], toTag)
    }
    const body = negotiated?.ok ? negotiated.answer : sdp.createOffer()
    const ok = responseTo(request, 200, 'OK', {
      toTag,
      headers: [
        ...recordRoute,
        ...timer.headers,
        ['Contact', contact.serialize()],
        ['Allow', 'INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE, REFER, NOTIFY'],
        ['Content-Type', 'application/sdp'],
      ],
      body: Buffer.from(serializeSdp(body)),
    })
    this.#answered = true
    call = new CallDialog(made.value, media, sdp, {
      ...ctx.dialogDeps,
      referDomain: uriHost(trunk.domain ?? trunk.host),
      transport: source.transport,
      source,
      onClosed: () => {
        this.acknowledged()
        this.#release?.()
        if (call) ctx.closed(call)
      },
    })
    ctx.established(call)
    this.#sendFinal(ok, () => {
      log.warn('inbound call: no ACK for the 200 OK in 32 s; hanging up')
      call?.hangUp()
    })
    if (negotiated?.ok) media.apply(negotiated.negotiated)
    if (timer.timer) call.startSessionTimer(timer.timer, 'uas')
    ctx.startCall(start.callId, media, prepared)
    log.info({ caller: start.callerNumber, called: start.calledNumber }, 'inbound call answered')
  }

  #sendFinal(ok: SipResponse, noAck: () => void): void {
    const { transaction } = this.incoming
    this.ctx.ua.respond(transaction, ok)
    let interval = T1_MS
    let elapsed = 0
    const again = () => {
      elapsed += interval
      // §13.3.1.4: no ACK in 64·T1: the dialog is confirmed, but the session SHOULD be ended.
      if (elapsed >= 64 * T1_MS) return noAck()
      this.ctx.ua.respond(transaction, ok)
      interval = Math.min(interval * 2, T2_MS)
      this.#retransmit = setTimeout(again, interval)
    }
    this.#retransmit = setTimeout(again, interval)
  }

  #reply(status: number, reason: string, headers: [string, string][] = [], toTag?: string): void {
    const options = { headers, ...(toTag !== undefined && status > 100 && { toTag }) }
    this.ctx.ua.respond(this.incoming.transaction, responseTo(this.incoming.request, status, reason, options))
  }

  #cleanUp(): void {
    this.#media?.close()
    this.#media = undefined
    this.#release?.()
    this.#release = undefined
  }
}
