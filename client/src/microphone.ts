/** Opening the microphone, and what its failures mean to the page. */
import type { CallError } from './close-codes.js'

/** The library's errors as thrown by `start()` and `setInputDevice()` (also emitted as `error`). */
export class WebCallError extends Error implements CallError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'WebCallError'
  }
}

/** A getUserMedia / AudioContext failure → the library's code (DOMException names are the spec's). Pure. */
export function mediaError(err: unknown): WebCallError {
  const name = typeof err === 'object' && err !== null && 'name' in err ? String((err as { name: unknown }).name) : ''
  switch (name) {
    case 'NotAllowedError':
    case 'SecurityError':
      return new WebCallError('mic_permission_denied', 'Microphone access was denied. Allow it in the browser to call.')
    case 'NotFoundError':
    case 'OverconstrainedError':
      return new WebCallError('mic_not_found', 'No microphone was found.')
    case 'NotReadableError':
    case 'AbortError':
      return new WebCallError('mic_unavailable', 'The microphone could not be started (it may be in use by another application).')
    default:
      return new WebCallError('mic_failed', `The microphone could not be opened${err instanceof Error && err.message ? `: ${err.message}` : '.'}`)
  }
}

/** The constraints the library asks for: the browser's voice processing on, one device if named. */
export function micConstraints(deviceId?: string): MediaStreamConstraints {
  return {
    audio: {
      echoCancellation: true,
      noiseSuppression: true,
      autoGainControl: true,
      channelCount: 1,
      ...(deviceId !== undefined && { deviceId: { exact: deviceId } }),
    },
    video: false,
  }
}

/** The microphone's stream; rejects with a WebCallError. */
export async function openMicrophone(deviceId?: string): Promise<MediaStream> {
  if (typeof navigator === 'undefined' || !navigator.mediaDevices?.getUserMedia) {
    throw new WebCallError('mic_unavailable', 'This page cannot use the microphone (it needs https or localhost, and a browser with getUserMedia).')
  }
  try {
    return await navigator.mediaDevices.getUserMedia(micConstraints(deviceId))
  } catch (err) {
    throw mediaError(err)
  }
}

export function releaseMicrophone(stream: MediaStream | null): void {
  for (const track of stream?.getTracks() ?? []) track.stop()
}

/** The audio inputs; their labels are empty until the page has been granted the microphone once. */
export async function listInputDevices(): Promise<MediaDeviceInfo[]> {
  if (typeof navigator === 'undefined' || !navigator.mediaDevices?.enumerateDevices) return []
  return (await navigator.mediaDevices.enumerateDevices()).filter((d) => d.kind === 'audioinput')
}
