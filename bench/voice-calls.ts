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
import { execFileSync, fork, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { libScript } from './lib/children.js'
import type { EngineFromChild } from './lib/engine-server.js'
import { startDeepgramStandIn, type DeepgramStandIn } from './stand-ins/deepgram-server.js'
import { startOpenAiStandIn, type OpenAiStandIn } from './stand-ins/openai-server.js'
import { startSpeechStandIn, type SpeechStandIn } from './stand-ins/speech-server.js'
import { Caller, FramePacer, windowJitter, type CallerTimeline } from './voice/caller.js'
import { capacityFrom, rssPerSessionMb, summarize } from './voice/metrics.js'
import { startWireCapture, tcpdumpPath, wireJitter } from './voice/wire.js'
import { ENGINE_NODE_FLAGS } from './lib/engine-flags.js'
import type { CapacityStep, LatencyTarget, VoiceBenchResult } from './voice/result.js'
import type { BargeInTimeline, ReplyTimeline } from './voice/timeline.js'
import { callerScript, type CallerScript, type Lang, type Line } from './voice/utterances.js'

const quick = process.argv.includes('--quick')
const log = (msg: string) => process.stderr.write(`[voice-calls] ${msg}\n`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const END_OF_TURN_WAIT_MS = 300
const STT_FINAL: LatencyTarget = { p50: 250, p95: 300 }
const LLM_FIRST_TOKEN: LatencyTarget = { p50: 350, p95: 600 }
const LLM_TOKENS_PER_S = 50
const TTS_FIRST_BYTE: LatencyTarget = { p50: 200, p95: 300 }
/** Tone per character of reply text: short replies keep the latency phase quick. */
const REPLY_MS_PER_CHAR = 12
/** Output jitter and engine loop lag limits of a sustained capacity step. */
const JITTER_LIMIT_MS = 10
const LAG_LIMIT_MS = 20

/** `--steps=10,50,100` replaces the capacity steps (to probe one region, or profile one load). */
const stepsArg = process.argv.find((a) => a.startsWith('--steps='))?.slice('--steps='.length)
const PLAN_BASE = quick
  ? { turnsPerLang: 4, interruptEvery: 4, backchannelEvery: 3, pauseMs: 300, steps: [4, 8], warmupMs: 2000, windowMs: 3000 }
  : { turnsPerLang: 30, interruptEvery: 5, backchannelEvery: 3, pauseMs: 500, steps: [10, 25, 50, 75, 100, 125, 150, 200, 250], warmupMs: 6000, windowMs: 10_000 }
/** `--warmup-ms=` / `--window-ms=` replace how long each capacity step settles and is measured. */
const msArg = (name: string) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)) || undefined
const warmupArg = msArg('warmup-ms')
/** `--room-dbfs=-50` (a noisy room) or `off` (digital silence): the callers' noise floor (FramePacer). */
const roomArg = process.argv.find((a) => a.startsWith('--room-dbfs='))?.slice('--room-dbfs='.length)
/** `--no-wire`: judge capacity by the callers' jitter even where tcpdump could capture the wire. */
const wireCapture = !process.argv.includes('--no-wire') && tcpdumpPath() !== null && process.getuid?.() === 0
const ROOM_DBFS = roomArg === undefined ? -80 : roomArg === 'off' ? null : Number(roomArg)
if (ROOM_DBFS !== null && !(ROOM_DBFS < 0)) throw new Error(`--room-dbfs must be a negative level or off, got ${roomArg}`)
const windowArg = msArg('window-ms')
const PLAN = {
  ...PLAN_BASE,
  ...(stepsArg && { steps: stepsArg.split(',').map(Number).filter((n) => n > 0) }),
  ...(warmupArg && { warmupMs: warmupArg }),
  ...(windowArg && { windowMs: windowArg }),
}

// ── the engine's process ─────────────────────────────────────────────────────────────────────────

interface EngineChild {
  apiUrl: string
  enginePort: number
  transport: string
  sample(): Promise<Extract<EngineFromChild, { type: 'sample' }>>
  stop(): Promise<void>
  /** The tail of the engine's stderr. */
  stderr(): string
}

function tasksetPath(): string | null {
  for (const p of ['/usr/bin/taskset', '/bin/taskset']) if (fs.existsSync(p)) return p
  return null
}

async function startEngineChild(core: number | null, dataDir: string): Promise<EngineChild> {
  const taskset = tasksetPath()
  // fork() through taskset: taskset execs node, which inherits the IPC channel's fd.
  const pinned = taskset !== null && core !== null
  // BENCH_ENGINE_CPU_PROF=<dir>: the engine writes a .cpuprofile there when it stops.
  const prof = process.env.BENCH_ENGINE_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_ENGINE_CPU_PROF}`] : []
  // BENCH_ENGINE_FLAGS="--trace-gc …": extra node/V8 flags for the engine (its stdout is engine.log in the data dir).
  const extra = [...prof, ...(process.env.BENCH_ENGINE_FLAGS ?? '').split(' ').filter(Boolean)]
  const child: ChildProcess = fork(libScript('engine-server.ts'), [], {
    ...(pinned ? { execPath: taskset, execArgv: ['-c', String(core), process.execPath, ...ENGINE_NODE_FLAGS, '--import', 'tsx', ...extra] } : { execArgv: [...ENGINE_NODE_FLAGS, '--import', 'tsx', ...extra] }),
    env: {
      ...process.env,
      OZAN_DATA_DIR: dataDir, OZAN_HOST: '127.0.0.1', OZAN_PORT: '0', OZAN_ENGINE_HOST: '127.0.0.1', OZAN_ENGINE_PORT: '0',
      OZAN_LOG_LEVEL: 'warn', OZAN_MAX_LIVE_CALLS_PER_ORG: '10000', OZAN_ACCESS_TOKEN_TTL_S: '7200',
      OZAN_RATE_LIMIT_ORG_BURST: '1000000', OZAN_RATE_LIMIT_ORG_PER_MIN: '1000000', OZAN_RATE_LIMIT_KEY_BURST: '1000000',
      OZAN_RATE_LIMIT_KEY_PER_MIN: '1000000', OZAN_RATE_LIMIT_ADDRESS_BURST: '1000000', OZAN_RATE_LIMIT_ADDRESS_PER_MIN: '1000000',
    },
    stdio: ['ignore', fs.openSync(path.join(dataDir, 'engine.log'), 'a'), 'pipe', 'ipc'],
  })
  let err = ''
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (err = (err + s).slice(-8000)))
  const samples: Array<(m: Extract<EngineFromChild, { type: 'sample' }>) => void> = []
  const ready = await new Promise<Extract<EngineFromChild, { type: 'engine_ready' }>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`engine not ready after 60 s\n${err}`)), 60_000)
    child.on('message', (m: EngineFromChild) => {
      if (m.type === 'engine_ready') {
        clearTimeout(timer)
        resolve(m)
      } else if (m.type === 'sample') samples.shift()?.(m)
    })
    child.once('exit', (code) => reject(new Error(`engine exited with ${code}\n${err}`)))
  })
  return {
    apiUrl: `http://127.0.0.1:${ready.apiPort}`,
    enginePort: ready.enginePort,
    transport: ready.transport,
    sample: () => new Promise((resolve) => (samples.push(resolve), child.send({ type: 'sample' }))),
    stderr: () => err,
    async stop() {
      if (child.exitCode !== null) return
      const exited = new Promise((r) => child.once('exit', r))
      child.send({ type: 'stop' })
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
    },
  }
}

// ── stand-in providers ───────────────────────────────────────────────────────────────────────────

const KEYS = { openai: 'sk-bench-standin', deepgram: 'dg-bench-standin' }

interface Providers {
  dg: DeepgramStandIn
  llm: OpenAiStandIn
  speech: SpeechStandIn
  /** One OpenAI base URL for chat and speech (an organization has one "openai" credential). */
  openaiBaseUrl: string
  close(): Promise<void>
}

async function startProviders(o: { stt: number | LatencyTarget; llm: number | LatencyTarget; tts: number | LatencyTarget; msPerChar: number; seed: number }): Promise<Providers> {
  const dg = await startDeepgramStandIn({ apiKey: KEYS.deepgram, finalLatencyMs: o.stt, seed: o.seed })
  const speech = await startSpeechStandIn({ openaiKey: KEYS.openai, firstByteLatencyMs: typeof o.tts === 'number' ? o.tts : { ...o.tts, seed: o.seed + 1 }, msPerChar: o.msPerChar })
  // One base URL for chat and speech (one "openai" credential), served by one process, no proxy hop.
  const llm = await startOpenAiStandIn({
    apiKey: KEYS.openai, firstTokenLatencyMs: typeof o.llm === 'number' ? o.llm : { ...o.llm, seed: o.seed }, tokensPerSecond: LLM_TOKENS_PER_S,
    mount: [{ prefix: '/v1/audio/speech', handler: speech.handler }],
  })
  return {
    dg, llm, speech,
    openaiBaseUrl: llm.url,
    async close() {
      await Promise.all([dg.close(), llm.close(), speech.close()])
    },
  }
}

// ── the platform side: an organization, its credentials and a published agent ───────────────────

interface Org {
  token: string
  agentId: string
  mint(): Promise<string>
}

async function setUpOrg(apiUrl: string, p: Providers, lang: Lang, tag: string): Promise<Org> {
  const call = async (method: string, urlPath: string, body?: unknown, token?: string): Promise<Record<string, unknown>> => {
    const res = await fetch(apiUrl + urlPath, {
      method, headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) }, body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    // Never echo a body that may hold the ws URL; these answers are errors or ids.
    if (!res.ok) throw new Error(`${method} ${urlPath}: ${res.status} ${urlPath.includes('web-token') ? '' : text.slice(0, 300)}`)
    return text ? (JSON.parse(text) as Record<string, unknown>) : {}
  }
  const reg = await call('POST', '/api/v1/auth/register', { email: `bench-${tag}-${Date.now()}@example.com`, password: 'correct horse battery staple', name: 'Bench' })
  const token = reg.access_token as string
  await call('PUT', '/api/v1/credentials', { provider: 'openai', fields: { api_key: KEYS.openai, base_url: p.openaiBaseUrl } }, token)
  await call('PUT', '/api/v1/credentials', { provider: 'deepgram', fields: { api_key: KEYS.deepgram, base_url: p.dg.url.replace(/^ws/, 'http') } }, token)
  const agentId = (await call('POST', '/api/v1/workflows', { name: `Bench ${tag}` }, token)).id as string
  const greeting = lang === 'tr' ? 'Merhaba, hoş geldiniz.' : 'Hello, thanks for calling.'
  const definition = {
    variables: [],
    nodes: [
      { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: greeting } } },
      { id: 'chat', type: 'conversation', data: { prompt: 'You take restaurant bookings. Answer in two short sentences.' } },
      { id: 'bye', type: 'end' },
    ],
    // An exit that never fires (an intent edge would add classification requests to the LLM's log).
    edges: [{ id: 'e1', source: 'start', target: 'chat' }, { id: 'e2', source: 'chat', target: 'bye', condition: { kind: 'expression', expression: { '==': [1, 2] } } }],
  }
  await call('PUT', `/api/v1/workflows/${agentId}/definition`, definition, token)
  const config = {
    language: lang === 'tr' ? 'tr-TR' : 'en-US',
    stt: { provider: 'deepgram' }, llm: { provider: 'openai', model: 'gpt-4o-mini' }, tts: { provider: 'openai' },
    turn_taking: { strategy: 'silence', endpointing_ms: END_OF_TURN_WAIT_MS, preemptive_generation: true },
    silence_timeout_s: 120,
  }
  await call('PUT', `/api/v1/workflows/${agentId}/config`, config, token)
  await call('POST', `/api/v1/workflows/${agentId}/publish`, undefined, token)
  return { token, agentId, mint: async () => (await call('POST', '/api/v1/calls/web-token', { workflow_uuid: agentId }, token)).ws_url as string }
}

// ── latency and barge-in: one scripted conversation per language ────────────────────────────────

interface Conversation {
  replies: ReplyTimeline[]
  bargeIns: BargeInTimeline[]
  missed: string[]
}

const isStatus = (s: string) => (e: { type: string; status?: unknown }) => e.type === 'status' && e.status === s
/** The first `listening` status after `t`: the agent finished (or dropped) what it was saying. */
// These run on every message a caller receives, over timelines that grow all run: they look from
// the newest entry back (or bisect), never over the whole history.
const listeningAfter = (c: Caller, t: number) =>
  c.until(() => {
    const ev = c.timeline.events
    for (let i = ev.length - 1; i >= 0 && ev[i]!.at > t; i--) if (isStatus('listening')(ev[i]!.event)) return true
    return false
  }, 30_000, 'listening')
/** Arrivals are in time order: the first one after `t` by bisection. */
const firstAudioAfter = (tl: CallerTimeline, t: number): number | null => {
  const a = tl.audio
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid]!.at > t) hi = mid
    else lo = mid + 1
  }
  return a[lo]?.at ?? null
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
    p.dg.script(turn.text)
    p.llm.script({ text: interrupt ? longReply : script.replies[k % script.replies.length]! })
    const u = await c.say(turn.pcm, turn.text)
    await c.until(() => firstAudioAfter(c.timeline, u.speechEndAt) !== null, 15_000, `reply to "${turn.text}"`).catch((e: Error) => out.missed.push(e.message))
    const firstAudioAt = firstAudioAfter(c.timeline, u.speechEndAt)
    out.replies.push(joinReply(u.speechEndAt, firstAudioAt, turn.text, p))
    if (firstAudioAt === null) continue
    if (backchannel) {
      await sleep(300)
      const bc = script.backchannels[k % script.backchannels.length]!
      p.dg.script(bc.text)
      await c.say(bc.pcm, bc.text)
    }
    if (interrupt) {
      await sleep(800)
      const it = script.interruptions[k % script.interruptions.length]!
      p.dg.script(it.text)
      p.llm.script({ text: script.replies[(k + 1) % script.replies.length]! })
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
  if (process.env.BENCH_VOICE_DUMP) fs.writeFileSync(`${process.env.BENCH_VOICE_DUMP}-${script.lang}.json`, JSON.stringify({ timeline: c.timeline, replies: out.replies, dg: p.dg.sessions.map((s) => s.utterances), llm: p.llm.requests.map((r) => ({ receivedAt: r.receivedAt, chunkSentAt: r.chunkSentAt, injected: r.injected, last: r.messages.at(-1), outcome: r.outcome })), tts: p.speech.requests.map((r) => ({ receivedAt: r.receivedAt, firstByteSentAt: r.firstByteSentAt, injected: r.injected, text: r.text, outcome: r.outcome })) }, null, 1))
  return out
}

/** Joins the caller's view of one reply with the stand-ins' logs (all on this process's clock). */
function joinReply(speechEndAt: number, firstAudioAt: number | null, text: string, p: Providers): ReplyTimeline {
  const until = firstAudioAt ?? Infinity
  const utt = p.dg.sessions
    .flatMap((s) => s.utterances)
    .filter((x) => x.text === text && x.finalSentAt >= speechEndAt - 50)
    .sort((a, b) => Math.abs(a.speechEndAt - speechEndAt) - Math.abs(b.speechEndAt - speechEndAt))[0]
  // The completion whose audio was heard: the newest request for these words before the audio.
  const asked = p.llm.requests.filter((r) => r.path === '/v1/chat/completions' && r.receivedAt >= speechEndAt - 50 && r.receivedAt < until)
  const llm = asked.filter((r) => JSON.stringify(r.messages.at(-1) ?? '').includes(text)).at(-1) ?? asked.at(-1)
  const tts = llm ? p.speech.requests.find((r) => r.receivedAt >= llm.receivedAt && r.receivedAt < until) : undefined
  return {
    speechEndAt, firstAudioAt, endOfTurnWaitMs: END_OF_TURN_WAIT_MS, preemptive: true,
    stt: utt ? { finalSentAt: utt.finalSentAt, injectedMs: utt.injectedLatencyMs } : null,
    llm: llm ? { receivedAt: llm.receivedAt, chunkSentAt: llm.chunkSentAt, finishSentAt: llm.finishSentAt, injectedFirstTokenMs: llm.injected.firstTokenMs } : null,
    tts: tts && tts.firstByteSentAt !== null ? { receivedAt: tts.receivedAt, firstByteSentAt: tts.firstByteSentAt, injectedMs: tts.injected.firstByteMs } : null,
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

// ── capacity: N concurrent talking calls ─────────────────────────────────────────────────────────

/** A caller that keeps taking turns until stopped: speak, wait for the reply to be heard, pause. */
class TalkingCall {
  private stopped = false
  reported = false
  done: Promise<void> = Promise.resolve()
  constructor(readonly caller: Caller, private readonly p: Providers, private readonly lines: Line[], private readonly reply: string, private readonly seed: number) {}

  start(): void {
    this.done = this.loop().catch(() => {})
  }

  private async loop(): Promise<void> {
    const c = this.caller
    await c.event((e) => e.type === 'transcript' && e.role === 'agent' && e.final === true, 30_000, 0, 'greeting')
    await listeningAfter(c, c.lastAudioAt() ?? 0)
    for (let k = this.seed; !this.stopped && c.open; k++) {
      await sleep(300 + ((k * 211) % 600))
      if (this.stopped) return
      const line = this.lines[k % this.lines.length]!
      // Every call scripts the same words: whichever call's speech the shared queue serves, it fits.
      this.p.dg.script(line.text)
      this.p.llm.script({ text: this.reply })
      const u = await c.say(line.pcm, line.text)
      await c.until(() => firstAudioAfter(c.timeline, u.speechEndAt) !== null, 20_000, 'reply')
      await listeningAfter(c, firstAudioAfter(c.timeline, u.speechEndAt)!)
    }
  }

  stop(): void {
    this.stopped = true
  }
}

const p99 = (xs: number[]): number => {
  if (!xs.length) return 0
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil(0.99 * s.length) - 1)]!
}

async function capacity(engine: EngineChild, org: Org, p: Providers, lines: Line[], reply: string, pacer: FramePacer): Promise<CapacityStep[]> {
  const steps: CapacityStep[] = []
  const calls: TalkingCall[] = []
  const benchLag = monitorEventLoopDelay({ resolution: 10 })
  benchLag.enable()
  try {
    for (const n of PLAN.steps) {
      // Ramp up at about 25 calls a second so set-up does not land all at once.
      while (calls.length < n) {
        const batch = Math.min(5, n - calls.length)
        const added = await Promise.all(Array.from({ length: batch }, async () => new TalkingCall(await Caller.connect(await org.mint(), pacer), p, lines, reply, calls.length * 7)))
        for (const t of added) (calls.push(t), t.start())
        await sleep(200)
      }
      await sleep(PLAN.warmupMs)
      // Arrivals from earlier steps are measured already: dropping them keeps the callers' heap small.
      const cut = performance.now() - PLAN.warmupMs
      for (const t of calls) t.caller.forgetAudioBefore(cut)
      const wire = wireCapture ? await startWireCapture(engine.enginePort, path.join(os.tmpdir(), `ozan-voice-wire-${process.pid}.pcap`)).catch((e: Error) => (log(`no wire capture: ${e.message}`), null)) : null
      const s0 = await engine.sample()
      benchLag.reset()
      const from = performance.now()
      await sleep(PLAN.windowMs)
      const to = performance.now()
      const s = await engine.sample()
      const wireFrames = wire ? await wire.stop() : null
      const wireJ = wireFrames ? wireJitter(wireFrames) : null
      const live = calls.filter((t) => t.caller.open)
      for (const t of calls.filter((x) => !x.caller.open && !x.reported)) {
        t.reported = true
        const last = t.caller.timeline.events.filter((e) => e.event.type === 'ended' || e.event.type === 'error').map((e) => JSON.stringify(e.event))
        log(`a call closed (${t.caller.timeline.closed?.code}${t.caller.timeline.error ? `, ${t.caller.timeline.error}` : ''}): ${last.join(' ') || 'no ended event'}`)
      }
      const jitter = live.flatMap((t) => windowJitter(t.caller.timeline, from, to))
      if (process.env.BENCH_VOICE_DUMP) {
        fs.writeFileSync(`${process.env.BENCH_VOICE_DUMP}-cap${n}.json`, JSON.stringify(live.slice(0, 4).map((t) => t.caller.timeline.audio.filter((a) => a.at >= from && a.at <= to))))
        const inWindow = (at: number) => at >= from && at <= to
        fs.writeFileSync(
          `${process.env.BENCH_VOICE_DUMP}-cap${n}-providers.json`,
          JSON.stringify({
            tts: p.speech.requests.filter((r) => inWindow(r.receivedAt)).map((r) => ({ receivedAt: r.receivedAt, firstByteSentAt: r.firstByteSentAt, text: r.text })),
            llm: p.llm.requests.filter((r) => inWindow(r.receivedAt)).map((r) => ({ receivedAt: r.receivedAt, chunkSentAt: r.chunkSentAt })),
          }),
        )
      }
      const frames = jitter.length
      const benchP99 = Math.max(0, benchLag.percentile(99) / 1e6 - 10)
      const benchMax = Math.max(0, benchLag.max / 1e6 - 10)
      const vad = s.vad && s0.vad ? { windows: s.vad.windows - s0.vad.windows, runs: s.vad.runs - s0.vad.runs, gated: s.vad.gated - s0.vad.gated } : null
      const cpuPct = Math.round(((s.cpuMs - s0.cpuMs) / (to - from)) * 100)
      const step: CapacityStep = {
        sessions: n, jitter_p99_ms: round(p99(jitter)), wire_jitter_p99_ms: wireJ && wireJ.length ? round(p99(wireJ)) : null, loop_lag_p99_ms: round(s.lagP99Ms), rss_mb: round(s.rssMb), engine_cpu_pct: cpuPct,
        vad_gated_pct: vad ? Math.round((100 * vad.gated) / Math.max(1, vad.gated + vad.windows)) : null, ok: false,
      }
      // The verdict's jitter is the wire's when captured (wire.ts says why), else the callers'.
      const verdictJitter = step.wire_jitter_p99_ms ?? step.jitter_p99_ms
      step.ok = live.length === n && frames > 0 && verdictJitter < JITTER_LIMIT_MS && step.loop_lag_p99_ms < LAG_LIMIT_MS
      steps.push(step)
      const vadNote = vad ? `, vad ${vad.windows} windows in ${vad.runs} runs + ${vad.gated} gated` : ''
      log(`capacity ${n}: jitter p99 ${step.jitter_p99_ms} ms over ${frames} frames at the callers, ${step.wire_jitter_p99_ms ?? 'n/a'} ms on the wire (${wireJ?.length ?? 0} frames), engine lag p99 ${step.loop_lag_p99_ms} ms, rss ${step.rss_mb} MB, engine cpu ${cpuPct}% of its core, live ${live.length}/${n}, bench lag p99 ${round(benchP99)} / max ${round(benchMax)} ms${vadNote} → ${step.ok ? 'ok' : 'FAIL'}`)
      if (benchP99 >= LAG_LIMIT_MS / 2) log(`warning: the bench process itself lags (p99 ${round(benchP99)} ms): jitter at ${n} sessions is partly the callers', not the engine's`)
      if (!step.ok) break
    }
  } finally {
    benchLag.disable()
    for (const t of calls) t.stop()
    await Promise.all(calls.map((t) => t.caller.hangUp(3000).catch(() => 0)))
  }
  return steps
}

const round = (x: number) => Math.round(x * 100) / 100

// ── main ─────────────────────────────────────────────────────────────────────────────────────────

async function main(): Promise<void> {
  const started = performance.now()
  const cpus = os.cpus().length
  // The engine gets the last core to itself; this process (stand-ins and callers) the others.
  const engineCore = tasksetPath() && cpus > 1 ? cpus - 1 : null
  if (engineCore !== null) {
    try {
      execFileSync(tasksetPath()!, ['-a', '-cp', `0-${cpus - 2}`, String(process.pid)], { stdio: 'ignore' })
    } catch {
      log('could not pin the bench process; it shares cores with the engine')
    }
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ozan-voice-bench-'))
  const engine = await startEngineChild(engineCore, dataDir)
  log(`engine up (${engine.transport}) on core ${engineCore ?? 'any'} in ${Math.round(performance.now() - started)} ms`)
  const pacer = new FramePacer(ROOM_DBFS)
  const langs: Lang[] = ['en', 'tr']
  const providers: Providers[] = []
  let ok = false
  try {
    const scripts = await Promise.all(langs.map((l) => callerScript(l)))
    const sets = await Promise.all(langs.map((_, i) => startProviders({ stt: STT_FINAL, llm: LLM_FIRST_TOKEN, tts: TTS_FIRST_BYTE, msPerChar: REPLY_MS_PER_CHAR, seed: 11 + i * 100 })))
    providers.push(...sets)
    const orgs = await Promise.all(langs.map((l, i) => setUpOrg(engine.apiUrl, sets[i]!, l, l)))

    log(`latency + barge-in: ${PLAN.turnsPerLang} turns per language (${langs.join(', ')}), one call each, side by side`)
    const convs = await Promise.all(langs.map((_, i) => converse(orgs[i]!, sets[i]!, scripts[i]!, pacer)))
    for (const m of convs.flatMap((c) => c.missed)) log(`missed: ${m}`)
    const replies = convs.flatMap((c) => c.replies)
    const bargeIns = convs.flatMap((c) => c.bargeIns)
    const { latency, barge_in } = summarize(replies, bargeIns)
    log(`voice-to-voice p50 ${latency.voice_to_voice_ms.p50} ms, engine-added p50 ${latency.engine_added_ms.p50} / p95 ${latency.engine_added_ms.p95} ms (n ${latency.engine_added_ms.n}), barge-in stop p50 ${barge_in.stop_ms.p50} ms (n ${barge_in.count})`)

    // Capacity: short provider delays (agent audio must flow, the delays themselves are not measured).
    const cap = await startProviders({ stt: 100, llm: 100, tts: 50, msPerChar: 50, seed: 7 })
    providers.push(cap)
    const capOrg = await setUpOrg(engine.apiUrl, cap, 'en', 'capacity')
    const capReply = 'Thank you, I have noted that down. Let me check the booking system for you, it takes only a moment. Anything else I can help you with today?'
    const steps = await capacity(engine, capOrg, cap, scripts[0]!.turns, capReply, pacer)
    const mem = rssPerSessionMb(steps)

    const result: VoiceBenchResult = {
      scenario: 'voice-calls',
      quick,
      machine: { cpus, cpu_model: os.cpus()[0]?.model ?? 'unknown', node: process.version, platform: `${os.platform()} ${os.arch()}` },
      config: {
        end_of_turn_wait_ms: END_OF_TURN_WAIT_MS, preemptive: true, stt_final: STT_FINAL, llm_first_token: LLM_FIRST_TOKEN,
        llm_tokens_per_s: LLM_TOKENS_PER_S, tts_first_byte: TTS_FIRST_BYTE, languages: langs, room_dbfs: ROOM_DBFS,
      },
      latency,
      barge_in,
      capacity: { pinned_core: engineCore, steps, sessions_per_core: capacityFrom(steps) },
      memory: mem ?? { rss_per_session_mb: 0, baseline_rss_mb: steps[0]?.rss_mb ?? 0 },
    }
    process.stdout.write(JSON.stringify(result, null, 2) + '\n')
    const d = (x: { p50: number; p95: number }) => `${Math.round(x.p50)}/${Math.round(x.p95)}`
    process.stdout.write(
      `voice-calls${quick ? ' (quick)' : ''}: v2v p50/p95 ${d(latency.voice_to_voice_ms)} ms (providers ${d(latency.provider_sum_ms)}), ` +
        `engine-added ${d(latency.engine_added_ms)} ms, barge-in stop ${d(barge_in.stop_ms)} ms (engine ${barge_in.engine_stop_ms.n ? d(barge_in.engine_stop_ms) : 'n/a'}), ` +
        `${result.capacity.sessions_per_core} sessions/core, ${round(result.memory.rss_per_session_mb)} MB/session, ${latency.turns} turns in ${Math.round((performance.now() - started) / 1000)} s\n`,
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
    log(`failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`)
    process.exit(1)
  },
)
