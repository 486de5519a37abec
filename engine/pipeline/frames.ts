/**
 * What flows through a call, as one union discriminated on `type`: what the adapters (audio in,
 * generation, transport, control) tell the call's controller, and what its turn-taking parts decide
 * on the way. Times are one monotonic clock in ms (the engine's clock), unless a field says
 * otherwise. Transport wire formats (protocol v1 messages, SIP, RTP) keep their own types at the
 * edge: a transport adapter turns them into these frames and the controller's events back into them.
 *
 * The controller (call/controller.ts) answers each frame with commands (call/commands.ts); frames
 * are facts that happened, commands are what should happen next.
 */
import type { BargeInDecision, BargeInEvent } from '../turn-taking/barge-in.js'
import type { TurnDecision, TurnEvent } from '../turn-taking/strategy.js'
import type { PlayoutMetrics } from './playout-metrics.js'

/** Which part of the call failed; provider categories match ProviderError's. */
export type FailureCategory = 'stt' | 'tts' | 'llm' | 'vad' | 'transport' | 'engine'

/** How a caller's side of the call went away. */
export type CallerLeft = 'hangup' | 'dropped' | 'protocol_error'

// ── caller audio and what is heard in it ─────────────────────────────────────────────────────────

/** Caller audio as it arrived: mono PCM16 at the transport's rate (the audio adapter resamples). */
export interface CallerAudioFrame {
  type: 'caller_audio'
  pcm: Int16Array
  sampleRate: number
  at: number
}

/**
 * What turn-taking hears, defined once beside the strategies (turn-taking/strategy.ts) and part of
 * this union: the VAD's edges (`at` with the detector's latency taken off; `edgeAt` refined on the
 * signal, on the caller's clock; a start's `heardAt` for the barge-in stop), transcripts (a partial
 * replaces the previous one; a final commits its segment) and ticks (time passing: the controller
 * asked to wake, or the frame cadence came round).
 */
export type SpeechEdgeFrame = Extract<TurnEvent, { type: 'speech_start' | 'speech_pause' | 'speech_resume' | 'speech_end' }>
export type TranscriptFrame = Extract<TurnEvent, { type: 'transcript' }>
export type TickFrame = Extract<TurnEvent, { type: 'tick' }>
/** The agent started or stopped speaking: what arms and disarms barge-in (turn-taking/barge-in.ts). */
export type AgentSpeakingFrame = Extract<BargeInEvent, { type: 'agent_speaking' }>

// ── the agent's replies, as the generation adapter reports them ─────────────────────────────────

/** Where one reply's words come from. */
export type ReplyOrigin =
  /** The workflow's first words. */
  | { type: 'greeting' }
  /** The workflow answering the caller's `text`; `preempted`: the generation started early on it. */
  | { type: 'answer'; text: string; preempted: boolean }
  /** A fixed line outside the workflow (control `say`, the silence prompt). */
  | { type: 'line'; text: string }
  /** The workflow going on after its transfer node's transfer failed (its `failure` edge). */
  | { type: 'transfer_failed' }

/** Audible gaps in a reply (playout's counts), reported with what was heard. */
export type PlayoutGaps = Pick<PlayoutMetrics, 'underruns' | 'underrunMs' | 'stalls' | 'stallMs' | 'phraseGaps' | 'phraseGapMs'>

export type ReplyFrame =
  /** The first text of the reply arrived (LLM first token, or a static line). */
  | { type: 'reply_text'; replyId: string; at: number }
  /** The first audio of the reply arrived from TTS, `ms` after its phrase was requested. */
  | { type: 'reply_audio'; replyId: string; ms: number }
  /** The first frame of the reply went to the caller: the agent is speaking. */
  | { type: 'reply_playing'; replyId: string; at: number }
  /** Something the workflow did along the way (node entered, variable set, tool called, …), for the record. */
  | { type: 'reply_step'; replyId: string; name: string; data: Record<string, unknown> }
  /** The workflow reported a failure it recovered from (the call goes on). */
  | { type: 'reply_warning'; replyId: string; code: string; message: string }
  /** The workflow reached its end with this disposition: the call ends once the reply is heard. */
  | { type: 'reply_ends_call'; replyId: string; disposition: string }
  /**
   * The reply is over: everything sent was played (`interrupted: false`) or it was cut. `heard` is
   * what the caller heard of it (playout progress), the only words that count as said.
   */
  | { type: 'reply_heard'; replyId: string; heard: string; interrupted: boolean; gaps: PlayoutGaps | null }

// ── control, lifecycle, failures ─────────────────────────────────────────────────────────────────

export type ControlFrame =
  /** Speak `text` once the agent is free; `interrupt` cuts what it is saying first. */
  | { type: 'say'; text: string; interrupt: boolean }
  | { type: 'transfer'; target: string }
  /** End the call: at once, or once the agent has finished speaking. */
  | { type: 'end'; immediately: boolean }
  /** Keypad digits from the caller (phone transports). */
  | { type: 'dtmf'; digits: string }
  /** The caller muted (or unmuted) their microphone. */
  | { type: 'mute'; muted: boolean }
  /** A transport that carries transfers out (a phone line: REFER) says how one went. */
  | { type: 'transfer_result'; ok: boolean; reason?: string }

export type LifecycleFrame =
  /** The call begins: greet, listen. `info` (providers, VAD) is recorded with it. */
  | { type: 'call_start'; info?: Record<string, unknown> }
  /** The caller's side went away; `code`/`reason`: the socket's close, when that is how (recorded). */
  | { type: 'caller_left'; how: CallerLeft; code?: number; reason?: string }
  /** The server is stopping: the call ends now. */
  | { type: 'shutdown' }

/** Something the call cannot go on without failed. */
export interface FailureFrame {
  type: 'failure'
  category: FailureCategory
  code: string
  message: string
  retryable: boolean
}

export type Frame =
  | CallerAudioFrame
  | SpeechEdgeFrame
  | TranscriptFrame
  | TickFrame
  | AgentSpeakingFrame
  | TurnDecision
  | BargeInDecision
  | ReplyFrame
  | ControlFrame
  | LifecycleFrame
  | FailureFrame

export type FrameType = Frame['type']

/**
 * Every frame is in a lane (pipecat's): `system` frames are never dropped (lifecycle, failures,
 * time, the caller's control and speech, what a reply was heard as); `data` (media and text on
 * their way: caller audio, transcripts, a reply's text, audio and steps) and `control` (a reply's
 * progress markers) belong to a reply when they name one, and an interruption drops those of the
 * reply it cut: the generation stops reporting them, and the controller ignores any in flight.
 */
export type Lane = 'system' | 'data' | 'control'

export const FRAME_LANE: Readonly<Record<FrameType, Lane>> = {
  caller_audio: 'data',
  speech_start: 'system',
  speech_pause: 'system',
  speech_resume: 'system',
  speech_end: 'system',
  transcript: 'data',
  tick: 'system',
  agent_speaking: 'system',
  end_of_turn: 'system',
  preempt: 'system',
  cancel_preempt: 'system',
  pause: 'system',
  interrupt: 'system',
  resume: 'system',
  reply_text: 'data',
  reply_audio: 'data',
  reply_step: 'data',
  reply_playing: 'control',
  reply_warning: 'control',
  reply_ends_call: 'control',
  reply_heard: 'system',
  say: 'system',
  transfer: 'system',
  end: 'system',
  dtmf: 'system',
  mute: 'system',
  transfer_result: 'system',
  call_start: 'system',
  caller_left: 'system',
  shutdown: 'system',
  failure: 'system',
}

/**
 * What the controller is given: not raw audio (the audio adapter turns it into edges and
 * transcripts), nor what the controller itself tells or hears from its turn-taking parts.
 */
export type ControllerFrame = Exclude<Frame, CallerAudioFrame | AgentSpeakingFrame | TurnDecision | BargeInDecision>

/** A failure as a frame, from whatever was thrown: its code when it has a sane one (ProviderError's do). */
export function failureFrame(category: FailureCategory, err: unknown, fallbackCode: string): FailureFrame {
  const e = err as { code?: unknown; retryable?: unknown; category?: unknown } | null
  const code = typeof e?.code === 'string' && /^[a-z][a-z0-9_]{1,40}$/.test(e.code) ? e.code : fallbackCode
  const own = typeof e?.category === 'string' && ['stt', 'tts', 'llm'].includes(e.category) ? (e.category as FailureCategory) : category
  const message = (err instanceof Error ? err.message : String(err)).slice(0, 300)
  return { type: 'failure', category: own, code, message, retryable: e?.retryable === true }
}
