/**
 * Scenario webhooks: how fast the outbox drains to a local receiver, and how long an event waits
 * before its delivery reaches the receiver. Goal: ≥ 1,000 deliveries/s, p99 event → arrival < 50 ms.
 *
 * The app is built as `npm start` builds it (SQLite file in WAL mode under a temp data dir, the
 * real bus, outbox, dispatcher, SSRF guard, signing, one fresh connection per attempt). The
 * receiver is a separate node process answering 204 at once and noting each arrival time.
 * Events are published on the bus exactly as services publish them; each reaches `--endpoints`
 * endpoints (default 4, one process-wide in-flight cap of 64 and 4 per endpoint, the defaults).
 *   1. throughput: `--burst` events published at once; deliveries/s until the last one arrives.
 *   2. latency: events at `--rate` deliveries/s for `--seconds`; event → arrival p50/p95/p99.
 *
 *   npx tsx bench/webhooks.ts [--endpoints 4] [--burst 2500] [--rate 1000] [--seconds 10] [--quick]
 *
 * stdout: the JSON result, then one summary line. The JSON also goes to bench/results/.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { createLogger, loadConfig, loadSecrets, systemClock } from '../core/index.js'
import { createApp } from '../api/index.js'
import type { Principal } from '../api/security/principal.js'
import { migrate, openDatabase } from '../db/index.js'
import { gitState, machineInfo, note, runStamp, writeResult } from './lib/report.js'

const NAME = 'webhooks'
const GOALS = { deliveries_per_s: 1000, p99_ms: 50 }
const { values: args } = parseArgs({
  options: {
    endpoints: { type: 'string' },
    burst: { type: 'string' },
    rate: { type: 'string' },
    seconds: { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
})
const endpoints = Number(args.endpoints ?? 4)
const burst = Number(args.burst ?? (args.quick ? 1000 : 2500))
const rate = Number(args.rate ?? 1000)
const seconds = Number(args.seconds ?? (args.quick ? 3 : 10))

// The receiver: answers 204 and reports "<delivery id> <arrival ms> <publish ms>" per arrival on
// stdout; the publish time travels in the event's data (data.sent), both as ms since the epoch.
const RECEIVER = `
const http = require('node:http')
const now = () => performance.timeOrigin + performance.now()
const server = http.createServer((req, res) => {
  const parts = []
  req.on('data', (c) => parts.push(c))
  req.on('end', () => {
    const arrived = now()
    const sent = JSON.parse(Buffer.concat(parts).toString()).data.sent
    process.stdout.write(req.headers['x-ozan-delivery'] + ' ' + arrived + ' ' + sent + '\\n')
    res.statusCode = 204
    res.end()
  })
})
server.keepAliveTimeout = 1
server.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'))
`

interface Arrival {
  sentAt: number
  arrivedAt: number
}

function startReceiver(): Promise<{ child: ChildProcess; port: number; arrivals: Arrival[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'pipe', 'inherit'] })
    const arrivals: Arrival[] = []
    let rest = ''
    child.stdout!.setEncoding('utf8').on('data', (s: string) => {
      const lines = (rest + s).split('\n')
      rest = lines.pop()!
      for (const line of lines) {
        const [a, b, c] = line.split(' ')
        if (a === 'port') resolve({ child, port: Number(b), arrivals })
        else arrivals.push({ arrivedAt: Number(b), sentAt: Number(c) })
      }
    })
    child.once('exit', (code) => reject(new Error(`receiver exited ${code}`)))
  })
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
const round = (n: number) => Math.round(n * 100) / 100
const wallMs = () => performance.timeOrigin + performance.now()

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for deliveries')
    await new Promise((r) => setTimeout(r, 5))
  }
}

async function main(): Promise<void> {
  const stamp = runStamp()
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ozan-bench-webhooks-'))
  const config = loadConfig({ OZAN_DATA_DIR: tmp, OZAN_LOG_LEVEL: 'warn', OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' })
  const db = openDatabase(config.databaseFile)
  migrate(db)
  const app = createApp({ db, config, secrets: loadSecrets(config), logger: createLogger('warn'), clock: systemClock })
  const receiver = await startReceiver()
  const { repos, webhooks, bus } = app.services
  const org = repos.organizations.create('Bench', null, Date.now())
  const env = repos.projects.defaultProjectEnvironment(org.id, 'dev')!
  const principal = { organizationId: org.id, environmentId: env.id, userId: null } as unknown as Principal
  for (let i = 0; i < endpoints; i++) {
    // Distinct URLs, as distinct customers would have; the receiver ignores the path.
    await webhooks.create(principal, {
      url: `http://127.0.0.1:${receiver.port}/hook/${i}`,
      events: ['transcript.updated'],
      timeout_seconds: 10,
      headers: { 'x-bench': '1' },
      enabled: true,
    })
  }
  const publish = () =>
    bus.publish({
      type: 'transcript.updated',
      organizationId: org.id,
      environmentId: env.id,
      occurredAt: Date.now(),
      data: { session_uuid: 'bench', role: 'user', text: 'Merhaba, randevu almak istiyorum.', sent: wallMs() },
    })
  try {
    note(`throughput: ${burst} events × ${endpoints} endpoints`)
    const t0 = performance.now()
    for (let i = 0; i < burst; i++) publish()
    const enqueuedMs = performance.now() - t0
    await until(() => receiver.arrivals.length >= burst * endpoints, 120_000)
    const drainS = (performance.now() - t0) / 1000
    const throughput = (burst * endpoints) / drainS
    note(`throughput: ${Math.round(throughput)} deliveries/s (enqueue ${round(enqueuedMs)} ms)`)

    receiver.arrivals.length = 0
    const total = Math.round(rate * seconds)
    const events = Math.ceil(total / endpoints)
    note(`latency: ${rate} deliveries/s for ${seconds} s`)
    const start = performance.now()
    for (let i = 0; i < events; i++) {
      const due = start + (i * 1000 * endpoints) / rate
      const wait = due - performance.now()
      if (wait > 1) await new Promise((r) => setTimeout(r, wait))
      publish()
    }
    await until(() => receiver.arrivals.length >= events * endpoints, 60_000)
    const latencies = receiver.arrivals.map((a) => a.arrivedAt - a.sentAt).sort((a, b) => a - b)
    const result = {
      bench: NAME,
      started_at: stamp,
      machine: machineInfo(),
      git: gitState(),
      settings: {
        endpoints,
        burst_events: burst,
        rate_deliveries_per_s: rate,
        seconds,
        max_in_flight: config.webhookMaxInFlight,
        max_per_endpoint: config.webhookMaxPerEndpoint,
      },
      throughput: { deliveries: burst * endpoints, seconds: round(drainS), deliveries_per_s: Math.round(throughput), enqueue_ms: round(enqueuedMs) },
      latency_ms: {
        deliveries: latencies.length,
        p50: round(percentile(latencies, 50)),
        p95: round(percentile(latencies, 95)),
        p99: round(percentile(latencies, 99)),
        max: round(latencies.at(-1)!),
      },
      goals: GOALS,
      goals_met: { throughput: throughput >= GOALS.deliveries_per_s, p99: percentile(latencies, 99) < GOALS.p99_ms },
    }
    writeResult(NAME, stamp, result)
    process.stdout.write(JSON.stringify(result, null, 2) + '\n')
    process.stdout.write(
      `${NAME}: ${result.throughput.deliveries_per_s} deliveries/s (goal ≥ ${GOALS.deliveries_per_s}), event → arrival p50 ${result.latency_ms.p50} ms p99 ${result.latency_ms.p99} ms at ${rate}/s (goal < ${GOALS.p99_ms})\n`,
    )
  } finally {
    receiver.child.kill()
    await app.close()
    db.close()
    fs.rmSync(tmp, { recursive: true, force: true })
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${NAME}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
