/**
 * How a call reaches its caller: the one thing that differs between a browser's WebSocket
 * (protocol v1, engine/server/web-socket-transport.ts), a phone line (SIP/RTP) and a test's memory
 * (memory-transport.ts). A transport turns its wire into frames for the call, and the call's audio
 * and events back into its wire; the controller and the other adapters never see which it is.
 */
import type { EndReason } from '../../server/protocol.js'
import type { ControlFrame, LifecycleFrame } from '../frames.js'
import type { CallerEvent } from './commands.js'

/** What a transport hands the call: caller audio, and control or lifecycle frames (mute, hang-up, close). */
export interface TransportInput {
  audio(pcm: Int16Array, sampleRate: number): void
  frame(frame: ControlFrame | Extract<LifecycleFrame, { type: 'caller_left' }>): void
}

export interface CallTransport {
  /** For the record: "websocket", "memory", "sip". */
  readonly name: string
  /** It carries a transfer out itself and reports the outcome as a transfer_result frame (a phone line's REFER). */
  readonly transferWaits?: boolean
  /**
   * The line's rate both ways when it is 8 kHz (a phone line): the caller's audio path (VAD, STT)
   * runs at 8 kHz, and the agent's voice is synthesized, played out and written at 8 kHz. Unset:
   * 16 kHz, the engine's rate (caller audio at other rates is resampled to it).
   */
  readonly lineRate?: 8000
  /** The caller is gone (or never came): nothing more can be sent. */
  readonly closed: boolean
  /** The call starts listening: from now on the transport delivers to `input`. */
  attach(input: TransportInput): void
  /**
   * writeAudio reads the frame before it returns and keeps nothing of it (a phone line encodes it
   * at once), so the call may hand it one array it refills. Unset: each frame is the transport's to keep.
   */
  readonly writesAudioAtOnce?: boolean
  /** One 20 ms frame of the agent's voice, mono PCM16 at `lineRate` (else 16 kHz); resolves once written (backpressure). */
  writeAudio(frame: Int16Array): Promise<unknown>
  /** Barge-in: drop the agent audio not yet played, here and on the caller's side. */
  clearAudio(): void
  emit(event: CallerEvent): void
  /** The call is over: say why, then hang up. Once; later calls do nothing. */
  end(reason: EndReason): void
}
