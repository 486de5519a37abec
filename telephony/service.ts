import os from 'node:os'
import type { EventBus, GuardOptions, Logger, ResolveHost } from '../core/index.js'
import { systemResolve } from '../core/index.js'
import type { Repos, SipTrunkRow } from '../db/index.js'
import type { LiveCalls, PreparedCall } from '../engine/index.js'
import {
  DigestVerifier,
  dialogKey,
  requestDialogIdOf,
  responseDialogIdOf,
  responseTo,
  SipListener,
  type SipRequest,
  type SipResponse,
  type SourceLimits,
  type TimerClock,
  type TransactionId,
} from '../sip/index.js'
import type { CallDialog } from './calls/call-dialog.js'
import type { PhoneCallStart } from './calls/types.js'
import { PendingInvite } from './inbound/answer-invite.js'
import { type DialProgress, type DialRequest, dial } from './outbound/dial.js'
import type { CallMedia, PhoneSignals } from './media/types.js'
import { RegistrationManager } from './registration/index.js'
import { type IncomingRequest, SipUserAgent } from './sip/user-agent.js'
import { TrunkSources } from './trunk-sources.js'

export interface TelephonyConfig {
  /** How long an outbound call may ring before it is cancelled as no-answer. */
  ringTimeoutMs?: number
  host: string
  port: number
  transports: ('udp' | 'tcp')[]
  /** Written in Via, Contact and SDP; null: the machine's first non-internal IPv4, else 127.0.0.1. */
  publicAddress: string | null
  answerDelayMs: number
  sourceLimits?: Partial<SourceLimits>
}

export interface TelephonyDeps {
  config: TelephonyConfig
  repos: Repos
  /** Where sip.trunk.registered / sip.trunk.down go (the webhook outbox subscribes). */
  bus: EventBus
  logger: Logger
  guard: GuardOptions
  liveCalls: LiveCalls
  /** HMAC key of our digest nonces (≥ 32 bytes). */
  nonceSecret: Buffer
  passwordOf(trunk: SipTrunkRow): string | null
  prepare(start: PhoneCallStart): PreparedCall
  recordRefused(start: PhoneCallStart & { code: string }): void
  startCall(callId: string, media: CallMedia, prepared: PreparedCall): void
  /** How a call we placed gets on before it connects (the pending record). */
  progress(callId: string, state: DialProgress, detail?: string): void
  openMedia(host: string, signals: PhoneSignals): Promise<CallMedia>
  /** Frees what calls' media share (the media worker), once the calls are gone. */
  closeMedia?(): Promise<void>
  resolve?: ResolveHost
  /** The calls' session timers' clock (RFC 4028); tests move it by hand. */
  timers?: TimerClock
}

const ALLOW = 'INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE, REFER, NOTIFY'
const MAX_PENDING_INVITES = 1000
/** An outbound call rings this long before it is cancelled as no-answer. */
export const DEFAULT_RING_TIMEOUT_MS = 60_000

/** The machine's first non-internal IPv4 address: what a peer on the network reaches us at. */
export function defaultPublicAddress(): string {
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address
  return '127.0.0.1'
}

/**
 * Phone calls over SIP (issue #21): the listener and the UA core, INVITEs answered by the numbers'
 * agents, in-dialog requests routed to their calls. Every organization's calls go through the one
 * listener; which organization an INVITE is for is decided by its number (inbound/admission.ts).
 */
export class TelephonyService {
  readonly ua: SipUserAgent
  readonly registrations: RegistrationManager
  readonly #pending = new Map<TransactionId, PendingInvite>()
  readonly #calls = new Map<string, CallDialog>()
  readonly #sources: TrunkSources
  readonly #verifiers = new Map<string, { updatedAt: number; verifier: DigestVerifier | undefined }>()

  private constructor(
    private readonly deps: TelephonyDeps,
    readonly listener: SipListener,
    readonly publicAddress: string,
  ) {
    this.#sources = new TrunkSources(deps.resolve ?? systemResolve)
    this.ua = new SipUserAgent({
      listener,
      publicHost: publicAddress,
      handlers: {
        request: (incoming) => this.#request(incoming),
        ack: (request) => this.#ack(request),
        strayResponse: (response) => this.#strayResponse(response),
      },
    })
    this.registrations = new RegistrationManager({
      ua: this.ua,
      repos: deps.repos,
      bus: deps.bus,
      passwordOf: deps.passwordOf,
      guard: deps.guard,
      logger: deps.logger.child({ part: 'registration' }),
    })
  }

  static async start(deps: TelephonyDeps): Promise<TelephonyService> {
    let service: TelephonyService | undefined
    const listener = await SipListener.listen({
      host: deps.config.host,
      port: deps.config.port,
      transports: deps.config.transports,
      onMessage: (message, source) => service?.ua.receive(message, source),
      ...(deps.config.sourceLimits && { sourceLimits: deps.config.sourceLimits }),
    })
    service = new TelephonyService(deps, listener, deps.config.publicAddress ?? defaultPublicAddress())
    for (const trunk of deps.repos.sipTrunks.all()) void service.#sources.refresh(trunk)
    service.registrations.start()
    deps.logger.info({ port: listener.port, transports: deps.config.transports, public_address: service.publicAddress }, 'SIP listening')
    return service
  }

  get port(): number {
    return this.listener.port
  }

  /** INVITEs being answered (bounded by MAX_PENDING_INVITES: over it, 503). */
  get pendingInvites(): number {
    return this.#pending.size
  }

  get liveCalls(): number {
    return this.#calls.size
  }

  /** A trunk was created, changed or deleted: its sources and verifier are read again. */
  trunkChanged(trunkId: string): void {
    this.#verifiers.delete(trunkId)
    this.#sources.forget(trunkId)
    const row = this.deps.repos.sipTrunks.byId(trunkId)
    if (row) void this.#sources.refresh(row)
    this.registrations.trunkChanged(trunkId)
  }

  /**
   * Closes the sockets. Stop the engine first: its calls end with server_shutdown, and each one's
   * transport hangs up with BYE; a call still here then is hung up now.
   */
  async close(): Promise<void> {
    for (const call of [...this.#calls.values()]) call.hangUp()
    // Registered trunks unregister (bounded wait) while the BYEs go.
    await this.registrations.close()
    // The BYEs leave before the sockets close; their answers are not waited for.
    await new Promise((r) => setTimeout(r, 50))
    this.ua.close()
    await this.listener.close()
    await this.deps.closeMedia?.()
  }

  #request(incoming: IncomingRequest): void {
    const { request, transaction } = incoming
    const key = dialogKeyOf(request)
    if (key !== undefined) {
      const call = this.#calls.get(key)
      if (call) return call.request(incoming)
      return this.ua.respond(transaction, responseTo(request, 481, 'Call/Transaction Does Not Exist'))
    }
    switch (request.method) {
      case 'INVITE':
        return this.#invite(incoming)
      case 'CANCEL': {
        const pending = incoming.cancels === undefined ? undefined : this.#pending.get(incoming.cancels)
        this.ua.respond(transaction, responseTo(request, pending ? 200 : 481, pending ? 'OK' : 'Call/Transaction Does Not Exist'))
        return pending?.cancel()
      }
      case 'OPTIONS':
        // Carriers ping trunks with OPTIONS to see they are up.
        return this.ua.respond(
          transaction,
          responseTo(request, 200, 'OK', {
            headers: [
              ['Allow', ALLOW],
              ['Accept', 'application/sdp'],
            ],
          }),
        )
      case 'BYE':
        return this.ua.respond(transaction, responseTo(request, 481, 'Call/Transaction Does Not Exist'))
      default:
        return this.ua.respond(transaction, responseTo(request, 405, 'Method Not Allowed', { headers: [['Allow', ALLOW]] }))
    }
  }

  #invite(incoming: IncomingRequest): void {
    if (this.#pending.size >= MAX_PENDING_INVITES) {
      return this.ua.respond(incoming.transaction, responseTo(incoming.request, 503, 'Service Unavailable', { headers: [['Retry-After', '5']] }))
    }
    const pending = new PendingInvite(incoming, {
      ua: this.ua,
      logger: this.deps.logger,
      liveCalls: this.deps.liveCalls,
      repos: this.deps.repos,
      mediaAddress: this.publicAddress,
      answerDelayMs: this.deps.config.answerDelayMs,
      isTrunkSource: (trunk, address) => this.#sources.isSource(trunk, address),
      verifierFor: (trunk) => this.#verifierFor(trunk),
      openMedia: (signals) => this.deps.openMedia(this.deps.config.host, signals),
      prepare: (start) => this.deps.prepare(start),
      recordRefused: (start) => this.deps.recordRefused(start),
      startCall: (callId, media, prepared) => this.deps.startCall(callId, media, prepared),
      dialogDeps: { ua: this.ua, guard: this.deps.guard, logger: this.deps.logger, ...(this.deps.timers && { timers: this.deps.timers }) },
      established: (call) => this.#calls.set(dialogKey(call.dialog.id), call),
      closed: (call) => this.#calls.delete(dialogKey(call.dialog.id)),
    })
    this.#pending.set(incoming.transaction, pending)
    const forget = () => this.#pending.delete(incoming.transaction)
    pending
      .answer()
      .catch((err) => this.deps.logger.error({ err }, 'inbound call failed'))
      // A CANCEL matters until the final answer. A refusal's ACK is its transaction's own, so a
      // refused or cancelled INVITE is forgotten at once; an answered one when its ACK comes
      // (#ack), or after 32 s without one (it is hung up then). The table holds INVITEs in
      // flight, not the last 32 s of calls: its bound limits concurrency, not the call rate.
      .finally(() => (pending.answered ? setTimeout(forget, 32_000).unref() : forget()))
  }

  /** Places a call (POST /calls with channel phone); its progress goes to `deps.progress`. */
  dial(r: DialRequest): void {
    void dial(r, {
      ua: this.ua,
      repos: this.deps.repos,
      guard: this.deps.guard,
      logger: this.deps.logger,
      liveCalls: this.deps.liveCalls,
      mediaAddress: this.publicAddress,
      ringTimeoutMs: this.deps.config.ringTimeoutMs ?? DEFAULT_RING_TIMEOUT_MS,
      passwordOf: this.deps.passwordOf,
      openMedia: (signals) => this.deps.openMedia(this.deps.config.host, signals),
      prepare: (start) => this.deps.prepare(start),
      startCall: (callId, media, prepared) => this.deps.startCall(callId, media, prepared),
      progress: (callId, state, detail) => this.deps.progress(callId, state, detail),
      dialogDeps: { ua: this.ua, guard: this.deps.guard, logger: this.deps.logger, ...(this.deps.timers && { timers: this.deps.timers }) },
      established: (call) => this.#calls.set(dialogKey(call.dialog.id), call),
      closed: (call) => this.#calls.delete(dialogKey(call.dialog.id)),
    }).catch((err) => {
      this.deps.logger.error({ err, call_id: r.callId }, 'outbound call failed')
      this.deps.progress(r.callId, 'failed', 'internal_error')
    })
  }

  /** A 2xx retransmitted for an INVITE we sent (our ACK was lost): the ACK again (§13.2.2.4). */
  #strayResponse(response: SipResponse): void {
    if (response.status < 200 || response.status >= 300 || response.headers.cseq().method !== 'INVITE') return
    const id = responseDialogIdOf(response)
    const ack = id ? this.#calls.get(dialogKey(id))?.lastAck : undefined
    if (ack) this.ua.sendStateless(ack.request, ack.target)
  }

  #ack(request: SipRequest): void {
    const key = dialogKeyOf(request)
    if (key === undefined) return
    const call = this.#calls.get(key)
    if (!call) return
    for (const [transaction, pending] of this.#pending)
      if (pending.incoming.request.headers.callId() === request.headers.callId()) {
        pending.acknowledged()
        this.#pending.delete(transaction)
      }
    call.ack(request)
  }

  #verifierFor(trunk: SipTrunkRow): DigestVerifier | undefined {
    const cached = this.#verifiers.get(trunk.id)
    if (cached && cached.updatedAt === trunk.updated_at) return cached.verifier
    const user = trunk.auth_username ?? trunk.username
    const password = user === null ? null : this.deps.passwordOf(trunk)
    const verifier =
      user === null || password === null
        ? undefined
        : new DigestVerifier({
            realm: this.publicAddress,
            secret: this.deps.nonceSecret,
            lookup: (name) => (name === user ? { password } : undefined),
            // MD5 first: RFC 8760 lets a client pick any challenge it supports, but many phones and
            // carriers (and SIPp) answer only the first, and most speak only MD5.
            algorithms: ['MD5', 'SHA-256'],
          })
    this.#verifiers.set(trunk.id, { updatedAt: trunk.updated_at, verifier })
    return verifier
  }
}

/** The dialog key of an in-dialog request (a To tag), from our side: local = To tag, remote = From tag. */
function dialogKeyOf(request: SipRequest): string | undefined {
  const id = requestDialogIdOf(request)
  return id ? dialogKey(id) : undefined
}
