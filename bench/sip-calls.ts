/**
 * Phone calls against the real engine (issue 21 item 9): `npx tsx bench/sip-calls.ts [--quick]
 * [--steps=25,50,100] [--all-steps] [--rate=20]`.
 *
 * The engine runs in its own process pinned to one core with its SIP listener open (BENCH_SIP=1),
 * an organization with a trunk admitting loopback and a number answered by a published agent
 * (stand-in Deepgram STT, OpenAI chat and speech, as the voice bench's capacity steps). SIPp, on
 * the other cores with the stand-ins, places N calls per step; every caller says a line, listens
 * to the reply, and goes on, in the web capacity callers' cadence with their reply
 * (bench/sip/caller-audio.ts). Measured on the wire (bench/sip/wire.ts):
 * call setup (INVITE → 200 OK) and RTP send jitter; from the engine: loop lag, CPU and RSS. Calls
 * per core is judged as web calls' sessions per core (bench/voice/verdict.ts).
 * Prints a SipBenchResult as JSON, then a one-line summary; progress goes to stderr.
 */
import fs from 'node:fs'
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { CALLER_LINES, callerLoop } from './sip/caller-audio.js'
import { sipCapacity } from './sip/capacity.js'
import type { SipBenchResult } from './sip/result.js'
import { startPinnedEngine } from './voice/engine-child.js'
import { capacityFrom, distribution, rssPerSessionMb } from './voice/metrics.js'
import { CAPACITY_MS_PER_CHAR, CAPACITY_REPLY, END_OF_TURN_WAIT_MS, setUpOrg, startProviders } from './voice/setup.js'
import { describeVerdict } from './voice/verdict.js'
import { sippAvailable } from '../test/helpers/sipp.js'

const quick = process.argv.includes('--quick')
const log = (msg: string) => process.stderr.write(`[sip-calls] ${msg}\n`)
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)

/** The web calls' limits (bench/voice-calls.ts): output jitter p99 and engine loop lag p99. */
const JITTER_LIMIT_MS = 10
const LAG_LIMIT_MS = 20
/** The engine's RTP ports, and SIPp's (above them): the capture tells them apart by range. */
const RTP_MIN = 30_000
const RTP_MAX = 31_999
const CALLER_MEDIA_PORT = 40_000

const steps = arg('steps')
  ?.split(',')
  .map(Number)
  .filter((n) => n > 0)
const PLAN = {
  steps: steps ?? (quick ? [4, 8] : [25, 50, 100, 150, 200, 250]),
  rate: Number(arg('rate') ?? 20),
  greetMs: 2500,
  warmupMs: quick ? 2000 : 5000,
  windowMs: quick ? 4000 : 10_000,
  allSteps: process.argv.includes('--all-steps'),
}
if (!(PLAN.rate > 0 && PLAN.rate <= 50)) throw new Error('--rate must be 1 to 50 calls a second (the listener admits 100 messages a second per source)')

async function main(): Promise<void> {
  const started = performance.now()
  if (!(await sippAvailable())) throw new Error('SIPp is not installed (scripts/system-packages.txt: sip-tester)')
  const { engine, engineCore, dataDir, cpus } = await startPinnedEngine('ozan-sip-bench-', log, {
    BENCH_SIP: '1',
    OZAN_SIP_HOST: '127.0.0.1',
    OZAN_SIP_PORT: '0',
    OZAN_SIP_TRANSPORTS: 'udp',
    OZAN_SIP_PUBLIC_ADDRESS: '127.0.0.1',
    OZAN_RTP_PORT_MIN: String(RTP_MIN),
    OZAN_RTP_PORT_MAX: String(RTP_MAX),
  })
  // The calls share the STT stand-in and SIPp cannot script each line: every utterance of a call
  // is heard as the next of the caller's lines, in the loop's order.
  const heard = new WeakMap<object, number>()
  const sttFallback = (session: object) => {
    const k = heard.get(session) ?? 0
    heard.set(session, k + 1)
    return CALLER_LINES[k % CALLER_LINES.length]!
  }
  const providers = await startProviders({ stt: 100, llm: 100, tts: 50, msPerChar: CAPACITY_MS_PER_CHAR, seed: 11, sttFallback })
  let ok = false
  try {
    if (engine.sipPort === null) throw new Error('the engine did not open its SIP listener')
    const org = await setUpOrg(engine.apiUrl, providers, 'en', 'sip')
    // Every chat request, speculative ones included, gets this reply.
    providers.llm.fallback({ text: CAPACITY_REPLY })
    const number = await addLine(engine.apiUrl, org.token, org.agentId)
    const loop = await callerLoop()
    log(`engine SIP on 127.0.0.1:${engine.sipPort}; caller loop ${loop.durationMs} ms; steps ${PLAN.steps.join(', ')} at ${PLAN.rate} calls/s`)
    const { steps: capSteps, setupMs } = await sipCapacity(engine, number, loop.mulaw, {
      ...PLAN,
      jitterLimitMs: JITTER_LIMIT_MS,
      lagLimitMs: LAG_LIMIT_MS,
      rtpMin: RTP_MIN,
      rtpMax: RTP_MAX,
      callerMediaPort: CALLER_MEDIA_PORT,
      log,
    })
    const callsPerCore = capacityFrom(capSteps)
    const passing = capSteps.filter((s) => s.ok && s.sessions <= callsPerCore)
    const atCapacity = passing.find((s) => s.sessions === callsPerCore)
    const setupAll = distribution(passing.flatMap((s) => setupMs.get(s.sessions) ?? []))
    const result: SipBenchResult = {
      scenario: 'sip-calls',
      quick,
      machine: { cpus, cpu_model: os.cpus()[0]?.model ?? 'unknown', node: process.version, platform: `${os.platform()} ${os.arch()}` },
      config: {
        codec: 'PCMU',
        ptime_ms: 20,
        calls_per_second: PLAN.rate,
        end_of_turn_wait_ms: END_OF_TURN_WAIT_MS,
        warmup_ms: PLAN.warmupMs,
        window_ms: PLAN.windowMs,
        rtp_io: process.env.OZAN_RTP_IO === 'inline' ? 'inline' : 'worker',
      },
      capacity: { pinned_core: engineCore, steps: capSteps, calls_per_core: callsPerCore },
      setup_ms: setupAll,
      rtp_send_jitter_p99_ms: atCapacity?.jitter_p99_ms ?? null,
      memory: (() => {
        const m = rssPerSessionMb(capSteps)
        return m && { rss_per_call_mb: m.rss_per_session_mb, baseline_rss_mb: m.baseline_rss_mb }
      })(),
    }
    process.stdout.write(JSON.stringify(result, null, 2) + '\n')
    const stopped = capSteps.find((s) => !s.ok)
    process.stdout.write(
      `sip-calls${quick ? ' (quick)' : ''}: ${callsPerCore} calls/core${stopped ? ` (${stopped.sessions} calls: ${describeVerdict(stopped)})` : ''}, ` +
        `setup p50/p95 ${Math.round(result.setup_ms.p50)}/${Math.round(result.setup_ms.p95)} ms, RTP send jitter p99 ${result.rtp_send_jitter_p99_ms ?? 'n/a'} ms, ` +
        `${result.memory ? `${result.memory.rss_per_call_mb} MB/call` : 'MB/call not fitted'}, in ${Math.round((performance.now() - started) / 1000)} s\n`,
    )
    ok = true
  } finally {
    await engine.stop()
    await providers.close()
    // A failed run, or one asked to trace the engine, keeps its log (engine.log) for a look.
    if (ok && !process.env.BENCH_ENGINE_FLAGS && !process.env.BENCH_ENGINE_STALLS) fs.rmSync(dataDir, { recursive: true, force: true })
    else log(`engine data and log kept in ${dataDir}${ok ? '' : `; engine stderr:\n${engine.stderr().slice(-3000)}`}`)
  }
}

/** A trunk admitting loopback and a number answered by the agent; returns the number. */
async function addLine(apiUrl: string, token: string, agentId: string): Promise<string> {
  const post = async (p: string, body: unknown) => {
    const res = await fetch(apiUrl + p, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    })
    if (!res.ok) throw new Error(`POST ${p}: ${res.status} ${(await res.text()).slice(0, 300)}`)
    return (await res.json()) as Record<string, unknown>
  }
  const trunk = await post('/api/v1/sip-trunks', { name: 'Bench carrier', host: '127.0.0.1', allowed_sources: ['127.0.0.1'] })
  const number = '+15550100100'
  await post('/api/v1/phone-numbers', { number, trunk_id: trunk.id, workflow_uuid: agentId })
  return number
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
    process.exit(1)
  },
)
