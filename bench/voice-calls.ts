/**
 * Voice calls against the real engine (issue 8): `npx tsx bench/voice-calls.ts [--quick]`.
 *
 * The engine runs in its own process pinned to one core (bench/lib/engine-server.ts); stand-in
 * providers (Deepgram live STT, OpenAI chat, OpenAI speech) and the simulated callers run here,
 * pinned to the other cores, so every instant is this process's performance.now(). Phases:
 * 1. latency + barge-in: one conversation per language (en, tr) with normal turns, backchannels
 *    over the agent and interruptions; each language has its own organization and stand-ins, so
 *    the two calls run side by side without sharing a script queue;
 * 2. capacity: N concurrent talking calls, stepped up until output jitter or loop lag fails;
 * 3. memory: RSS slope over the capacity steps.
 * Prints a VoiceBenchResult as JSON, then a one-line summary (last line); progress goes to stderr.
 */
import fs from 'node:fs'
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { capacity } from './voice/capacity.js'
import { Caller, firstAudioAfter, FramePacer, listeningAfter } from './voice/caller.js'
import { startPinnedEngine } from './voice/engine-child.js'
import { capacityFrom, rssPerSessionMb, summarize } from './voice/metrics.js'
import type { LatencyTarget, VoiceBenchResult } from './voice/result.js'
import {
  CAPACITY_MS_PER_CHAR,
  CAPACITY_REPLY,
  END_OF_TURN_WAIT_MS,
  LLM_TOKENS_PER_S,
  setUpOrg,
  startProviders,
  type Org,
  type Providers,
} from './voice/setup.js'
import type { BargeInTimeline, ReplyTimeline } from './voice/timeline.js'
import { callerScript, type CallerScript, type Lang } from './voice/utterances.js'
import { describeVerdict } from './voice/verdict.js'
import { DEFAULT_ENDPOINTER } from '../engine/turn-taking/index.js'

const quick = process.argv.includes('--quick')
const log = (msg: string) => process.stderr.write(`[voice-calls] ${msg}\n`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const STT_FINAL: LatencyTarget = { p50: 250, p95: 300 }
const LLM_FIRST_TOKEN: LatencyTarget = { p50: 350, p95: 600 }
const TTS_FIRST_BYTE: LatencyTarget = { p50: 200, p95: 300 }
/** Tone per character of reply text: short replies keep the latency phase quick. */
const REPLY_MS_PER_CHAR = 12
/**
 * Audio ms between the STT stand-in's interims (`--stt-interim-ms=`). Deepgram documents no
 * cadence; its own example shows one interim per second of audio. An interim holding every word
 * before the final is what speculation runs on, so a slower cadence means fewer early starts.
 */
const STT_INTERIM_MS = Number(process.argv.find((a) => a.startsWith('--stt-interim-ms='))?.slice('--stt-interim-ms='.length) ?? 1000)
if (!(STT_INTERIM_MS > 0)) throw new Error('--stt-interim-ms must be a positive number of ms')
/** Output jitter and engine loop lag limits of a sustained capacity step. */
const JITTER_LIMIT_MS = 10
const LAG_LIMIT_MS = 20

/** `--steps=10,50,100` replaces the capacity steps (to probe one region, or profile one load). */
const stepsArg = process.argv.find((a) => a.startsWith('--steps='))?.slice('--steps='.length)
const PLAN_BASE = quick
  ? { turnsPerLang: 4, interruptEvery: 4, backchannelEvery: 3, pauseMs: 300, steps: [4, 8], warmupMs: 2000, windowMs: 3000 }
  : {
      turnsPerLang: 30,
      interruptEvery: 5,
      backchannelEvery: 3,
      pauseMs: 500,
      steps: [10, 25, 50, 75, 100, 125, 150, 200, 250],
      warmupMs: 6000,
      windowMs: 10_000,
    }
/** `--warmup-ms=` / `--window-ms=` replace how long each capacity step settles and is measured. */
const msArg = (name: string) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)) || undefined
const warmupArg = msArg('warmup-ms')
/** `--room-dbfs=-50` (a noisy room) or `off` (digital silence): the callers' noise floor (FramePacer). */
const roomArg = process.argv.find((a) => a.startsWith('--room-dbfs='))?.slice('--room-dbfs='.length)
/**
 * `--no-wire`: judge capacity by the callers' jitter. Otherwise the wire decides, and a step whose
 * capture cannot run (no tcpdump, not root) is marked invalid rather than judged on the callers' clock.
 */
const wireCapture = !process.argv.includes('--no-wire')
const ROOM_DBFS = roomArg === undefined ? -80 : roomArg === 'off' ? null : Number(roomArg)
if (ROOM_DBFS !== null && !(ROOM_DBFS < 0)) throw new Error(`--room-dbfs must be a negative level or off, got ${roomArg}`)
const windowArg = msArg('window-ms')
const PLAN = {
  ...PLAN_BASE,
  ...(stepsArg && {
    steps: stepsArg
      .split(',')
      .map(Number)
      .filter((n) => n > 0),
  }),
  ...(warmupArg && { warmupMs: warmupArg }),
  ...(windowArg && { windowMs: windowArg }),
  /** `--all-steps`: every step runs, even after one fails (to read memory or CPU at each load). */
  allSteps: process.argv.includes('--all-steps'),
}

// ── latency and barge-in: one scripted conversation per language ────────────────────────────────

interface Conversation {
  replies: ReplyTimeline[]
  bargeIns: BargeInTimeline[]
  missed: string[]
}

async function converse(org: Org, p: Providers, script: CallerScript, pacer: FramePacer): Promise<Conversation> {
  const out: Conversation = { replies: [], bargeIns: [], missed: [] }
  const c = await Caller.connect(await org.mint(), pacer)
  // The greeting: wait until it has been spoken in full.
  await c.event((e) => e.type === 'transcript' && e.role === 'agent' && e.final === true, 20_000, 0, 'greeting')
  await listeningAfter(c, c.lastAudioAt() ?? 0)
  const longReply = script.replies.join(' ')
  for (let k = 0; k < PLAN.turnsPerLang; k++) {
    const turn = script.turns[k % script.turns.length]!
    const interrupt = (k + 1) % PLAN.interruptEvery === 0
    const backchannel = !interrupt && (k + 1) % PLAN.backchannelEvery === 0
    await sleep(PLAN.pauseMs + ((k * 173) % PLAN.pauseMs)) // a varied pause before speaking
    p.dg.script({ text: turn.text, speechMs: turn.speechMs })
    // Keyed by the words: speculative requests on partial transcripts must not take the reply.
    p.llm.script({ text: interrupt ? longReply : script.replies[k % script.replies.length]!, forUser: turn.text })
    const u = await c.say(turn.pcm, turn.text)
    await c.until(() => firstAudioAfter(c.timeline, u.speechEndAt) !== null, 15_000, `reply to "${turn.text}"`).catch((e: Error) => out.missed.push(e.message))
    const firstAudioAt = firstAudioAfter(c.timeline, u.speechEndAt)
    out.replies.push(joinReply(u.speechEndAt, firstAudioAt, turn.text, p))
    if (firstAudioAt === null) continue
    if (backchannel) {
      await sleep(300)
      const bc = script.backchannels[k % script.backchannels.length]!
      p.dg.script({ text: bc.text, speechMs: bc.speechMs })
      await c.say(bc.pcm, bc.text)
    }
    if (interrupt) {
      await sleep(800)
      const it = script.interruptions[k % script.interruptions.length]!
      p.dg.script({ text: it.text, speechMs: it.speechMs })
      p.llm.script({ text: script.replies[(k + 1) % script.replies.length]!, forUser: it.text })
      const from = c.timeline.events.length
      const iu = await c.say(it.pcm, it.text)
      const b = await bargeIn(c, iu.speechOnsetAt, from)
      if (b) out.bargeIns.push(b)
      else out.missed.push(`no clear after "${it.text}"`)
      if (k === PLAN.turnsPerLang - 1) break
      // The interruption is a turn of its own: wait for its reply to be heard.
      await c.until(() => firstAudioAfter(c.timeline, iu.speechEndAt) !== null, 15_000, 'reply to the interruption').catch(() => {})
      await listeningAfter(c, firstAudioAfter(c.timeline, iu.speechEndAt) ?? iu.speechEndAt)
      continue
    }
    await listeningAfter(c, firstAudioAt)
  }
  await c.hangUp()
  if (process.env.BENCH_VOICE_DUMP)
    fs.writeFileSync(
      `${process.env.BENCH_VOICE_DUMP}-${script.lang}.json`,
      JSON.stringify(
        {
          timeline: c.timeline,
          replies: out.replies,
          dg: p.dg.sessions.map((s) => s.utterances),
          llm: p.llm.requests.map((r) => ({
            receivedAt: r.receivedAt,
            chunkSentAt: r.chunkSentAt,
            injected: r.injected,
            last: r.messages.at(-1),
            outcome: r.outcome,
          })),
          tts: p.speech.requests.map((r) => ({
            receivedAt: r.receivedAt,
            firstByteSentAt: r.firstByteSentAt,
            injected: r.injected,
            text: r.text,
            outcome: r.outcome,
          })),
        },
        null,
        1,
      ),
    )
  return out
}

/** Joins the caller's view of one reply with the stand-ins' logs (all on this process's clock). */
function joinReply(speechEndAt: number, firstAudioAt: number | null, text: string, p: Providers): ReplyTimeline {
  const until = firstAudioAt ?? Infinity
  // The utterance's final, or the last segment's when a Finalize in a pause split it (the turn
  // joins the segments' finals; the last one is what it waited for).
  const utt = p.dg.sessions
    .flatMap((s) => s.utterances)
    .filter((x) => x.text !== '' && (x.text === text || text.endsWith(` ${x.text}`)) && x.finalSentAt >= speechEndAt - 50)
    .sort((a, b) => Math.abs(a.speechEndAt - speechEndAt) - Math.abs(b.speechEndAt - speechEndAt))[0]
  // The completion whose audio was heard: the newest request for these words before the audio.
  const asked = p.llm.requests.filter((r) => r.path === '/v1/chat/completions' && r.receivedAt >= speechEndAt - 50 && r.receivedAt < until)
  const llm = asked.filter((r) => JSON.stringify(r.messages.at(-1) ?? '').includes(text)).at(-1) ?? asked.at(-1)
  const tts = llm ? p.speech.requests.find((r) => r.receivedAt >= llm.receivedAt && r.receivedAt < until) : undefined
  return {
    speechEndAt,
    firstAudioAt,
    endOfTurnWaitMs: END_OF_TURN_WAIT_MS,
    preemptive: true,
    speculateAfterMs: DEFAULT_ENDPOINTER.speculateAfterMs,
    stt: utt ? { finalSentAt: utt.finalSentAt, injectedMs: utt.injectedLatencyMs, completeAt: utt.completeAt } : null,
    llm: llm
      ? { receivedAt: llm.receivedAt, chunkSentAt: llm.chunkSentAt, finishSentAt: llm.finishSentAt, injectedFirstTokenMs: llm.injected.firstTokenMs }
      : null,
    tts:
      tts && tts.firstByteSentAt !== null ? { receivedAt: tts.receivedAt, firstByteSentAt: tts.firstByteSentAt, injectedMs: tts.injected.firstByteMs } : null,
  }
}

/** Waits for `clear` (an event at index ≥ `from`, taken before the interruption was spoken); the last agent audio before it is when the agent went quiet. */
async function bargeIn(c: Caller, speechOnsetAt: number, from: number): Promise<BargeInTimeline | null> {
  const clear = await c.event((e) => e.type === 'clear', 8000, from, 'clear').catch(() => null)
  if (!clear) return null
  const heard = c.timeline.events.slice(from).find((e) => e.event.type === 'transcript' && e.event.role === 'agent' && e.event.interrupted === true)
  const turnId = heard?.event.turn_id
  const metrics = await c.event((e) => e.type === 'metrics' && (turnId === undefined || e.turn_id === turnId), 3000, clear.index, 'metrics').catch(() => null)
  const before = c.timeline.audio.filter((a) => a.at <= clear.at).at(-1)
  const stop = metrics?.event.barge_in_stop_ms
  return { speechOnsetAt, lastAgentAudioAt: before?.at ?? clear.at, engineStopMs: typeof stop === 'number' ? stop : null }
}

const round = (x: number) => Math.round(x * 100) / 100

// ── main ─────────────────────────────────────────────────────────────────────────────────────────

async function main(): Promise<void> {
  const started = performance.now()
  const { engine, engineCore, dataDir, cpus } = await startPinnedEngine('ozan-voice-bench-', log)
  const pacer = new FramePacer(ROOM_DBFS)
  const langs: Lang[] = ['en', 'tr']
  const providers: Providers[] = []
  let ok = false
  try {
    const scripts = await Promise.all(langs.map((l) => callerScript(l)))
    const sets = await Promise.all(
      langs.map((_, i) =>
        startProviders({
          stt: STT_FINAL,
          sttInterimMs: STT_INTERIM_MS,
          llm: LLM_FIRST_TOKEN,
          tts: TTS_FIRST_BYTE,
          msPerChar: REPLY_MS_PER_CHAR,
          seed: 11 + i * 100,
        }),
      ),
    )
    providers.push(...sets)
    const orgs = await Promise.all(langs.map((l, i) => setUpOrg(engine.apiUrl, sets[i]!, l, l)))

    log(`latency + barge-in: ${PLAN.turnsPerLang} turns per language (${langs.join(', ')}), one call each, side by side`)
    const convs = await Promise.all(langs.map((_, i) => converse(orgs[i]!, sets[i]!, scripts[i]!, pacer)))
    for (const m of convs.flatMap((c) => c.missed)) log(`missed: ${m}`)
    const replies = convs.flatMap((c) => c.replies)
    const bargeIns = convs.flatMap((c) => c.bargeIns)
    const { latency, barge_in } = summarize(replies, bargeIns)
    const chats = sets.flatMap((s) => s.llm.requests.filter((r) => r.path === '/v1/chat/completions'))
    latency.llm_requests = { total: chats.length, dropped: chats.filter((r) => r.outcome === 'client_closed').length }
    log(`LLM requests: ${chats.length} for ${replies.length} replies, ${latency.llm_requests.dropped} dropped before their end (speculations, barge-ins)`)
    log(
      `voice-to-voice p50 ${latency.voice_to_voice_ms.p50} ms, engine-added p50 ${latency.engine_added_ms.p50} / p95 ${latency.engine_added_ms.p95} ms (n ${latency.engine_added_ms.n}), barge-in stop p50 ${barge_in.stop_ms.p50} ms (n ${barge_in.count})`,
    )

    // Capacity: short provider delays (agent audio must flow, the delays themselves are not measured).
    const cap = await startProviders({ stt: 100, llm: 100, tts: 50, msPerChar: CAPACITY_MS_PER_CHAR, seed: 7 })
    providers.push(cap)
    const capOrg = await setUpOrg(engine.apiUrl, cap, 'en', 'capacity')
    const capReply = CAPACITY_REPLY
    const steps = await capacity(engine, capOrg, cap, scripts[0]!.turns, capReply, pacer, {
      ...PLAN,
      jitterLimitMs: JITTER_LIMIT_MS,
      lagLimitMs: LAG_LIMIT_MS,
      wireCapture,
      log,
    })
    const mem = rssPerSessionMb(steps)

    const result: VoiceBenchResult = {
      scenario: 'voice-calls',
      quick,
      machine: { cpus, cpu_model: os.cpus()[0]?.model ?? 'unknown', node: process.version, platform: `${os.platform()} ${os.arch()}` },
      config: {
        end_of_turn_wait_ms: END_OF_TURN_WAIT_MS,
        preemptive: true,
        stt_final: STT_FINAL,
        stt_interim_ms: STT_INTERIM_MS,
        llm_first_token: LLM_FIRST_TOKEN,
        llm_tokens_per_s: LLM_TOKENS_PER_S,
        tts_first_byte: TTS_FIRST_BYTE,
        languages: langs,
        room_dbfs: ROOM_DBFS,
      },
      latency,
      barge_in,
      capacity: { pinned_core: engineCore, steps, sessions_per_core: capacityFrom(steps) },
      memory: mem ?? { rss_per_session_mb: 0, baseline_rss_mb: steps[0]?.rss_mb ?? 0 },
    }
    process.stdout.write(JSON.stringify(result, null, 2) + '\n')
    const d = (x: { p50: number; p95: number }) => `${Math.round(x.p50)}/${Math.round(x.p95)}`
    // The step that ended the stepping, and why (verdict.ts): which clock its jitter came from.
    const stopped = steps.find((s) => !s.ok)
    process.stdout.write(
      `voice-calls${quick ? ' (quick)' : ''}: v2v p50/p95 ${d(latency.voice_to_voice_ms)} ms (providers ${d(latency.provider_sum_ms)}), ` +
        `engine-added ${d(latency.engine_added_ms)} ms, barge-in stop ${d(barge_in.stop_ms)} ms (engine ${barge_in.engine_stop_ms.n ? d(barge_in.engine_stop_ms) : 'n/a'}), ` +
        `${result.capacity.sessions_per_core} sessions/core (judged on the ${wireCapture ? 'wire' : "callers' clock"}${stopped ? `; ${stopped.sessions} calls: ${describeVerdict(stopped)}` : ''}), ` +
        `${round(result.memory.rss_per_session_mb)} MB/session, ${latency.turns} turns in ${Math.round((performance.now() - started) / 1000)} s\n`,
    )
    ok = true
  } finally {
    await engine.stop()
    await Promise.all(providers.map((p) => p.close()))
    // A failed run keeps the engine's log (engine.log) for a look.
    if (ok && !process.env.BENCH_ENGINE_FLAGS && !process.env.BENCH_ENGINE_STALLS) fs.rmSync(dataDir, { recursive: true, force: true })
    else log(`engine data and log kept in ${dataDir}${ok ? '' : `; engine stderr:\n${engine.stderr().slice(-3000)}`}`)
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
    process.exit(1)
  },
)
