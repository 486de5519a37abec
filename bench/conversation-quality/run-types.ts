/**
 * What one situation of the conversation-quality bench leaves behind (drive.ts gathers it; the
 * pure scorer, score.ts, reads only this). Every instant is the bench process's performance.now()
 * in ms: the simulated caller and the stand-in providers run there.
 */
import type { Cue, Lang, SituationType } from './plan.js'

export interface SpokenPart {
  text: string
  /** The first and the last sample of this stretch of speech were sent. */
  onsetAt: number
  endAt: number
}

export interface SpokenLine {
  role: 'lead' | 'event' | 'turn'
  /** The words ('' for a cough or clicks). */
  text: string
  onsetAt: number
  endAt: number
  parts: SpokenPart[]
  pauseMs?: number
  cue?: Cue
  sound?: 'cough' | 'clicks'
}

/** A JSON event of the call's socket (docs/protocol.md §4), as the caller received it. */
export interface SocketEvent {
  at: number
  event: { type: string; [k: string]: unknown }
}

export interface SynthesisRequest {
  /** When the speech stand-in received it. */
  receivedAt: number
  text: string
  /** The length of the audio the stand-in makes for it (speech-server.ts toneMs). */
  toneMs: number
}

export interface SituationRun {
  id: string
  type: SituationType
  lang: Lang
  voice: string
  rateWpm: number
  /** What the caller said, in order (the greeting is not in it). */
  lines: SpokenLine[]
  /** Agent audio that arrived after the greeting had been heard: arrival and size (PCM16 16 kHz: 32 bytes a ms). */
  audio: Array<{ at: number; bytes: number }>
  /** Socket events after the greeting had been heard. */
  events: SocketEvent[]
  /** Speech requests after the greeting, in arrival order. */
  synthesis: SynthesisRequest[]
  /**
   * The engine's own record of the call (GET …/sessions/{call_id}/events): its barge-in decisions
   * in order (`barge_in_pause`, `barge_in_resume`, `barge_in_interrupt`) and the words it let pass
   * as backchannels. Null when the record could not be read.
   */
  engine: { bargeIn: Array<'pause' | 'resume' | 'interrupt'>; backchannels: string[] } | null
  /** The situation could not be staged as labelled (the reason); it is reported, never scored. */
  harnessError?: string
}
