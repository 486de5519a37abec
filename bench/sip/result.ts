/**
 * The JSON the sip-calls scenario prints (bench/sip-calls.ts), read by the harness's report
 * (bench/voice/report.ts, goals.ts). Durations in ms, sizes in MB.
 */
import type { CapacityStep, Distribution } from '../voice/result.js'

export interface SipCapacityStep extends CapacityStep {
  /** INVITE → 200 OK of this step's calls, on the wire. */
  setup_ms: Distribution
  /** Engine RTP streams that sent audio in the window (each call's agent spoke at least once). */
  streams: number
  /** SIPp's count of calls that did not complete (a failed call fails the step: calls_lost). */
  failed_calls: number
  /** The engine's longest loop stall in the window: a p99 of wire jitter far above the lag's p99 is a stall like this one. */
  loop_lag_max_ms: number
}

export interface SipBenchResult {
  scenario: 'sip-calls'
  quick: boolean
  machine: { cpus: number; cpu_model: string; node: string; platform: string }
  config: {
    codec: 'PCMU'
    ptime_ms: number
    calls_per_second: number
    end_of_turn_wait_ms: number
    warmup_ms: number
    window_ms: number
    /** Where the engine's RTP sockets lived (OZAN_RTP_IO): the media worker, or the main thread. */
    rtp_io: 'worker' | 'inline'
  }
  capacity: {
    pinned_core: number | null
    steps: SipCapacityStep[]
    /** The largest step that passed with every smaller step passing too. */
    calls_per_core: number
  }
  /** Over the calls of every passing step. */
  setup_ms: Distribution
  /** RTP send jitter p99 on the wire at the capacity (the largest passing step); null when none passed. */
  rtp_send_jitter_p99_ms: number | null
  memory: { rss_per_call_mb: number; baseline_rss_mb: number } | null
}
