import { type AnswerError, answerError, answerOffer } from './answer.js'
import { type SdpChanges, changesBetween, remoteVersionStep } from './changes.js'
import { audioMedia, describeSession, localOrigin, refusedMedia } from './describe.js'
import { intersectDirections } from './direction.js'
import type { SdpDirection, SdpOrigin, SessionDescription } from './model.js'
import type { NegotiatedMedia } from './negotiated.js'
import { offerLine } from './offer.js'
import { type AudioOptions, type ResolvedAudio, resolveAudio } from './options.js'
import { type ReadAnswerError, readAnswer } from './read-answer.js'
import { serializeSdp } from './serialize.js'

/**
 * idle: nothing negotiated yet. offer_sent: our offer awaits its answer (in the INVITE's 2xx, or
 * in the ACK when we offered in a 2xx to an INVITE without one, RFC 3261 §14.2). stable: negotiated.
 */
export type SdpSessionState = 'idle' | 'offer_sent' | 'stable'

const TRANSITIONS: Readonly<Record<SdpSessionState, readonly SdpSessionState[]>> = {
  idle: ['offer_sent', 'stable'],
  offer_sent: ['stable', 'idle'],
  stable: ['offer_sent', 'stable'],
}

export interface SdpSessionOptions extends AudioOptions {
  readonly sessionId: bigint | number | string
  /** The first description's o= version; default 0. */
  readonly version?: bigint | number | string
  readonly username?: string
  readonly sessionName?: string
}

export type SessionAnswerResult =
  | { readonly ok: true; readonly answer: SessionDescription; readonly negotiated: NegotiatedMedia; readonly changes: SdpChanges }
  | { readonly ok: false; readonly error: AnswerError }

export type SessionReadResult =
  | { readonly ok: true; readonly negotiated: NegotiatedMedia; readonly changes: SdpChanges }
  | { readonly ok: false; readonly error: ReadAnswerError }

/**
 * One dialog's offer/answer state (RFC 3264 §8): our o= line, which keeps its session id and
 * address and whose version grows by exactly one each time what we send changes (and stays when
 * it does not); the last descriptions both ways; the negotiated stream; local hold. A failed
 * exchange leaves the session as it was (RFC 3261 §14.1-14.2). Pure and synchronous.
 */
export class SdpSession {
  #state: SdpSessionState = 'idle'
  readonly #audio: ResolvedAudio
  readonly #origin: SdpOrigin
  readonly #sessionName: string | undefined
  #sent: SessionDescription | undefined
  #pendingOffer: SessionDescription | undefined
  #remote: SessionDescription | undefined
  #negotiated: NegotiatedMedia | undefined
  #localHold = false

  /** Throws a RangeError for invalid options (a programming error), before anything is sent. */
  constructor(options: SdpSessionOptions) {
    this.#audio = resolveAudio(options)
    this.#origin = localOrigin({ ...options, version: options.version ?? 0 }, this.#audio)
    this.#sessionName = options.sessionName
  }

  get state(): SdpSessionState {
    return this.#state
  }

  get negotiated(): NegotiatedMedia | undefined {
    return this.#negotiated
  }

  /** The last description we sent, offer or answer. */
  get localDescription(): SessionDescription | undefined {
    return this.#sent
  }

  get remoteDescription(): SessionDescription | undefined {
    return this.#remote
  }

  get onHoldLocally(): boolean {
    return this.#localHold
  }

  /** Puts the call on hold from our side: the next offer or answer says sendonly (inactive if we only received) (RFC 3264 §8.4). */
  hold(): void {
    this.#localHold = true
  }

  /** Takes our hold off: the next offer or answer says what `direction` allows again. */
  resume(): void {
    this.#localHold = false
  }

  /**
   * Our offer: for the INVITE, a re-INVITE (hold, resume, refresh), or the 2xx to an INVITE without
   * a body. A re-offer keeps every m= line of the session (§8: their number never decreases), the
   * negotiated codec first and telephone-event's payload type (§8.3.2: a mapping does not change).
   */
  createOffer(): SessionDescription {
    this.#transition('offer_sent')
    const negotiated = this.#negotiated
    const codecs = negotiated ? [negotiated.codec, ...this.#audio.codecs.filter((c) => c !== negotiated.codec)] : this.#audio.codecs
    const audio = { ...this.#audio, codecs, direction: this.#direction() }
    const dtmf = this.#audio.dtmfPayloadType === null ? null : (negotiated?.dtmfPayloadType ?? this.#audio.dtmfPayloadType)
    const line = audioMedia(audio, offerLine(audio, dtmf))
    const index = negotiated?.mediaIndex ?? 0
    const previous = this.#sent?.media ?? []
    const media = previous.length === 0 ? [line] : previous.map((m, i) => (i === index ? line : refusedMedia(m)))
    const offer = this.#stamp(describeSession(this.#origin, this.#audio, media, { sessionName: this.#sessionName }))
    this.#pendingOffer = offer
    this.#sent = offer
    return offer
  }

  /** Reads the answer to our pending offer. On failure the session stays as before the offer. */
  readAnswer(answer: SessionDescription): SessionReadResult {
    const offer = this.#pendingOffer
    if (this.#state !== 'offer_sent' || !offer) throw new Error(`SdpSession: no offer awaits an answer (state ${this.#state})`)
    this.#pendingOffer = undefined
    const result = readAnswer(offer, answer, this.#audio)
    if (!result.ok) {
      this.#transition(this.#negotiated ? 'stable' : 'idle')
      return result
    }
    const changes = changesBetween(this.#negotiated, result.negotiated, remoteVersionStep(this.#remote?.origin, answer.origin))
    this.#transition('stable')
    this.#remote = answer
    this.#negotiated = result.negotiated
    return { ok: true, negotiated: result.negotiated, changes }
  }

  /** Our offer was answered with a non-2xx (491, 488, …): the session stays as it was (RFC 3261 §14.1). */
  cancelOffer(): void {
    if (this.#state !== 'offer_sent') throw new Error(`SdpSession: no offer to cancel (state ${this.#state})`)
    this.#pendingOffer = undefined
    this.#transition(this.#negotiated ? 'stable' : 'idle')
  }

  /**
   * Answers the peer's offer, initial or re-offer. A failure (answer 488) leaves the session as it
   * was. An offer arriving while ours is pending is glare, the dialog's to answer 491: a RangeError here.
   */
  answerOffer(offer: SessionDescription): SessionAnswerResult {
    if (this.#state === 'offer_sent') throw new RangeError('SdpSession: an offer arrived while ours is pending (glare: answer 491)')
    if (this.#sent && offer.media.length < this.#sent.media.length) return answerError('fewer_media')
    const result = answerOffer(offer, { ...this.#audio, direction: this.#direction(), ...this.#originOptions() })
    if (!result.ok) return result
    const answer = this.#stamp({ ...result.answer, origin: this.#origin })
    const changes = changesBetween(this.#negotiated, result.negotiated, remoteVersionStep(this.#remote?.origin, offer.origin))
    this.#transition('stable')
    this.#sent = answer
    this.#remote = offer
    this.#negotiated = result.negotiated
    return { ok: true, answer, negotiated: result.negotiated, changes }
  }

  #direction(): SdpDirection {
    return this.#localHold ? intersectDirections(this.#audio.direction, 'sendonly') : this.#audio.direction
  }

  #originOptions() {
    return { sessionId: this.#origin.sessionId, version: this.#origin.sessionVersion, username: this.#origin.username, sessionName: this.#sessionName }
  }

  /** §8: the version grows by one when the description changes and stays when it does not. */
  #stamp(sdp: SessionDescription): SessionDescription {
    const withVersion = (d: SessionDescription, sessionVersion: string) => ({ ...d, origin: { ...d.origin, sessionVersion } })
    const last = this.#sent
    let version = this.#origin.sessionVersion
    if (last) {
      const unchanged = serializeSdp(withVersion(sdp, '0')) === serializeSdp(withVersion(last, '0'))
      version = unchanged ? last.origin.sessionVersion : (BigInt(last.origin.sessionVersion) + 1n).toString()
    }
    return withVersion(sdp, version)
  }

  #transition(to: SdpSessionState): void {
    if (!TRANSITIONS[this.#state].includes(to)) throw new Error(`SdpSession: ${this.#state} -> ${to} is not a transition`)
    this.#state = to
  }
}
