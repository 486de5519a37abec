/**
 * List bursts beside live calls (issue 18, item 3): `npx tsx bench/list-burst.ts [--quick]
 * [--calls=20] [--rows=10000] [--clients=50] [--burst-s=10] [--warmup-s=6] [--no-wire]`.
 *
 * The engine process (API and call engine together, as `npm start` runs them; pinned to the last
 * core) holds `--calls` talking web calls with the stand-in providers, in an organization whose
 * environment holds `--rows` agents and `--rows` knowledge-base documents. Three windows of
 * `--burst-s` each, measured alike: quiet; `--clients` keep-alive clients (half on
 * GET /workflows, half on GET /knowledge-base/documents, each in its own load process) asking for
 * the largest page (`limit` at its maximum, the nearest thing to the unpaged lists the issue
 * measured); the same clients with the default page. Each window reports the callers' audio
 * jitter p99, the wire's where tcpdump can capture (bench/README.md says why the wire decides on
 * 2 cores), the engine's event-loop lag and CPU, and the list requests' latency and bytes.
 * Prints the JSON, then one summary line; progress goes to stderr.
 */
import { fork } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { DEFAULT_DOCUMENT_PAGE_LIMITS } from '../api/knowledge-base/schema.js'
import { DEFAULT_WORKFLOW_PAGE_LIMITS } from '../api/workflows/schema.js'
import { loadConfig } from '../core/index.js'
import { createRepos, openDatabase } from '../db/index.js'
import { runLoad, type LoadFigures } from './lib/load.js'
import { runStamp, writeResult } from './lib/report.js'
import { TalkingCall } from './voice/capacity.js'
import { Caller, FramePacer, windowJitter } from './voice/caller.js'
import { startPinnedEngine, type EngineChild } from './voice/engine-child.js'
import { setUpOrg, startProviders } from './voice/setup.js'
import { callerScript } from './voice/utterances.js'
import { startWireCapture, tcpdumpPath, wireJitter } from './voice/wire.js'

const SCENARIO = 'list-burst'
const log = (msg: string) => process.stderr.write(`[${SCENARIO}] ${msg}\n`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const round = (x: number) => Math.round(x * 100) / 100
const p99 = (xs: number[]): number => {
  if (!xs.length) return 0
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil(0.99 * s.length) - 1)]!
}

interface LoadJob {
  url: string
  connections: number
  durationS: number
  token: string
}

// A load process: one autocannon run, its figures back over IPC. Kept out of the bench process,
// whose event loop reads the callers' audio.
if (process.argv[2] === '--load-child') {
  const job = JSON.parse(process.argv[3]!) as LoadJob
  const figures = await runLoad(job.url, { connections: job.connections, duration: job.durationS, headers: { authorization: `Bearer ${job.token}` } })
  process.send!(figures, () => process.exit(0))
} else {
  await main().then(
    () => process.exit(0),
    (err: unknown) => {
      log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
      process.exit(1)
    },
  )
}

function arg(name: string, quickValue: number, fullValue: number): number {
  const raw = process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
  const value = raw === undefined ? (process.argv.includes('--quick') ? quickValue : fullValue) : Number(raw)
  if (!(value > 0)) throw new Error(`--${name} must be a positive number, got ${raw}`)
  return value
}

function loadProcess(job: LoadJob): Promise<LoadFigures> {
  const child = fork(fileURLToPath(import.meta.url), ['--load-child', JSON.stringify(job)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  })
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m as LoadFigures))
    child.once('exit', (code) => reject(new Error(`load process exited with ${code} before reporting`)))
  })
}

/** Stores `rows` agents and `rows` documents in the environment, straight into the engine's database. */
async function seed(
  dataDir: string,
  scope: { organizationId: string; environmentId: string; userId: string },
  rows: number,
  definition: string,
  config: string,
): Promise<void> {
  const db = openDatabase(loadConfig({ OZAN_DATA_DIR: dataDir }).databaseFile)
  const repos = createRepos(db)
  const now = Date.now()
  // About 2 KB of text per document: the list leaves it out, but it shapes the table's pages.
  const text = 'The clinic opens at nine and closes at five on weekdays; appointments move with one day of notice. '.repeat(20)
  for (let from = 0; from < rows; from += 1000) {
    db.transaction(() => {
      for (let i = from; i < Math.min(rows, from + 1000); i++) {
        const id = randomUUID()
        repos.workflows.insert({
          id,
          organization_id: scope.organizationId,
          environment_id: scope.environmentId,
          lineage_id: id,
          source_workflow_id: null,
          name: `Booking agent ${i}`,
          description: 'Takes restaurant bookings and answers opening-hours questions.',
          template_id: null,
          draft_definition: definition,
          draft_config: config,
          created_by: scope.userId,
          created_at: now - i * 1000,
        })
        repos.knowledge.insert(
          {
            id: randomUUID(),
            organization_id: scope.organizationId,
            environment_id: scope.environmentId,
            title: `Opening hours ${i}`,
            source: `hours-${i}.md`,
            content_type: 'text/markdown',
            size_bytes: text.length,
            text,
            metadata: JSON.stringify({ branch: `branch ${i % 40}` }),
            created_by: scope.userId,
            created_at: now - i * 1000,
          },
          [],
        )
      }
    })()
    await sleep(0)
  }
  db.close()
}

interface WindowFigures {
  callers_jitter_p99_ms: number
  wire_jitter_p99_ms: number | null
  /** Agent audio frames the callers received in the window. */
  frames: number
  /**
   * frames ÷ the quiet window's: the jitter figure splits stretches at gaps (caller.ts), so an
   * engine stalled for seconds sends less audio rather than later audio; this is where that shows.
   */
  audio_vs_quiet: number | null
  engine_lag_p99_ms: number
  engine_lag_max_ms: number
  engine_cpu_pct: number
  live_calls: number
  lists: { limit: number; workflows: LoadFigures; documents: LoadFigures } | null
}

async function measure(
  engine: EngineChild,
  calls: TalkingCall[],
  windowMs: number,
  wire: boolean,
  load: { limit: number; clients: number; token: string } | null,
): Promise<WindowFigures> {
  const cut = performance.now() - 1000
  for (const t of calls) t.caller.forgetAudioBefore(cut)
  const capture = wire
    ? await startWireCapture(engine.enginePort, path.join(os.tmpdir(), `ozan-list-burst-${process.pid}.pcap`)).catch(
        (e: Error) => (log(`no wire capture: ${e.message}`), null),
      )
    : null
  const s0 = await engine.sample()
  const from = performance.now()
  const durationS = windowMs / 1000
  const jobs = load
    ? (['/api/v1/workflows', '/api/v1/knowledge-base/documents'] as const).map((p) =>
        loadProcess({ url: `${engine.apiUrl}${p}?limit=${load.limit}`, connections: Math.max(1, load.clients / 2), durationS, token: load.token }),
      )
    : null
  const lists = jobs ? await Promise.all(jobs) : (await sleep(windowMs), null)
  const to = performance.now()
  const s = await engine.sample()
  const frames = capture ? await capture.stop() : null
  const wireJ = frames ? wireJitter(frames) : null
  const live = calls.filter((t) => t.caller.open)
  const jitter = live.flatMap((t) => windowJitter(t.caller.timeline, from, to))
  return {
    callers_jitter_p99_ms: round(p99(jitter)),
    wire_jitter_p99_ms: wireJ && wireJ.length ? round(p99(wireJ)) : null,
    frames: jitter.length,
    audio_vs_quiet: null,
    engine_lag_p99_ms: round(s.lagP99Ms),
    engine_lag_max_ms: round(s.lagMaxMs),
    engine_cpu_pct: Math.round(((s.cpuMs - s0.cpuMs) / (to - from)) * 100),
    live_calls: live.length,
    lists: lists && load ? { limit: load.limit, workflows: lists[0]!, documents: lists[1]! } : null,
  }
}

function describe(name: string, w: WindowFigures): string {
  const l = w.lists
  const lists = l
    ? `, lists limit=${l.limit}: ${l.workflows.rps + l.documents.rps} req/s, p99 ${l.workflows.p99_ms}/${l.documents.p99_ms} ms, ${l.workflows.bytes_per_response}/${l.documents.bytes_per_response} B (workflows/documents)`
    : ''
  return `${name}: ${w.frames} audio frames, jitter p99 ${w.callers_jitter_p99_ms} ms at the callers, ${w.wire_jitter_p99_ms ?? 'n/a'} ms on the wire; engine lag p99 ${w.engine_lag_p99_ms} (max ${w.engine_lag_max_ms}) ms, cpu ${w.engine_cpu_pct}%, live ${w.live_calls}${lists}`
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick')
  const callsN = arg('calls', 6, 20)
  const rows = arg('rows', 2000, 10_000)
  const clients = arg('clients', 10, 50)
  const windowMs = arg('burst-s', 4, 10) * 1000
  const warmupMs = arg('warmup-s', 3, 6) * 1000
  const wire = !process.argv.includes('--no-wire') && tcpdumpPath() !== null && process.getuid?.() === 0
  const started = performance.now()
  const { engine, engineCore, dataDir, cpus } = await startPinnedEngine('ozan-list-burst-', log)
  const providers = await startProviders({ stt: 100, llm: 100, tts: 50, msPerChar: 50, seed: 7 })
  const calls: TalkingCall[] = []
  let ok = false
  try {
    const org = await setUpOrg(engine.apiUrl, providers, 'en', SCENARIO)
    const get = async (p: string) =>
      (await (await fetch(engine.apiUrl + p, { headers: { authorization: `Bearer ${org.token}` } })).json()) as Record<string, unknown>
    const me = await get('/api/v1/auth/me')
    const agent = await get(`/api/v1/workflows/${org.agentId}`)
    const scope = { organizationId: (me.organization as { id: string }).id, environmentId: (agent.environment as { id: string }).id, userId: me.id as string }
    const t0 = performance.now()
    await seed(dataDir, scope, rows, JSON.stringify(agent.definition), JSON.stringify(agent.config))
    log(`seeded ${rows} agents and ${rows} documents in ${Math.round(performance.now() - t0)} ms`)

    const lines = (await callerScript('en')).turns
    const pacer = new FramePacer(-80)
    providers.llm.fallback({ text: 'Thank you, I have noted that down. Let me check the booking system for you, it takes only a moment. Anything else?' })
    while (calls.length < callsN) {
      const batch = Math.min(5, callsN - calls.length)
      const added = await Promise.all(
        Array.from({ length: batch }, async () => new TalkingCall(await Caller.connect(await org.mint(), pacer), providers, lines, calls.length * 7)),
      )
      for (const t of added) calls.push(t), t.start()
      await sleep(200)
    }
    log(`${callsN} calls up; settling ${warmupMs} ms`)
    await sleep(warmupMs)

    const maxLimit = Math.min(DEFAULT_WORKFLOW_PAGE_LIMITS.maxLimit, DEFAULT_DOCUMENT_PAGE_LIMITS.maxLimit)
    const defaultLimit = DEFAULT_WORKFLOW_PAGE_LIMITS.defaultLimit
    const quiet = await measure(engine, calls, windowMs, wire, null)
    log(describe('quiet', quiet))
    const atMax = await measure(engine, calls, windowMs, wire, { limit: maxLimit, clients, token: org.token })
    log(describe('burst, largest page', atMax))
    await sleep(2000)
    const atDefault = await measure(engine, calls, windowMs, wire, { limit: defaultLimit, clients, token: org.token })
    log(describe('burst, default page', atDefault))
    for (const w of [atMax, atDefault]) w.audio_vs_quiet = quiet.frames ? round(w.frames / quiet.frames) : null

    const result = {
      scenario: SCENARIO,
      quick,
      machine: { cpus, cpu_model: os.cpus()[0]?.model ?? 'unknown', node: process.version, platform: `${os.platform()} ${os.arch()}` },
      config: {
        calls: callsN,
        rows,
        clients,
        window_ms: windowMs,
        warmup_ms: warmupMs,
        pinned_core: engineCore,
        wire_capture: wire,
        max_limit: maxLimit,
        default_limit: defaultLimit,
      },
      windows: { quiet, burst_max_page: atMax, burst_default_page: atDefault },
    }
    process.stdout.write(JSON.stringify(result, null, 2) + '\n')
    writeResult(SCENARIO, runStamp(), result)
    const j = (w: WindowFigures) =>
      `${w.wire_jitter_p99_ms ?? w.callers_jitter_p99_ms}/${w.engine_lag_p99_ms}${w.audio_vs_quiet === null ? '' : ` (audio ×${w.audio_vs_quiet})`}`
    const lat = (w: WindowFigures) =>
      `${Math.max(w.lists!.workflows.p99_ms, w.lists!.documents.p99_ms)} ms, ${Math.max(w.lists!.workflows.bytes_per_response, w.lists!.documents.bytes_per_response)} B`
    process.stdout.write(
      `${SCENARIO}${quick ? ' (quick)' : ''}: ${callsN} calls, ${rows} rows each list, ${clients} clients; jitter/lag p99 (${wire ? 'wire' : 'callers'}) ms quiet ${j(quiet)}, ` +
        `limit=${maxLimit} ${j(atMax)} (list p99 ${lat(atMax)}), limit=${defaultLimit} ${j(atDefault)} (list p99 ${lat(atDefault)}) in ${Math.round((performance.now() - started) / 1000)} s\n`,
    )
    ok = true
  } finally {
    for (const t of calls) t.stop()
    await Promise.all(calls.map((t) => t.caller.hangUp(3000).catch(() => 0)))
    await engine.stop()
    await providers.close()
    if (ok) fs.rmSync(dataDir, { recursive: true, force: true })
    else log(`engine data and log kept in ${dataDir}; engine stderr:\n${engine.stderr().slice(-3000)}`)
  }
}
