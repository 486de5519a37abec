/**
 * Mouth-to-ear through the real browser library in real Chromium (issue #20, item 4):
 * `npx tsx bench/browser-call.ts [--quick]`.
 *
 * The engine runs in the voice bench's pinned child with the same stand-in providers and seeded
 * delays (bench/voice/setup.ts, the latency phase's spreads) and the same fixed 300 ms end-of-turn
 * wait, so its voice-to-voice is the voice bench's. The caller is headless Chromium: the page of
 * the library's browser tests (test/client/call-page.ts, its own origin, importing
 * /client/v1/ozan-web.js) with a fake microphone playing one WAV of espeak-ng lines in real time
 * (bench/browser/plan.ts), and a tap (bench/browser/page-tap.ts) in the call's AudioContext that
 * finds, at the sample, where the microphone's sound ends and starts and where the output's does.
 *
 * 1. Turns: mouth-to-ear = the microphone's speech end → the first agent audio at the library's
 *    output, both found by level on the AudioContext's sample clock, exact to the sample (the tap
 *    reads every sample: no analyser window, no polling). Beside it the engine's own
 *    `metrics.voice_to_voice_ms` for the same turn (its refined speech end, placed on the caller's
 *    audio clock → its first agent frame sent), and what the library adds: the difference. That
 *    holds, on the way in, the capture worklet's resampler (~0.9 ms) and its 20 ms frames: the
 *    graph renders the microphone a device buffer (10 ms here) at a time, and the engine's audio
 *    clock dates the speech end by its latest frame's arrival less the audio after the end, as if
 *    frames came in real time: they come as the graph renders and the main thread gets to them, so
 *    that dating moves the figure by about ±10 ms from turn to turn; the main thread's hop to the
 *    socket and the loopback hop; and the engine's edge against the page's (the end of the last
 *    loud 8 ms block, 0–8 ms after the last loud sample: the tap applies that rule too,
 *    `edge_gap_ms`). On the way out, the loopback hop and `playback_ms`: socket → playback worklet → the jitter buffer's
 *    60 ms prebuffer (met on arrival: the engine's 60 ms playout lead comes as three frames within
 *    ~2 ms) → the next render burst. It does not hold what a real device adds outside the
 *    AudioContext: the microphone's buffers before the graph and the output's latency after it
 *    (headless Chromium has no sound card; its fake devices stand in), nor a real network.
 * 2. Barge-ins: lines spoken over the agent's long replies, with the default barge-in settings:
 *    the engine pauses playout as its VAD hears the caller, then sends `clear` once two words
 *    confirm it. The caller's onset → the output silent is the whole barge-in as heard; the clear
 *    comes after the pause has already silenced the output (the page's buffer drains), so it is
 *    reported signed. The flush itself is measured where a clear lands on sounding audio:
 * 3. Flushes: an interrupting `say` through the calls API while the agent speaks: the page's
 *    `clear` event → the output silent.
 * 4. The library's counters at the end: playback underruns and caller frames dropped.
 *
 * Goals (bench/voice/goals.ts): library-added p95 ≤ 30 ms; flush p95 ≤ 50 ms. Without Chromium or
 * espeak-ng the bench fails (exit 1): it is never skipped silently. Prints a BrowserCallResult as
 * JSON, then a one-line summary (last line); progress goes to stderr.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { CHROMIUM_PATH, launchChromium, writeFakeMicWav } from '../test/helpers/chromium.js'
import { espeakAvailable } from '../test/helpers/speech.js'
import { openCallPage, servePage } from '../test/client/call-page.js'
import { buildPlan } from './browser/plan.js'
import { bargeInTimings, dist, flushTimings, matchLines, outputHoles, stretches, turnTimings, type Logged, type PageRecord } from './browser/measure.js'
import { INIT_SCRIPT, installTap, readTimings } from './browser/page-tap.js'
import type { BrowserCallResult } from './browser/result.js'
import { runStamp, writeResult } from './lib/report.js'
import { startPinnedEngine } from './voice/engine-child.js'
import { END_OF_TURN_WAIT_MS, setUpOrg, startProviders, type Providers } from './voice/setup.js'
import { callerScript } from './voice/utterances.js'

const quick = process.argv.includes('--quick')
const log = (msg: string) => process.stderr.write(`[browser-call] ${msg}\n`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The voice bench's latency-phase spreads (bench/voice-calls.ts), so the engine's figures compare. */
const STT_FINAL = { p50: 250, p95: 300 }
const STT_INTERIM_MS = 1000
const LLM_FIRST_TOKEN = { p50: 350, p95: 600 }
const TTS_FIRST_BYTE = { p50: 200, p95: 300 }
const TTS_MS_PER_CHAR = 12

const PLAN = quick ? { turns: 4, bargeIns: 3, flushes: 3 } : { turns: 14, bargeIns: 6, flushes: 8 }
const TIMING = {
  leadMs: 2500,
  // 300 ms wait + STT, LLM and TTS near their p95 (~1.3 s with speculation or not) + a ≥ 200 ms reply + margin.
  turnGapMs: 2400,
  // The long reply (~3.8 s) starts 0.6–1.5 s after a line ends: 2.3 s lands inside it either way.
  bargeAfterMs: 2300,
}

/**
 * The tap's thresholds. Microphone: −50 dBFS (the fake microphone's silence is digital zero), with
 * 300 ms of quiet to end a stretch (bridging espeak-ng's stops and the 150 ms inner pauses). Output:
 * −60 dBFS, 2 ms of quiet (the stand-in's tone at −12 dBFS never stays under it that long; a
 * flushed buffer plays exact zeros). And the engine's own rule for the speech end on the same
 * microphone (the last 8 ms block of −53 dBFS mean power, engine/vad/refine.ts over digital
 * silence), to tell its share of the library-added figure (`edge_gap_ms`).
 */
const TAP = { mic: { threshold: 0.00316, holdMs: 300, blockDbfs: -53 }, out: { threshold: 0.001, holdMs: 2 } }

const SHORT_REPLY = 'Certainly.'
const FLUSH_LINE = 'This line plays for a while so that it can be cut short by another one, as a barge-in would cut it.'

async function main(): Promise<void> {
  const started = performance.now()
  // Fail loudly, never skip: a bench run without a browser measured nothing.
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`chromium is not installed at ${CHROMIUM_PATH} (scripts/system-packages.txt; OZAN_CHROMIUM overrides)`)
  if (!(await espeakAvailable())) throw new Error('espeak-ng is not installed (scripts/system-packages.txt)')
  // Debian's wrapper script prints a shell warning on stderr; only the version line matters.
  const chromiumVersion = execFileSync(CHROMIUM_PATH, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()

  const script = await callerScript('en')
  const opener = script.turns.find((t) => t.text.startsWith('What is the address'))!
  const plan = buildPlan(
    { ...PLAN, ...TIMING, tailMs: 8000 + PLAN.flushes * 4000 },
    {
      turns: script.turns.filter((t) => t !== opener),
      opener,
      interruption: script.interruptions[0]!,
      closer: script.interruptions[1]!,
      shortReply: SHORT_REPLY,
      longReply: script.replies.slice(0, 3).join(' '),
    },
  )
  const mic = writeFakeMicWav(plan.pcm, 16_000, 'caller.wav')
  log(
    `caller WAV: ${plan.lines.length} lines over ${(plan.lastLineEndMs / 1000).toFixed(1)} s (${PLAN.turns} turns, ${PLAN.bargeIns} barge-ins), then ${PLAN.flushes} flushes`,
  )

  const { engine, dataDir, cpus } = await startPinnedEngine('ozan-browser-bench-', log)
  let providers: Providers | undefined
  let ok = false
  const closers: Array<() => Promise<unknown>> = []
  try {
    providers = await startProviders({
      stt: STT_FINAL,
      sttInterimMs: STT_INTERIM_MS,
      llm: LLM_FIRST_TOKEN,
      tts: TTS_FIRST_BYTE,
      msPerChar: TTS_MS_PER_CHAR,
      seed: 21,
    })
    const p = providers
    // Replies by the words (speculative requests on partial words get the short one and are dropped).
    p.llm.fallback((userText) => ({ text: plan.replies.get(userText) ?? SHORT_REPLY }))
    for (const line of plan.lines) p.dg.script({ text: line.text, speechMs: line.speechMs })
    const org = await setUpOrg(engine.apiUrl, p, 'en', 'browser')

    const site = await servePage(`${engine.apiUrl}/client/v1/ozan-web.js`)
    closers.push(() => site.close())
    const browser = await launchChromium({ fakeMicWav: mic })
    closers.push(() => browser.close())
    await browser.context.addInitScript(INIT_SCRIPT)
    const page = await openCallPage(browser, site.url)

    const wsUrl = await org.mint()
    const token = new URL(wsUrl).searchParams.get('token') ?? ''
    await page.start({ token, wsUrl })
    await page.event('started', {}, 15_000)
    const rateHz = await installTap(page.page, TAP)
    log(`call up in ${Math.round(performance.now() - started)} ms; AudioContext at ${rateHz} Hz; ${chromiumVersion}`)

    // The WAV drives turns and barge-ins; wait until every line was heard and the closer answered.
    const deadline = performance.now() + plan.lastLineEndMs + 20_000
    for (;;) {
      const t = await readTimings(page.page)
      const heard = stretches(t.edges, 'mic').filter((s) => s.off !== null).length
      const lastMicOff = stretches(t.edges, 'mic').at(-1)?.off ?? null
      const answered = lastMicOff !== null && stretches(t.edges, 'out').some((s) => s.on > lastMicOff && s.off !== null)
      if (heard >= plan.lines.length && answered) break
      if (performance.now() > deadline)
        throw new Error(`only ${heard} of ${plan.lines.length} lines heard at the microphone (or the last not answered) in time`)
      await sleep(500)
    }
    const beforeFlushes = await page.call((c) => c.stats)
    log(`turns and barge-ins done (${beforeFlushes['playbackUnderruns']} underruns so far); flushes through the API`)

    const callId = await page.call((c) => c.callId)
    const control = async (body: Record<string, unknown>) => {
      const res = await fetch(`${engine.apiUrl}/api/v1/calls/${callId}/control`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${org.token}` },
        body: JSON.stringify(body),
      })
      if (res.status !== 202) throw new Error(`control ${body['action']}: ${res.status} ${(await res.text()).slice(0, 200)}`)
    }
    const flushClears: number[] = []
    // Each line starts well over 250 ms after the one before ended: the jitter buffer counts audio
    // coming back sooner after running dry as an underrun (a closer reply then a flush line did).
    await sleep(600)
    for (let k = 0; k < PLAN.flushes; k++) {
      const since = await page.now()
      await control({ action: 'say', text: FLUSH_LINE })
      await page.event('status', 'speaking', 10_000, since)
      // Cut it somewhere in its first second, a different place each time.
      await sleep(400 + ((k * 137) % 500))
      await control({ action: 'say', text: 'Cut.', interrupt: true })
      const clear = await page.event('clear', {}, 5000, since)
      flushClears.push(clear.atMs)
      // The interrupting line plays in full before the next round (600 ms after it, as above).
      const cut = await page.event('transcript', { role: 'agent', text: 'Cut.', final: true }, 10_000, clear.atMs)
      await page.event('status', 'listening', 5000, cut.atMs)
      await sleep(600)
    }

    const stats = await page.call((c) => c.stats)
    const timings = await readTimings(page.page)
    const pageLog = (await page.log()).filter((e) => e.name !== 'volume') as Logged[]
    await page.call((c) => c.stop())
    if (browser.pageErrors.length) log(`page errors: ${browser.pageErrors.join(' | ')}`)

    const record: PageRecord = { rateHz, edges: timings.edges, agentAudioAt: timings.agentAudioAt, log: pageLog }
    const matched = matchLines(plan.lines, stretches(record.edges, 'mic'), rateHz)
    const missed: string[] = []
    const turns = turnTimings(plan.lines, matched, record, missed)
    const bargeIns = bargeInTimings(plan.lines, matched, record)
    const flushes = flushTimings(flushClears, record)
    for (const m of missed) log(`missed: ${m}`)
    const holes = outputHoles(record)
    for (const h of holes)
      log(`output hole at ${h.at_ms.toFixed(0)} ms: ${h.hole_ms.toFixed(1)} ms quiet; the socket's longest wait around it ${h.socket_gap_ms.toFixed(1)} ms`)
    if (process.env.BENCH_BROWSER_DUMP) fs.writeFileSync(process.env.BENCH_BROWSER_DUMP, JSON.stringify({ plan: plan.lines, record, flushClears }, null, 1))

    const rest = turns.map((t) =>
      t.library_added_ms === null || t.playback_ms === null ? null : Math.round((t.library_added_ms - t.playback_ms) * 1000) / 1000,
    )
    const result: BrowserCallResult = {
      scenario: 'browser-call',
      quick,
      machine: {
        cpus,
        cpu_model: os.cpus()[0]?.model.trim() ?? 'unknown',
        node: process.version,
        platform: `${os.platform()} ${os.arch()}`,
        chromium: chromiumVersion,
      },
      config: {
        end_of_turn_wait_ms: END_OF_TURN_WAIT_MS,
        preemptive: true,
        stt_final: STT_FINAL,
        stt_interim_ms: STT_INTERIM_MS,
        llm_first_token: LLM_FIRST_TOKEN,
        tts_first_byte: TTS_FIRST_BYTE,
        tts_ms_per_char: TTS_MS_PER_CHAR,
        turns: PLAN.turns,
        barge_ins: PLAN.bargeIns,
        flushes: PLAN.flushes,
        sample_rate_hz: rateHz,
        tap: {
          mic_threshold: TAP.mic.threshold,
          mic_hold_ms: TAP.mic.holdMs,
          mic_block_dbfs: TAP.mic.blockDbfs,
          out_threshold: TAP.out.threshold,
          out_hold_ms: TAP.out.holdMs,
        },
      },
      mouth_to_ear: {
        turns: turns.length,
        missed,
        mouth_to_ear_ms: dist(turns.map((t) => t.mouth_to_ear_ms)),
        engine_v2v_ms: dist(turns.map((t) => t.engine_v2v_ms)),
        library_added_ms: dist(turns.map((t) => t.library_added_ms)),
        playback_ms: dist(turns.map((t) => t.playback_ms)),
        rest_ms: dist(rest),
        edge_gap_ms: dist(turns.map((t) => t.edge_gap_ms)),
        samples: turns,
      },
      barge_in: {
        n: bargeIns.length,
        honoured: bargeIns.filter((b) => b.clear_to_silent_ms !== null).length,
        over_agent: bargeIns.filter((b) => b.over_agent).length,
        onset_to_silent_ms: dist(bargeIns.map((b) => b.onset_to_silent_ms)),
        onset_to_last_audio_ms: dist(bargeIns.map((b) => b.onset_to_last_audio_ms)),
        drain_ms: dist(bargeIns.map((b) => b.drain_ms)),
        clear_to_silent_ms: dist(bargeIns.map((b) => b.clear_to_silent_ms)),
        engine_stop_ms: dist(bargeIns.map((b) => b.engine_stop_ms)),
        samples: bargeIns,
      },
      flush: {
        n: flushes.filter((f) => f.playing_at_clear).length,
        clear_to_silent_ms: dist(flushes.map((f) => f.clear_to_silent_ms)),
        samples: flushes,
      },
      stats: {
        playback_underruns: stats['playbackUnderruns'] ?? 0,
        playback_underruns_in_flushes: (stats['playbackUnderruns'] ?? 0) - (beforeFlushes['playbackUnderruns'] ?? 0),
        output_holes: holes,
        caller_frames_dropped: stats['callerFramesDropped'] ?? 0,
        frames_sent: stats['framesSent'] ?? 0,
        agent_bytes_received: stats['agentBytesReceived'] ?? 0,
        playback_overflow_ms: stats['playbackOverflowMs'] ?? 0,
      },
      duration_s: Math.round((performance.now() - started) / 1000),
    }
    writeResult('browser-call', runStamp(), result)
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
    const d = (x: { n: number; p50: number; p95: number; max: number }) => (x.n ? `${x.p50.toFixed(1)}/${x.p95.toFixed(1)}/${x.max.toFixed(1)}` : 'n/a')
    const m = result.mouth_to_ear
    process.stdout.write(
      `browser-call${quick ? ' (quick)' : ''}: mouth-to-ear p50/p95/max ${d(m.mouth_to_ear_ms)} ms, engine v2v ${d(m.engine_v2v_ms)} ms, ` +
        `library adds ${d(m.library_added_ms)} ms (playback ${d(m.playback_ms)}) over ${m.library_added_ms.n} turns; ` +
        `barge-in onset → silent ${d(result.barge_in.onset_to_silent_ms)} ms (${result.barge_in.honoured}/${result.barge_in.n} cleared), ` +
        `flush clear → silent ${d(result.flush.clear_to_silent_ms)} ms (n ${result.flush.n}); ` +
        `underruns ${result.stats.playback_underruns}, caller frames dropped ${result.stats.caller_frames_dropped}, ${result.duration_s} s\n`,
    )
    ok = true
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined)
    await engine.stop()
    await providers?.close()
    fs.rmSync(path.dirname(mic), { recursive: true, force: true })
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
