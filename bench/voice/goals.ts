/**
 * The goals the bench report checks, read out of each scenario's printed JSON. A goal whose figure
 * is missing (scenario not run, failed, or the figure not produced, e.g. a --quick run that stops
 * short of 100k chunks) is "not measured": `met` is null, never true.
 */

export interface GoalCheck {
  scenario: string
  /** What is measured, for a table row. */
  figure: string
  /** The goal as a human reads it. */
  goal: string
  /** The measured value (ms, ratio, count…), or null when not measured. */
  value: number | null
  unit: string
  met: boolean | null
}

/** A number at a dotted path of parsed JSON, or null when anything on the way is missing. */
export function pick(json: unknown, path: string): number | null {
  let v: unknown = json
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object') return null
    v = (v as Record<string, unknown>)[key]
  }
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}

/** Like pick, but a Distribution's percentile only counts when it has samples (n 0 → zeros, see metrics.ts). */
function pickDist(json: unknown, path: string, p: 'p50' | 'p95' | 'p99'): number | null {
  return (pick(json, `${path}.n`) ?? 0) > 0 ? pick(json, `${path}.${p}`) : null
}

type Scenarios = Record<string, unknown>

/** Web calls' sessions per core as last measured on the reference machine (bench/README.md). */
export const WEB_SESSIONS_PER_CORE_MEASURED = 150

const percent = (share: number | null) => (share === null ? null : Math.round(share * 10_000) / 100)

function check(scenario: string, figure: string, goal: string, unit: string, value: number | null, test: (v: number) => boolean): GoalCheck {
  return { scenario, figure, goal, unit, value, met: value === null ? null : test(value) }
}

export function checkGoals(scenarios: Scenarios): GoalCheck[] {
  const voice = scenarios['voice-calls']
  const rest = scenarios['rest-auth-get']
  const hooks = scenarios['webhooks']
  const kb = scenarios['knowledge-search']
  const cq = scenarios['conversation-quality']
  const browser = scenarios['browser-call']
  const capacitySteps = voice && typeof voice === 'object' ? (voice as { capacity?: { steps?: unknown[] } }).capacity?.steps : undefined
  // A step marked invalid (its wire capture failed) was not judged: only valid steps measure capacity.
  const judgedSteps = (capacitySteps ?? []).filter((s) => (s as { valid?: unknown })?.valid !== false)
  // A slope needs two session counts; below that the scenario's rss_per_session_mb is a placeholder.
  const rssFitted = new Set((capacitySteps ?? []).map((s) => pick(s, 'sessions'))).size >= 2
  const sip = scenarios['sip-calls']
  const sipSteps = sip && typeof sip === 'object' ? ((sip as { capacity?: { steps?: unknown[] } }).capacity?.steps ?? []) : []
  const sipJudged = sipSteps.filter((s) => (s as { valid?: unknown })?.valid !== false)
  // Phone calls should carry at least what web calls carry on the same machine: the web figure of
  // this run when it has one, else the last measured one (bench/README.md: 150 per core).
  const webPerCore = judgedSteps.length ? pick(voice, 'capacity.sessions_per_core') : null
  const sipGoal = webPerCore ?? WEB_SESSIONS_PER_CORE_MEASURED
  const preemptive = voice && typeof voice === 'object' ? (voice as { config?: { preemptive?: unknown } }).config?.preemptive === true : false
  const v2v = pickDist(voice, 'latency.voice_to_voice_ms', 'p50')
  const providers = pickDist(voice, 'latency.provider_sum_ms', 'p50')
  // The largest size measured; the goal is stated at 100k chunks, so smaller runs do not count.
  const sizes = kb && typeof kb === 'object' ? (kb as { sizes?: Array<{ chunks?: number; p95_ms?: number }> }).sizes : undefined
  const largest = sizes?.at(-1)
  const kbP95 = largest && (largest.chunks ?? 0) >= 100_000 && typeof largest.p95_ms === 'number' ? largest.p95_ms : null
  return [
    check('voice-calls', 'engine-added p50', '≤ 5 ms', 'ms', pickDist(voice, 'latency.engine_added_ms', 'p50'), (v) => v <= 5),
    check('voice-calls', 'engine-added p95', '≤ 15 ms', 'ms', pickDist(voice, 'latency.engine_added_ms', 'p95'), (v) => v <= 15),
    check('voice-calls', 'barge-in engine part p95', '≤ 10 ms', 'ms', pickDist(voice, 'barge_in.engine_stop_ms', 'p95'), (v) => v <= 10),
    check('voice-calls', 'sessions per core', '≥ 100', 'sessions', judgedSteps.length ? pick(voice, 'capacity.sessions_per_core') : null, (v) => v >= 100),
    check('voice-calls', 'RSS per session', '≤ 5 MB', 'MB', rssFitted ? pick(voice, 'memory.rss_per_session_mb') : null, (v) => v <= 5),
    // Preemptive generation should hide provider time under the end-of-turn wait.
    check(
      'voice-calls',
      'voice-to-voice p50 (preemptive)',
      providers === null ? '< provider-sum p50' : `< provider-sum p50 (${Math.round(providers * 10) / 10} ms)`,
      'ms',
      preemptive && providers !== null ? v2v : null,
      (v) => v < providers!,
    ),
    check('rest-auth-get', 'authenticated GET req/s ÷ bare', '≥ 0.8', '×', pick(rest, 'ratio_rps'), (v) => v >= 0.8),
    check('webhooks', 'deliveries per second', '≥ 1000', '/s', pick(hooks, 'throughput.deliveries_per_s'), (v) => v >= 1000),
    check('webhooks', 'event → arrival p99', '< 50 ms', 'ms', pick(hooks, 'latency_ms.p99'), (v) => v < 50),
    check('knowledge-search', 'search p95 at 100k chunks', '≤ 5 ms', 'ms', kbP95, (v) => v <= 5),
    check('text-normalize', 'speech normalization p99 per phrase', '≤ 0.2 ms', 'ms', pick(scenarios['text-normalize'], 'all.p99_ms'), (v) => v <= 0.2),
    // Shares are fractions in the scenario's JSON (null when nothing of the kind was scored).
    check('conversation-quality', 'backchannels ignored', '≥ 95 %', '%', percent(pick(cq, 'backchannels.ignored_share')), (v) => v >= 95),
    check('conversation-quality', 'barge-ins honoured within 150 ms of onset', '≥ 95 %', '%', percent(pick(cq, 'barge_ins.in_time_share')), (v) => v >= 95),
    check(
      'conversation-quality',
      'premature end of turn, pauses ≤ 600 ms',
      '0',
      'turns',
      (pick(cq, 'pauses.short_n') ?? 0) > 0 ? pick(cq, 'pauses.premature_short') : null,
      (v) => v === 0,
    ),
    // What @ozan/web adds in Chromium beyond the engine's own voice-to-voice, and how soon a `clear` silences sounding audio.
    check(
      'browser-call',
      'library-added p95 (mouth-to-ear − engine v2v)',
      '≤ 30 ms',
      'ms',
      pickDist(browser, 'mouth_to_ear.library_added_ms', 'p95'),
      (v) => v <= 30,
    ),
    check('browser-call', 'clear → output silent p95 (flush)', '≤ 50 ms', 'ms', pickDist(browser, 'flush.clear_to_silent_ms', 'p95'), (v) => v <= 50),
    check(
      'sip-calls',
      'calls per core',
      webPerCore === null ? `≥ ${sipGoal} (web calls, last measured)` : `≥ ${sipGoal} (web calls, this run)`,
      'calls',
      sipJudged.length ? pick(sip, 'capacity.calls_per_core') : null,
      (v) => v >= sipGoal,
    ),
    check('sip-calls', 'RSS per call', '≤ 2 MB', 'MB', pick(sip, 'memory.rss_per_call_mb'), (v) => v <= 2),
    check('sip-calls', 'call setup (INVITE → 200 OK) p95', '≤ 50 ms', 'ms', pickDist(sip, 'setup_ms', 'p95'), (v) => v <= 50),
    check('sip-calls', 'RTP send jitter p99 at capacity', '< 10 ms', 'ms', pick(sip, 'rtp_send_jitter_p99_ms'), (v) => v < 10),
  ]
}
