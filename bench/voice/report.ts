/**
 * The harness's combined report (bench/run.ts does the I/O): every scenario's printed JSON in,
 * three documents out: one JSON for machines, a markdown page for people (machine, goals, a short
 * table per scenario) and an SVG of the voice latencies and capacity steps. Pure, so a synthetic
 * VoiceBenchResult can be checked without running a bench.
 */
import { browserCallTables } from '../browser/report.js'
import type { BrowserCallResult } from '../browser/result.js'
import { sipCallsTables } from '../sip/report.js'
import type { SipBenchResult } from '../sip/result.js'
import { conversationQualityTables } from '../conversation-quality/report.js'
import type { ConversationQualityResult } from '../conversation-quality/scores.js'
import { checkGoals, pick, type GoalCheck } from './goals.js'
import { chartSvg } from './report-svg.js'
import type { CapacityStep, Distribution, VoiceBenchResult } from './result.js'
import { describeVerdict } from './verdict.js'

export type { GoalCheck } from './goals.js'

export interface ReportInput {
  /** The run's stamp (bench/lib/report.ts runStamp()), also the report files' name. */
  stamp: string
  quick: boolean
  machine: { cpus: number; cpu_model: string; node: string; platform: string }
  /** Scenario name (its file name without .ts) → the JSON it printed. */
  scenarios: Record<string, unknown>
  /** Scenarios that ran but failed (exit code, or output that was not JSON), with why. */
  failed: Record<string, string>
}

export interface Report {
  json: string
  markdown: string
  svg: string
}

const fmt = (n: number | null | undefined, digits = 2) =>
  typeof n === 'number' && Number.isFinite(n) ? String(Math.round(n * 10 ** digits) / 10 ** digits) : '—'
const metCell = (g: GoalCheck) => (g.met === null ? 'not measured' : g.met ? '✅ met' : '❌ missed')

export function buildReport(input: ReportInput): Report {
  const goals = checkGoals(input.scenarios)
  const json =
    JSON.stringify(
      { report: 'ozan-bench', stamp: input.stamp, quick: input.quick, machine: input.machine, goals, failed: input.failed, scenarios: input.scenarios },
      null,
      2,
    ) + '\n'
  return { json, markdown: markdown(input, goals), svg: svg(input) }
}

function markdown(input: ReportInput, goals: GoalCheck[]): string {
  const m = input.machine
  const out = [
    `# Ozan bench — ${input.stamp}${input.quick ? ' (quick)' : ''}`,
    '',
    `Machine: ${m.cpus} × ${m.cpu_model}, Node ${m.node}, ${m.platform}.`,
    ...(input.quick ? ['', '_Quick run: short durations and small sizes; figures are indicative only._'] : []),
    '',
    '## Goals',
    '',
    '| scenario | figure | value | goal | met? |',
    '|---|---|---|---|---|',
    ...goals.map((g) => `| ${g.scenario} | ${g.figure} | ${g.value === null ? '—' : `${fmt(g.value)} ${g.unit}`} | ${g.goal} | ${metCell(g)} |`),
  ]
  for (const [name, why] of Object.entries(input.failed)) out.push('', `## ${name}`, '', `**Failed:** ${why}`)
  for (const [name, result] of Object.entries(input.scenarios)) out.push('', `## ${name}`, '', ...scenarioTable(name, result))
  return out.join('\n') + '\n'
}

function scenarioTable(name: string, r: unknown): string[] {
  switch (name) {
    case 'voice-calls':
      return voiceTables(r as VoiceBenchResult)
    case 'rest-auth-get':
      return [
        '| server | req/s | p99 ms |',
        '|---|---|---|',
        `| bare node:http | ${fmt(pick(r, 'bare.rps'), 0)} | ${fmt(pick(r, 'bare.p99_ms'))} |`,
        `| ozan (GET /auth/me, API key) | ${fmt(pick(r, 'ozan.rps'), 0)} | ${fmt(pick(r, 'ozan.p99_ms'))} |`,
        '',
        `Ratio (req/s): ${fmt(pick(r, 'ratio_rps'), 3)}; p99 ratio ${fmt(pick(r, 'ratio_p99'), 3)}.`,
      ]
    case 'webhooks':
      return [
        '| figure | value |',
        '|---|---|',
        `| deliveries/s (burst) | ${fmt(pick(r, 'throughput.deliveries_per_s'), 0)} |`,
        ...(['p50', 'p95', 'p99'] as const).map((p) => `| event → arrival ${p} (ms) | ${fmt(pick(r, `latency_ms.${p}`))} |`),
      ]
    case 'knowledge-search': {
      const sizes = ((r as { sizes?: unknown[] })?.sizes ?? []) as unknown[]
      return [
        '| chunks | p50 ms | p95 ms | p99 ms |',
        '|---|---|---|---|',
        ...sizes.map((s) => `| ${fmt(pick(s, 'chunks'), 0)} | ${fmt(pick(s, 'p50_ms'), 3)} | ${fmt(pick(s, 'p95_ms'), 3)} | ${fmt(pick(s, 'p99_ms'), 3)} |`),
      ]
    }
    case 'conversation-quality':
      return conversationQualityTables(r as Partial<ConversationQualityResult>)
    case 'browser-call':
      return browserCallTables(r as Partial<BrowserCallResult>)
    case 'sip-calls':
      return sipCallsTables(r as Partial<SipBenchResult>)
    default:
      return ["See the JSON report for this scenario's figures."]
  }
}

function voiceTables(r: VoiceBenchResult): string[] {
  const rows: Array<[string, Distribution | undefined]> = [
    ['voice-to-voice', r.latency?.voice_to_voice_ms],
    ['engine-added', r.latency?.engine_added_ms],
    ['provider sum', r.latency?.provider_sum_ms],
    ['barge-in stop (caller)', r.barge_in?.stop_ms],
    ['barge-in engine part', r.barge_in?.engine_stop_ms],
  ]
  const c = r.config
  const out = [
    c
      ? `End-of-turn wait ${c.end_of_turn_wait_ms} ms, preemptive ${c.preemptive ? 'on' : 'off'}; stand-ins: STT final p50/p95 ${c.stt_final.p50}/${c.stt_final.p95} ms${c.stt_interim_ms ? ` (interims every ${c.stt_interim_ms} ms of audio)` : ''}, LLM first token ${c.llm_first_token.p50}/${c.llm_first_token.p95} ms at ${c.llm_tokens_per_s} tokens/s, TTS first byte ${c.tts_first_byte.p50}/${c.tts_first_byte.p95} ms; languages ${c.languages.join(', ')}; callers' room noise ${c.room_dbfs === null || c.room_dbfs === undefined ? 'none (digital silence)' : `${c.room_dbfs} dBFS`}.`
      : '',
    '',
    '| figure (ms) | n | p50 | p95 | p99 | min | max |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(([label, d]) =>
      d && d.n
        ? `| ${label} | ${d.n} | ${fmt(d.p50)} | ${fmt(d.p95)} | ${fmt(d.p99)} | ${fmt(d.min)} | ${fmt(d.max)} |`
        : `| ${label} | 0 | — | — | — | — | — |`,
    ),
  ]
  const steps = r.capacity?.steps ?? []
  if (steps.length) {
    out.push(
      '',
      `Capacity (engine pinned to ${r.capacity.pinned_core === null ? 'no core: taskset unavailable' : `core ${r.capacity.pinned_core}`}): **${r.capacity.sessions_per_core} sessions per core**.`,
      '',
      "Jitter p99 on the wire is the engine's output as it left the engine (loopback capture); at the callers it also holds the bench process's own delays in reading it. The verdict uses the wire figure where there is one.",
      '',
      '| sessions | jitter p99 ms (wire) | jitter p99 ms (callers) | loop lag p99 ms | engine CPU % | VAD windows gated % | RSS MB | ok |',
      '|---|---|---|---|---|---|---|---|',
      ...[...steps]
        .sort((a, b) => a.sessions - b.sessions)
        .map(
          (s) =>
            `| ${s.sessions} | ${fmt(s.wire_jitter_p99_ms)} | ${fmt(s.jitter_p99_ms)} | ${fmt(s.loop_lag_p99_ms)} | ${s.engine_cpu_pct ?? '—'} | ${s.vad_gated_pct ?? '—'} | ${fmt(s.rss_mb, 1)} | ${s.ok ? 'yes' : 'no'} |`,
        ),
    )
    // A failing or invalid step says what failed it and which clock its jitter came from (verdict.ts).
    const notOk = steps.filter((s) => !s.ok)
    if (notOk.length) {
      out.push(
        '',
        ...notOk.map(
          (s) =>
            `- ${s.sessions} sessions: ${describeVerdict(s)}${s.bench_lag_p99_ms === undefined ? '' : ` (bench process's own loop lag p99 ${fmt(s.bench_lag_p99_ms)} ms)`}.`,
        ),
      )
    }
  }
  if (r.memory) out.push('', `Memory: ${fmt(r.memory.rss_per_session_mb, 3)} MB per session over a ${fmt(r.memory.baseline_rss_mb, 1)} MB baseline.`)
  return out
}

function svg(input: ReportInput): string {
  const v = input.scenarios['voice-calls'] as Partial<VoiceBenchResult> | undefined
  const cq = input.scenarios['conversation-quality'] as Partial<ConversationQualityResult> | undefined
  const browser = input.scenarios['browser-call'] as Partial<BrowserCallResult> | undefined
  const dist = (d: Distribution | undefined) => (d && d.n > 0 ? d : null)
  const steps: CapacityStep[] = v?.capacity?.steps ?? []
  return chartSvg({
    title: `Ozan voice bench — ${input.stamp}${input.quick ? ' (quick)' : ''}${v ? '' : ' — voice-calls not measured'}`,
    distributions: [
      { label: 'voice-to-voice', dist: dist(v?.latency?.voice_to_voice_ms) },
      { label: 'engine-added', dist: dist(v?.latency?.engine_added_ms), goalMs: 15 },
      { label: 'barge-in stop (caller)', dist: dist(v?.barge_in?.stop_ms) },
      { label: 'barge-in engine part', dist: dist(v?.barge_in?.engine_stop_ms), goalMs: 10 },
      // 95 % within 150 ms of the onset is the p95 at 150 ms (conversation-quality).
      ...(cq ? [{ label: 'barge-in stop from onset', dist: dist(cq.barge_ins?.stop_ms), goalMs: 150 }] : []),
      ...(browser
        ? [
            { label: 'browser: library adds', dist: dist(browser.mouth_to_ear?.library_added_ms), goalMs: 30 },
            { label: 'browser: clear → silent', dist: dist(browser.flush?.clear_to_silent_ms), goalMs: 50 },
          ]
        : []),
    ],
    steps,
  })
}
