/**
 * The sip-calls section of the harness's markdown report (bench/voice/report.ts calls it with the
 * scenario's parsed JSON). Pure; a field the JSON lacks reads "—".
 */
import { describeVerdict } from '../voice/verdict.js'
import type { SipBenchResult } from './result.js'

const num = (n: unknown, digits = 1) => (typeof n === 'number' && Number.isFinite(n) ? String(Math.round(n * 10 ** digits) / 10 ** digits) : '—')

export function sipCallsTables(r: Partial<SipBenchResult>): string[] {
  const c = r.config
  const steps = [...(r.capacity?.steps ?? [])].sort((a, b) => a.sessions - b.sessions)
  return [
    c
      ? `SIPp callers over UDP on loopback, ${c.codec} ${c.ptime_ms} ms packets, ${c.calls_per_second} new calls a second; each step settles ${num(c.warmup_ms / 1000)} s and is measured over ${num(c.window_ms / 1000)} s. Setup and jitter are read from a loopback capture (kernel timestamps).`
      : '',
    '',
    `**${num(r.capacity?.calls_per_core, 0)} calls per core**; setup (INVITE → 200 OK) p50/p95/p99 ${num(r.setup_ms?.p50)}/${num(r.setup_ms?.p95)}/${num(r.setup_ms?.p99)} ms over ${num(r.setup_ms?.n, 0)} calls of the passing steps; RTP send jitter p99 at capacity ${num(r.rtp_send_jitter_p99_ms, 2)} ms; ${r.memory ? `${num(r.memory.rss_per_call_mb, 3)} MB per call over a ${num(r.memory.baseline_rss_mb)} MB baseline` : 'memory per call not fitted'}.`,
    '',
    '| calls | RTP send jitter p99 ms | streams | setup p50 ms | setup p95 ms | loop lag p99 ms | engine CPU % | RSS MB | failed calls | ok |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...steps.map(
      (s) =>
        `| ${s.sessions} | ${num(s.jitter_p99_ms, 2)} | ${num(s.streams, 0)} | ${num(s.setup_ms?.p50)} | ${num(s.setup_ms?.p95)} | ${num(s.loop_lag_p99_ms)} | ${num(s.engine_cpu_pct, 0)} | ${num(s.rss_mb)} | ${num(s.failed_calls, 0)} | ${s.ok ? 'yes' : 'no'} |`,
    ),
    ...steps.filter((s) => !s.ok).map((s) => `\n- ${s.sessions} calls: ${describeVerdict(s)}.`),
  ]
}
