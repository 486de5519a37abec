import { type NameAddr, SipHeaderError, type SipRequest, type SipResponse } from '../message/index.js'
import { Dialog } from './dialog.js'
import { type DialogResult, dialogFail } from './errors.js'

/** tag = token (§19.3, §25.1). */
const TOKEN = /^[A-Za-z0-9.!%*_+`'~-]+$/

/**
 * The dialog a UAC gets from a response to its request (§12.1.2): a 101-199 with a To tag makes it
 * early, a 2xx confirmed. The route set is the response's Record-Route reversed, the remote target
 * its Contact, the local CSeq the request's. Secure when the Request-URI was a SIPS URI (such a
 * request goes over TLS, §26.2.2).
 */
export function uacDialog(request: SipRequest, response: SipResponse): DialogResult<Dialog> {
  const { status } = response
  if (status <= 100 || status >= 300) return dialogFail('not_dialog_creating', `a ${status} creates no dialog`)
  try {
    const remoteTag = response.headers.to().tag
    const localTag = request.headers.from().tag
    if (remoteTag === undefined) return dialogFail('no_tag', 'the response has no To tag')
    if (localTag === undefined) return dialogFail('no_tag', 'our request has no From tag')
    const remoteTarget = singleContact(response.headers.contact())
    if (!remoteTarget) return dialogFail('no_contact', 'the response has no single Contact for the remote target')
    const localContact = singleContact(request.headers.contact())
    if (!localContact) return dialogFail('no_contact', 'our request has no Contact to send in the dialog')
    return {
      ok: true,
      value: new Dialog({
        id: { callId: request.headers.callId(), localTag, remoteTag },
        state: status < 200 ? 'early' : 'confirmed',
        localUri: request.headers.from(),
        remoteUri: request.headers.to(),
        remoteTarget: remoteTarget.uri,
        routeSet: [...response.headers.recordRoute()].reverse(),
        localCSeq: request.headers.cseq().seq,
        remoteCSeq: undefined,
        secure: request.uri.scheme === 'sips',
        localContact,
      }),
    }
  } catch (error) {
    return malformed(error)
  }
}

export interface UasDialogOptions {
  /** Our To tag (§19.3: at least 32 bits of randomness; the caller picks it). */
  readonly localTag: string
  /** Our Contact, put in the 1xx/2xx and in our target refresh requests. */
  readonly localContact: NameAddr
  /** 'early' when answering with a 101-199, 'confirmed' with a 2xx. */
  readonly state?: 'early' | 'confirmed'
  readonly initialLocalCSeq?: number
}

/**
 * The dialog a UAS makes answering a request (§12.1.1): the route set is the request's Record-Route
 * in order, the remote target its Contact, the remote CSeq its CSeq; the local CSeq starts empty.
 */
export function uasDialog(request: SipRequest, options: UasDialogOptions): DialogResult<Dialog> {
  if (!TOKEN.test(options.localTag)) throw new TypeError('localTag must be a token (§19.3)')
  try {
    if (request.headers.to().tag !== undefined) return dialogFail('not_dialog_creating', 'the request is already within a dialog')
    const remoteTag = request.headers.from().tag
    if (remoteTag === undefined) return dialogFail('no_tag', 'the request has no From tag')
    const remoteTarget = singleContact(request.headers.contact())
    if (!remoteTarget) return dialogFail('no_contact', 'the request has no single Contact for the remote target')
    return {
      ok: true,
      value: new Dialog({
        id: { callId: request.headers.callId(), localTag: options.localTag, remoteTag },
        state: options.state ?? 'confirmed',
        localUri: request.headers.to(),
        remoteUri: request.headers.from(),
        remoteTarget: remoteTarget.uri,
        routeSet: [...request.headers.recordRoute()],
        localCSeq: undefined,
        remoteCSeq: request.headers.cseq().seq,
        secure: request.uri.scheme === 'sips',
        localContact: options.localContact,
        ...(options.initialLocalCSeq === undefined ? {} : { initialLocalCSeq: options.initialLocalCSeq }),
      }),
    }
  } catch (error) {
    return malformed(error)
  }
}

function singleContact(contact: '*' | readonly NameAddr[]): NameAddr | undefined {
  if (contact === '*' || contact.length === 0) return undefined
  // Several values naming the same URI are one target; different ones leave the target unknown.
  return contact.every((c) => c.uri.serialize() === contact[0]!.uri.serialize()) ? contact[0] : undefined
}

function malformed<T>(error: unknown): DialogResult<T> {
  if (error instanceof SipHeaderError) return dialogFail('malformed', `${error.header} does not parse`)
  throw error
}
