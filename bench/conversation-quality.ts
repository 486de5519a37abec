/**
 * Conversation quality against the real engine (issue #19, item 6):
 * `npx tsx bench/conversation-quality.ts [--quick] [--seed=1] [--types=backchannel,pause] [--corpus-dir=…]`.
 *
 * A corpus of labelled situations (bench/conversation-quality/plan.ts), synthesized with espeak-ng
 * in a pink- or brown-noise room (corpus.ts, noise.ts), is staged call by call through the engine
 * child with stand-in providers (drive.ts; the voice bench's harness), and scored (score.ts):
 * backchannels ignored, barge-ins honoured and how soon the agent went quiet, premature ends of
 * turn in pauses, false-interruption resumes, and whether the agent's transcript holds only what
 * the caller heard. The agent runs on the platform's default turn-taking (a new agent's).
 * Prints a ConversationQualityResult as JSON, then a one-line summary (last line); progress goes
 * to stderr.
 */
import fs from 'node:fs'
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { buildCorpus, DEFAULT_CORPUS_ROOT, type CorpusItem } from './conversation-quality/corpus.js'
import { runSituation, type Lane } from './conversation-quality/drive.js'
import { RATES_WPM, VOICES, type Lang, type SituationType } from './conversation-quality/plan.js'
import type { SituationRun } from './conversation-quality/run-types.js'
import { scoreRuns, scoreSituation } from './conversation-quality/score.js'
import type { ConversationQualityResult, SituationScore } from './conversation-quality/scores.js'
import { runStamp, writeResult } from './lib/report.js'
import { startPinnedEngine } from './voice/engine-child.js'
import { setUpOrg, startProviders, type Providers } from './voice/setup.js'

const quick = process.argv.includes('--quick')
const log = (msg: string) => process.stderr.write(`[conversation-quality] ${msg}\n`)
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)

const SEED = Number(arg('seed') ?? 1)
if (!Number.isInteger(SEED) || SEED < 0) throw new Error(`--seed must be a whole number ≥ 0, got ${arg('seed')}`)
const TYPES: SituationType[] = ['backchannel', 'barge_in', 'noise', 'pause', 'long_turn', 'fast_turns']
const only = arg('types')
  ?.split(',')
  .map((s) => s.trim())
  .filter(Boolean)
const unknownTypes = only?.filter((t) => !TYPES.includes(t as SituationType)) ?? []
if (unknownTypes.length) throw new Error(`--types: no such situation type ${unknownTypes.join(', ')} (have: ${TYPES.join(', ')})`)
const CORPUS_ROOT = arg('corpus-dir') ?? DEFAULT_CORPUS_ROOT

/** The stand-ins' delays: the voice bench's latency-phase spreads (bench/voice-calls.ts). */
const STT_FINAL = { p50: 250, p95: 300 }
const LLM_FIRST_TOKEN = { p50: 350, p95: 600 }
const TTS_FIRST_BYTE = { p50: 200, p95: 300 }
/** Tone per reply character: the long reply lasts ~4 s, room to speak over it. */
const TTS_MS_PER_CHAR = 20
/** Audio ms between the STT stand-in's interims, as the voice bench (one a second, Deepgram's own example). */
const STT_INTERIM_MS = 1000
/** Situations run side by side in this many lanes (each one call at a time), like the voice bench's two languages. */
const LANES = 2

const pct = (x: number | null) => (x === null ? 'n/a' : `${Math.round(x * 1000) / 10}%`)

/** One word for a situation's outcome, for the progress log. */
function verdict(s: SituationScore): string {
  if ('invalid' in s) return `INVALID (${s.invalid})`
  switch (s.type) {
    case 'backchannel':
    case 'noise':
      return `${s.ignored ? 'ignored' : s.interrupted ? 'INTERRUPTED' : 'USER TURN'}${s.resumed ? `, agent stopped ${s.stopped_ms} ms then resumed` : ''}`
    case 'barge_in':
      return s.honoured ? `honoured, stopped ${s.stop_ms} ms after onset${s.in_time ? '' : ' (LATE)'}` : 'NOT HONOURED'
    case 'pause':
    case 'long_turn':
      return `${s.premature ? 'PREMATURE end of turn' : s.split ? 'SPLIT' : 'one turn'}${s.answered ? '' : ', unanswered'}`
    case 'fast_turns':
      return `${s.answered}/${s.turns} answered, ${s.exact}/${s.turns} transcripts exact`
  }
}

async function main(): Promise<void> {
  const started = performance.now()
  const corpus = await buildCorpus({ quick, seed: SEED }, CORPUS_ROOT)
  const items = corpus.items.filter((i) => !only || only.includes(i.type))
  log(
    `corpus: ${corpus.items.length} situations ${corpus.built ? 'synthesized' : 'reused'} in ${corpus.dir} (${Math.round(performance.now() - started)} ms); running ${items.length}`,
  )
  const { engine, dataDir, cpus } = await startPinnedEngine('ozan-cq-bench-', log)
  const providers: Providers[] = []
  let ok = false
  try {
    const lanes: Lane[] = []
    for (let i = 0; i < LANES; i++) {
      const p = await startProviders({ stt: STT_FINAL, llm: LLM_FIRST_TOKEN, tts: TTS_FIRST_BYTE, msPerChar: TTS_MS_PER_CHAR, seed: 31 + i * 100 })
      providers.push(p)
      // null: no turn_taking in the agent's config, so it runs on the platform's defaults.
      const [en, tr] = await Promise.all((['en', 'tr'] as const).map((l) => setUpOrg(engine.apiUrl, p, l, `cq-${l}-${i}`, null)))
      lanes.push({
        providers: p,
        orgs: { en: en!, tr: tr! },
        apiUrl: engine.apiUrl,
        ttsMsPerChar: TTS_MS_PER_CHAR,
        stt: { finalLatencyMs: STT_FINAL, interimEveryMs: STT_INTERIM_MS, seed: 7 + i },
      })
    }
    const queues: CorpusItem[][] = lanes.map((_, i) => items.filter((_, k) => k % LANES === i))
    let done = 0
    const runs = (
      await Promise.all(
        lanes.map(async (lane, i) => {
          const out: SituationRun[] = []
          for (const item of queues[i]!) {
            const run = await runSituation(item, corpus, lane)
            out.push(run)
            log(`${++done}/${items.length} ${item.id}: ${verdict(scoreSituation(run))}`)
          }
          return out
        }),
      )
    ).flat()
    // BENCH_CQ_DUMP=<file>: every situation's raw timeline (what the scorer read), to look into a verdict.
    if (process.env.BENCH_CQ_DUMP) fs.writeFileSync(process.env.BENCH_CQ_DUMP, JSON.stringify(runs, null, 1))
    const byId = new Map(runs.map((r) => [r.id, r]))
    const scores = scoreRuns(items.map((i) => byId.get(i.id)!))
    const result: ConversationQualityResult = {
      scenario: 'conversation-quality',
      quick,
      machine: { cpus, cpu_model: os.cpus()[0]?.model.trim() ?? 'unknown', node: process.version, platform: `${os.platform()} ${os.arch()}` },
      config: {
        seed: SEED,
        corpus_dir: corpus.dir,
        languages: ['en', 'tr'] satisfies Lang[],
        voices: [...VOICES.en, ...VOICES.tr],
        rates_wpm: RATES_WPM,
        turn_taking: 'platform defaults',
        stand_ins: {
          stt_final_ms: STT_FINAL.p50,
          llm_first_token_ms: LLM_FIRST_TOKEN.p50,
          tts_first_byte_ms: TTS_FIRST_BYTE.p50,
          tts_ms_per_char: TTS_MS_PER_CHAR,
        },
      },
      duration_s: Math.round((performance.now() - started) / 1000),
      ...scores,
    }
    writeResult('conversation-quality', runStamp(), result)
    process.stdout.write(JSON.stringify(result, null, 2) + '\n')
    const b = scores.barge_ins
    const pz = scores.pauses
    const th = scores.transcript_heard
    const met = scores.goals.filter((g) => g.met === true).length
    process.stdout.write(
      `conversation-quality${quick ? ' (quick)' : ''}: backchannels ignored ${scores.backchannels.ignored}/${scores.backchannels.n} (${pct(scores.backchannels.ignored_share)}), ` +
        `barge-ins honoured ${b.honoured}/${b.n}, within 150 ms ${b.in_time}/${b.n} (${pct(b.in_time_share)}; stop p50 ${b.stop_ms.n ? Math.round(b.stop_ms.p50) : 'n/a'} ms from onset), ` +
        `premature end of turn ${pz.premature_short}/${pz.short_n} pauses ≤ ${pz.goal_max_pause_ms} ms, noise ignored ${scores.noise.ignored}/${scores.noise.n}, ` +
        `false-interruption resumes ${scores.false_interruption_resumes}, heard transcripts exact ${th.exact}/${th.checked}, ` +
        `goals met ${met}/${scores.goals.length}, ${scores.situations} situations (${scores.invalid.length} invalid) in ${result.duration_s} s\n`,
    )
    ok = true
  } finally {
    await engine.stop()
    await Promise.all(providers.map((p) => p.close()))
    if (ok) fs.rmSync(dataDir, { recursive: true, force: true })
    else log(`engine data and log kept in ${dataDir}; engine stderr:\n${engine.stderr().slice(-3000)}`)
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
    process.exit(1)
  },
)
