import { SipHeaderError, type SipRequest, type SipResponse } from '../message/index.js'

/** The dialog ID (§12): Call-ID, local tag, remote tag. */
export interface DialogId {
  readonly callId: string
  readonly localTag: string
  readonly remoteTag: string
}

/** One string per dialog ID; Call-ID and tags compare as exact strings (§12, §19.3). */
export function dialogKey(id: DialogId): string {
  return JSON.stringify([id.callId, id.localTag, id.remoteTag])
}

/** The dialog ID a received request names (§12.2.2): To tag local, From tag remote; undefined out of a dialog. */
export function requestDialogIdOf(request: SipRequest): DialogId | undefined {
  try {
    const localTag = request.headers.to().tag
    const remoteTag = request.headers.from().tag
    if (localTag === undefined || remoteTag === undefined) return undefined
    return { callId: request.headers.callId(), localTag, remoteTag }
  } catch (error) {
    if (error instanceof SipHeaderError) return undefined
    throw error
  }
}

/** The dialog ID a response to our request names (§12.1.2): From tag local, To tag remote. */
export function responseDialogIdOf(response: SipResponse): DialogId | undefined {
  try {
    const localTag = response.headers.from().tag
    const remoteTag = response.headers.to().tag
    if (localTag === undefined || remoteTag === undefined) return undefined
    return { callId: response.headers.callId(), localTag, remoteTag }
  } catch (error) {
    if (error instanceof SipHeaderError) return undefined
    throw error
  }
}
