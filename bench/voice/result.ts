/**
 * The JSON the voice-calls scenario prints (bench/voice-calls.ts) and the harness's report
 * (bench/run.ts, bench/voice/report.ts) reads. Durations in ms, sizes in MB.
 */

export interface Distribution {
  n: number
  p50: number
  p95: number
  p99: number
  mean: number
  min: number
  max: number
}

/** p50/p95 of a stand-in's injected delay (seeded log-normal), or a fixed delay when p50 = p95. */
export interface LatencyTarget {
  p50: number
  p95: number
}

export interface CapacityStep {
  sessions: number
  /** Caller side: p99 of |agent frame arrival − its ideal 20 ms schedule| over all calls. */
  jitter_p99_ms: number
  /** The same over the engine's frames as they left it (loopback capture, wire.ts); null: not captured. */
  wire_jitter_p99_ms?: number | null
  /** Engine process: event-loop delay p99 (perf_hooks.monitorEventLoopDelay). */
  loop_lag_p99_ms: number
  /** Engine process RSS at steady state. */
  rss_mb: number
  /** Engine process CPU over the window, % of its one core. */
  engine_cpu_pct?: number
  /** Caller-audio windows the VAD's silence gate skipped, % of all windows (null: no Silero). */
  vad_gated_pct?: number | null
  /** Jitter p99 (the wire's, or the callers' with --no-wire) < 10 and loop_lag_p99_ms < 20. */
  ok: boolean
  /** False: the step could not be judged (its wire capture failed); never ok then. Absent in older results: valid. */
  valid?: boolean
  invalid_reason?: string
  /** The jitter the verdict used: the wire capture's, or the callers' (--no-wire). */
  jitter_source?: 'wire' | 'callers'
  /** What broke a failing step's limits (verdict.ts). */
  failed_by?: Array<'jitter' | 'loop_lag' | 'calls_lost' | 'no_frames' | 'wire_capture_failed'>
  /** Over the jitter limit: which clock it came from (verdict.ts); null when it was not over. */
  jitter_clock?: 'engine_loop_lag' | 'wire_capture' | 'callers_receive_clock' | null
  /** The bench process's own loop lag p99: the callers' receive clock. */
  bench_lag_p99_ms?: number
}

export interface VoiceBenchResult {
  scenario: 'voice-calls'
  quick: boolean
  machine: { cpus: number; cpu_model: string; node: string; platform: string }
  config: {
    end_of_turn_wait_ms: number
    preemptive: boolean
    stt_final: LatencyTarget
    /** Audio ms between the STT stand-in's interim results. */
    stt_interim_ms?: number
    llm_first_token: LatencyTarget
    llm_tokens_per_s: number
    tts_first_byte: LatencyTarget
    languages: string[]
    /** The callers' noise floor (dBFS); null: digital silence between words. */
    room_dbfs: number | null
  }
  latency: {
    turns: number
    voice_to_voice_ms: Distribution
    engine_added_ms: Distribution
    /** Per turn: STT + LLM (to the first phrase) + TTS delays injected by the stand-ins. */
    provider_sum_ms: Distribution
    samples: { voice_to_voice_ms: number[]; engine_added_ms: number[] }
    /**
     * Chat completions the engine asked for in this phase, and how many it dropped before their
     * end: speculations the final did not confirm, and replies cut by a barge-in. The price of
     * preemption, in requests.
     */
    llm_requests?: { total: number; dropped: number }
  }
  barge_in: {
    count: number
    stop_ms: Distribution
    engine_stop_ms: Distribution
    samples: { stop_ms: number[]; engine_stop_ms: number[] }
  }
  capacity: {
    /** The core the engine was pinned to with taskset, or null when taskset was unavailable. */
    pinned_core: number | null
    steps: CapacityStep[]
    /** The largest step with ok = true. */
    sessions_per_core: number
  }
  memory: {
    /** Slope of RSS over added sessions at steady state. */
    rss_per_session_mb: number
    baseline_rss_mb: number
  }
}
