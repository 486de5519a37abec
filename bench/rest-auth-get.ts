/**
 * Scenario rest-auth-get: requests/s and latency of an authenticated GET (`/api/v1/auth/me` with
 * an API key) against a bare node:http hello-world, both measured in the same run on this machine,
 * and their ratio. Goal: Ozan reaches >= 0.8x the bare server's requests/s.
 *
 * Each server runs in its own child process (the load generator, autocannon, runs here), Ozan as
 * `npm start` builds it: real SQLite file in a temp data dir, pino to a log file. Ozan is measured
 * at OZAN_LOG_LEVEL=warn (default; --log-level) and again at info, where every request is logged
 * as in production (--no-info skips that run). --profile then repeats the bare run and each Ozan
 * run in fresh children under `node --cpu-prof` and prints where the CPU time went (stderr, and
 * `profile` in the JSON), cut to the measured window.
 *
 * A third server, Koa + @koa/router answering the same hello-world (--no-koa skips it), shows the
 * most any Koa app can reach on this machine. For every run the server's own CPU time is recorded:
 * near 100% of a core means the server was the bottleneck, well below means the load generator was.
 *
 *   npx tsx bench/rest-auth-get.ts [--duration 10] [--warmup 3] [--connections 50] [--rounds 1]
 *       [--log-level warn] [--no-info] [--no-koa] [--profile] [--quick] [--keep]
 *
 * stdout: the JSON result, then one summary line. The JSON also goes to bench/results/.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { libScript, startServer, type Mark, type ServerChild } from './lib/children.js'
import { formatProfile, summarizeCpuProfile, type ProfileSummary } from './lib/cpuprofile.js'
import { medianFigures, runLoad, type LoadFigures } from './lib/load.js'
import { gitState, machineBusyMs, machineInfo, note, REPO_ROOT, resultPath, runStamp, writeResult } from './lib/report.js'
import { loadSourceLines } from './lib/sourcemaps.js'

const NAME = 'rest-auth-get'
const PATH = '/api/v1/auth/me'
const GOAL = 0.8
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
type Level = (typeof LEVELS)[number]

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '1' },
    'log-level': { type: 'string', default: 'warn' },
    'no-info': { type: 'boolean', default: false },
    'no-koa': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
})
const positive = (name: string, raw: string | undefined, fallback: number): number => {
  const n = raw === undefined ? fallback : Number(raw)
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`)
  return n
}
const duration = positive('duration', args.duration, args.quick ? 3 : 10)
const warmup = positive('warmup', args.warmup, args.quick ? 1 : 3)
const connections = Math.round(positive('connections', args.connections, 50))
const rounds = Math.round(positive('rounds', args.rounds, 1))
const level = args['log-level'] as Level
if (!LEVELS.includes(level)) throw new Error(`--log-level must be one of ${LEVELS.join(', ')}`)
// --quick keeps the headline pair (bare, Ozan at warn) so `npm run bench -- --quick` stays short.
const levels: Level[] = level === 'info' || args['no-info'] || args.quick ? [level] : [level, 'info']

const stamp = runStamp()
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ozan-bench-'))

/**
 * The per-address, per-organization and per-key rate limits at their maximum, so the bench measures
 * served requests rather than 429s. The limiter still runs on every request and is measured.
 */
const UNTHROTTLED: Record<string, string> = Object.fromEntries(
  ['ORG', 'KEY', 'ADDRESS'].flatMap((k) => [
    [`OZAN_RATE_LIMIT_${k}_PER_MIN`, '10000000'],
    [`OZAN_RATE_LIMIT_${k}_BURST`, '10000000'],
  ]),
)

interface OzanTarget {
  level: Level
  child: ServerChild
  apiKey: string
  logFile: string
  dataDir: string
}

async function call(
  url: string,
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} }
}

/** Starts an Ozan child on its own data dir, registers a user and makes an API key over HTTP. */
async function startOzan(lvl: Level, tag: string, nodeFlags: string[] = [], env: Record<string, string> = {}): Promise<OzanTarget> {
  const dataDir = path.join(tmp, `ozan-${tag}`)
  const logFile = path.join(tmp, `ozan-${tag}.log`)
  const child = await startServer(`ozan(${tag})`, libScript('ozan-server.ts'), {
    env: { OZAN_DATA_DIR: dataDir, OZAN_HOST: '127.0.0.1', OZAN_PORT: '0', OZAN_LOG_LEVEL: lvl, ...UNTHROTTLED, ...env },
    nodeFlags,
    stdoutFile: logFile,
  })
  const reg = await call(`${child.url}/api/v1/auth/register`, 'POST', {
    email: `bench-${tag}@example.com`,
    password: 'correct horse battery staple',
    name: 'Bench',
  })
  if (reg.status !== 201) throw new Error(`register: ${reg.status} ${JSON.stringify(reg.json)}`)
  const token = String(reg.json.access_token)
  const key = await call(`${child.url}/api/v1/api-keys`, 'POST', { name: 'bench' }, { authorization: `Bearer ${token}` })
  if (key.status !== 201) throw new Error(`create API key: ${key.status} ${JSON.stringify(key.json)}`)
  const apiKey = String(key.json.key)
  const me = await call(child.url + PATH, 'GET', undefined, { 'x-api-key': apiKey })
  if (me.status !== 200 || me.json.auth_method !== 'api_key') throw new Error(`GET ${PATH}: ${me.status} ${JSON.stringify(me.json)}`)
  return { level: lvl, child, apiKey, logFile, dataDir }
}

/** Warm-up (optional), then one measured run; the server's CPU use comes from marks around it. */
async function measure(
  label: string,
  child: ServerChild,
  headers: Record<string, string>,
  warm: boolean,
): Promise<{ figures: LoadFigures; from: Mark; to: Mark }> {
  const url = child.url + PATH
  if (warm) {
    note(`${label}: warm-up ${warmup}s`)
    await runLoad(url, { connections, duration: warmup, headers })
  }
  note(`${label}: measuring ${duration}s x ${connections} connections`)
  const from = await child.mark('start')
  const [machine0, self0] = [machineBusyMs(), process.cpuUsage()]
  const f = await runLoad(url, { connections, duration, headers })
  const [machine1, self1] = [machineBusyMs(), process.cpuUsage(self0)]
  const to = await child.mark('end')
  const wallUs = to.us - from.us
  const serverUs = to.cpu_us - from.cpu_us
  const selfUs = self1.user + self1.system
  f.server_cpu_pct = Math.round((serverUs / wallUs) * 100)
  f.server_cpu_us_per_request = f.requests ? Math.round(serverUs / f.requests) : 0
  f.server_sys_share_pct = serverUs ? Math.round(((to.sys_us - from.sys_us) / serverUs) * 100) : 0
  f.loadgen_cpu_pct = Math.round((selfUs / wallUs) * 100)
  f.other_cpu_pct = Math.max(0, Math.round((((machine1 - machine0) * 1000 - serverUs - selfUs) / wallUs) * 100))
  note(
    `${label}: ${f.rps} req/s, p50 ${f.p50_ms} ms, p99 ${f.p99_ms} ms; CPU (% of a core) server ${f.server_cpu_pct}, load generator ${f.loadgen_cpu_pct}, others ${f.other_cpu_pct}; server ${f.server_cpu_us_per_request} µs/request (${f.server_sys_share_pct}% kernel)` +
      (f.non2xx || f.errors ? `; ${f.non2xx} non-2xx, ${f.errors} errors` : ''),
  )
  return { figures: f, from, to }
}

const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000

async function main(): Promise<void> {
  const machine = machineInfo()
  note(`${NAME}: ${machine.cpus} x ${machine.model}, node ${machine.node}; temp dir ${tmp}`)
  const bareServer = await startServer('bare', libScript('bare-server.ts'))
  const koaServer = args['no-koa'] || args.quick ? null : await startServer('koa', libScript('koa-server.ts'))
  const ozans: OzanTarget[] = []
  for (const lvl of levels) ozans.push(await startOzan(lvl, lvl))

  // The same request shape for both: the bare server ignores the key header.
  const bareRuns: LoadFigures[] = []
  const koaRuns: LoadFigures[] = []
  const ozanRuns = new Map<Level, LoadFigures[]>(levels.map((l) => [l, []]))
  for (let r = 0; r < rounds; r++) {
    if (rounds > 1) note(`round ${r + 1}/${rounds}`)
    bareRuns.push((await measure('bare', bareServer, { 'x-api-key': ozans[0]!.apiKey }, r === 0)).figures)
    if (koaServer) koaRuns.push((await measure('koa', koaServer, { 'x-api-key': ozans[0]!.apiKey }, r === 0)).figures)
    for (const o of ozans) ozanRuns.get(o.level)!.push((await measure(`ozan(${o.level})`, o.child, { 'x-api-key': o.apiKey }, r === 0)).figures)
  }
  await bareServer.stop()
  await koaServer?.stop()
  const logStats = new Map<Level, { log_lines: number; log_bytes_per_line: number }>()
  for (const o of ozans) {
    await o.child.stop()
    // Every line the app wrote over its life (setup and warm-up included), so: bytes per line.
    const text = fs.readFileSync(o.logFile, 'utf8')
    const lines = text.split('\n').filter(Boolean).length
    logStats.set(o.level, { log_lines: lines, log_bytes_per_line: lines ? Math.round(Buffer.byteLength(text) / lines) : 0 })
  }

  const bareF = medianFigures(bareRuns)
  const ratios = (f: LoadFigures) => ({
    ratio_rps: ratio(f.rps, bareF.rps),
    ratio_p99: ratio(f.p99_ms, bareF.p99_ms),
    ratio_cpu: bareF.server_cpu_us_per_request && f.server_cpu_us_per_request ? ratio(bareF.server_cpu_us_per_request, f.server_cpu_us_per_request) : null,
  })
  const koaF = koaServer ? medianFigures(koaRuns) : null
  const result = (lvl: Level) => {
    const f = medianFigures(ozanRuns.get(lvl)!)
    return { log_level: lvl, ...f, ...logStats.get(lvl)!, ...ratios(f) }
  }
  const primary = result(level)
  const info = levels.includes('info') && level !== 'info' ? result('info') : null

  // Profiled runs come after, in fresh children, so profiling overhead never touches the figures
  // above. The bare server is profiled too: what it spends per request is the floor.
  const profiles: Record<string, { figures: LoadFigures; summary: ProfileSummary; cpuprofile: string }> = {}
  const profiled = async (
    tag: string,
    start: (flags: string[], env: Record<string, string>) => Promise<{ child: ServerChild; headers: Record<string, string> }>,
  ) => {
    const dir = path.join(tmp, `prof-${tag}`)
    const maps = path.join(tmp, `sourcemaps-${tag}.json`)
    const { child, headers } = await start(['--cpu-prof', `--cpu-prof-dir=${dir}`], { BENCH_SOURCEMAPS_OUT: maps })
    const { figures, from, to } = await measure(`${tag} (profiled)`, child, headers, true)
    await child.stop()
    const file = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile')) : undefined
    if (!file) throw new Error(`no .cpuprofile in ${dir}\n${child.stderr()}`)
    const kept = resultPath(`${NAME}-${stamp}-${tag}.cpuprofile`)
    fs.copyFileSync(path.join(dir, file), kept)
    const summary = summarizeCpuProfile(kept, REPO_ROOT, {
      fromUs: from.us,
      toUs: to.us,
      top: 15,
      sourceLine: loadSourceLines(maps),
      requests: figures.requests,
    })
    const perRequest = figures.requests ? `, main thread ${Math.round((summary.busy_ms * 1000) / figures.requests)} µs per request` : ''
    process.stderr.write('\n' + formatProfile(`profile ${tag} at ${figures.rps} req/s${perRequest}`, summary) + '\n\n')
    profiles[tag] = { figures, summary, cpuprofile: path.relative(REPO_ROOT, kept) }
  }
  if (args.profile) {
    await profiled('bare', async (nodeFlags, env) => ({
      child: await startServer('bare(profiled)', libScript('bare-server.ts'), { nodeFlags, env }),
      headers: { 'x-api-key': ozans[0]!.apiKey },
    }))
    for (const lvl of levels) {
      await profiled(`ozan-${lvl}`, async (nodeFlags, env) => {
        const o = await startOzan(lvl, `${lvl}-profiled`, nodeFlags, env)
        return { child: o.child, headers: { 'x-api-key': o.apiKey } }
      })
    }
  }

  // What makes a figure untrustworthy, said next to it.
  const warnings: string[] = []
  const targets: [string, LoadFigures | null][] = [
    ['bare', bareF],
    ['koa', koaF],
    [`ozan(${level})`, primary],
    ['ozan(info)', info],
  ]
  for (const [name, f] of targets) {
    if (!f) continue
    if (f.non2xx || f.errors || f.timeouts) warnings.push(`${name}: ${f.non2xx} non-2xx, ${f.errors} errors, ${f.timeouts} timeouts`)
    if ((f.other_cpu_pct ?? 0) > 15) warnings.push(`${name}: other processes used ${f.other_cpu_pct}% of a core during the run (contention)`)
    if ((f.server_cpu_pct ?? 100) < 85)
      warnings.push(`${name}: the server used only ${f.server_cpu_pct}% of a core: bound by the load generator (${f.loadgen_cpu_pct}%) or by contention`)
  }
  for (const w of warnings) note(`warning: ${w}`)

  const json = {
    bench: NAME,
    started_at: stamp,
    request: `GET ${PATH} with X-API-Key`,
    machine,
    git: gitState(),
    settings: {
      connections,
      duration_s: duration,
      warmup_s: warmup,
      rounds,
      pipelining: 1,
      load_generator: 'autocannon (in the parent process)',
      servers: 'one child process each',
    },
    bare: bareF,
    koa_floor: koaF && { ...koaF, ...ratios(koaF) },
    koa_floor_note: 'koa_floor: the same hello-world through Koa + @koa/router only: the most any Koa app can reach here',
    ozan: primary,
    ozan_info: info,
    ratio_rps: primary.ratio_rps,
    ratio_p99: primary.ratio_p99,
    ratio_cpu: primary.ratio_cpu,
    ratios_note:
      'ratio_rps = x/bare requests per second (higher is better); ratio_p99 = x/bare p99 latency (lower is better); ' +
      'ratio_cpu = bare/x server CPU time per request (what ratio_rps would be with both servers CPU-bound on a whole core; steadier under contention)',
    goal: GOAL,
    goal_met: primary.ratio_rps >= GOAL,
    warnings,
    profile: args.profile ? profiles : undefined,
  }
  const file = writeResult(NAME, stamp, json)
  process.stdout.write(JSON.stringify(json, null, 2) + '\n')
  const ms = (n: number) => (n < 10 ? n.toFixed(1) : n.toFixed(0))
  let line =
    `${NAME}: ozan ${primary.rps} req/s p99 ${ms(primary.p99_ms)} ms vs bare ${bareF.rps} req/s p99 ${ms(bareF.p99_ms)} ms` +
    ` → ${primary.ratio_rps.toFixed(2)}x (goal ≥ ${GOAL}x)`
  if (level !== 'warn') line += ` [log level ${level}]`
  if (info) line += `; with info request logging ${info.rps} req/s p99 ${ms(info.p99_ms)} ms → ${info.ratio_rps.toFixed(2)}x`
  if (koaF) line += `; Koa hello-world ${ratio(koaF.rps, bareF.rps).toFixed(2)}x`
  note(`results: ${path.relative(REPO_ROOT, file)}`)
  process.stdout.write(line + '\n')
}

main()
  .catch((err: unknown) => {
    process.stderr.write(`${NAME}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    process.exitCode = 1
  })
  .finally(() => {
    if (args.keep) note(`kept ${tmp}`)
    else fs.rmSync(tmp, { recursive: true, force: true })
    // Children get 'disconnect' and exit if anything above failed midway.
    if (process.exitCode) process.exit()
  })
