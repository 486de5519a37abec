/**
 * The JSON browser-call prints (bench/browser-call.ts) and the harness's report reads
 * (bench/voice/goals.ts, bench/browser/report.ts). Durations in ms.
 */
import type { Distribution, LatencyTarget } from '../voice/result.js'
import type { OutputHole } from './measure.js'

/** One caller turn: its speech end → the reply's first sound at the page's output, beside the engine's own figure. */
export interface TurnTiming {
  text: string
  /** Speech end (microphone) → first agent audio at the output, on the AudioContext's sample clock. */
  mouth_to_ear_ms: number
  /** The engine's `metrics.voice_to_voice_ms` for the turn (refined speech end → first agent frame sent); null when none came. */
  engine_v2v_ms: number | null
  /** mouth_to_ear_ms − engine_v2v_ms. */
  library_added_ms: number | null
  /** First agent audio message at the page's socket → first agent audio at the output (page clock). */
  playback_ms: number | null
  /**
   * The engine's rule for the speech end applied to the page's microphone (end of the last 8 ms
   * block at −53 dBFS mean power, another block phase than the engine's) − the page's speech end
   * (sample clock): how much later the engine's edge lies by its definition alone.
   */
  edge_gap_ms: number | null
}

/** One interruption spoken over the agent. */
export interface BargeInTiming {
  text: string
  /** Whether the output was playing agent audio when the caller's speech began (else not a barge-in). */
  over_agent: boolean
  /** Caller's speech onset → the output silent (sample clock); null: it never went silent. */
  onset_to_silent_ms: number | null
  /** Of it, onset → the last agent audio message the page's socket got (page clock): the engine's VAD and pause, and the hops. */
  onset_to_last_audio_ms: number | null
  /** And the rest: that last message → the output silent (what the page still held when the engine paused). */
  drain_ms: number | null
  /** The page's `clear` event → the output silent (page clock); negative: silent before the clear came. Null: no clear. */
  clear_to_silent_ms: number | null
  /** The engine's `metrics.barge_in_stop_ms` for the interrupted turn. */
  engine_stop_ms: number | null
}

/** One `clear` the API caused (an interrupting `say`) while the output was playing. */
export interface FlushTiming {
  /** The output was playing at the clear (else the flush cannot be measured). */
  playing_at_clear: boolean
  /** The page's `clear` event → the output silent (page clock). */
  clear_to_silent_ms: number | null
}

export interface BrowserCallResult {
  scenario: 'browser-call'
  quick: boolean
  machine: { cpus: number; cpu_model: string; node: string; platform: string; chromium: string }
  config: {
    end_of_turn_wait_ms: number
    preemptive: true
    stt_final: LatencyTarget
    stt_interim_ms: number
    llm_first_token: LatencyTarget
    tts_first_byte: LatencyTarget
    tts_ms_per_char: number
    turns: number
    barge_ins: number
    flushes: number
    sample_rate_hz: number
    /** The tap's thresholds (|sample|) and holds. */
    tap: { mic_threshold: number; mic_hold_ms: number; mic_block_dbfs: number; out_threshold: number; out_hold_ms: number }
  }
  mouth_to_ear: {
    turns: number
    /** Turns the join could not time (no reply heard, no metrics); see `missed`. */
    missed: string[]
    mouth_to_ear_ms: Distribution
    engine_v2v_ms: Distribution
    library_added_ms: Distribution
    /** Of library_added_ms: socket → output at the page. */
    playback_ms: Distribution
    /** library_added_ms − playback_ms: capture to the engine's socket, both loopback hops, the engine's VAD edge against the page's. */
    rest_ms: Distribution
    /** The engine's edge rule against the page's, on the page's audio (TurnTiming.edge_gap_ms). */
    edge_gap_ms: Distribution
    samples: TurnTiming[]
  }
  barge_in: {
    n: number
    honoured: number
    over_agent: number
    onset_to_silent_ms: Distribution
    onset_to_last_audio_ms: Distribution
    drain_ms: Distribution
    /** Signed: the clears of a default barge-in come after the engine's pause has already silenced the output. */
    clear_to_silent_ms: Distribution
    engine_stop_ms: Distribution
    samples: BargeInTiming[]
  }
  flush: {
    n: number
    clear_to_silent_ms: Distribution
    samples: FlushTiming[]
  }
  stats: {
    /** The jitter buffer ran dry mid-stream and audio came back within 250 ms (the library's stats.playbackUnderruns). */
    playback_underruns: number
    /** Of them, during the flush phase (the rest: turns and barge-ins). */
    playback_underruns_in_flushes: number
    /** Holes of 10–300 ms in the output (the jitter buffer counts an underrun when audio returns within 250 ms of running dry) not caused by a clear, each with the socket's longest wait around it (where an underrun came from). */
    output_holes: OutputHole[]
    caller_frames_dropped: number
    frames_sent: number
    agent_bytes_received: number
    playback_overflow_ms: number
  }
  duration_s: number
}
