/**
 * The engine under test in its own process (bench/lib/engine-server.ts), pinned to one core with
 * taskset where it can be, with the V8 flags `npm start` gives it, plus the bench's diagnostics
 * (BENCH_ENGINE_CPU_PROF, BENCH_ENGINE_FLAGS, BENCH_ENGINE_BUFFER_CENSUS; bench/README.md).
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { libScript } from '../lib/children.js'
import { ENGINE_NODE_FLAGS } from '../lib/engine-flags.js'
import type { EngineFromChild } from '../lib/engine-server.js'

export interface EngineChild {
  apiUrl: string
  enginePort: number
  /** The SIP listener's port (BENCH_SIP=1 in `env`), else null. */
  sipPort: number | null
  transport: string
  sample(): Promise<Extract<EngineFromChild, { type: 'sample' }>>
  stop(): Promise<void>
  /** The tail of the engine's stderr. */
  stderr(): string
}

export function tasksetPath(): string | null {
  for (const p of ['/usr/bin/taskset', '/bin/taskset']) if (fs.existsSync(p)) return p
  return null
}

/** `env` is added to (and overrides) the engine's environment (the sip-calls bench: BENCH_SIP and OZAN_SIP_*). */
export async function startEngineChild(core: number | null, dataDir: string, env: Record<string, string> = {}): Promise<EngineChild> {
  const taskset = tasksetPath()
  // fork() through taskset: taskset execs node, which inherits the IPC channel's fd.
  const pinned = taskset !== null && core !== null
  // BENCH_ENGINE_CPU_PROF=<dir>: the engine writes a .cpuprofile there when it stops.
  const prof = process.env.BENCH_ENGINE_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_ENGINE_CPU_PROF}`] : []
  // BENCH_ENGINE_FLAGS="--trace-gc …": extra node/V8 flags for the engine (its stdout is engine.log in the data dir).
  // BENCH_ENGINE_BUFFER_CENSUS=<file>: the engine counts its new off-heap arrays by call site into <file> (buffer-census.ts).
  const census = process.env.BENCH_ENGINE_BUFFER_CENSUS ? ['--import', libScript('buffer-census.ts')] : []
  const extra = [...prof, ...census, ...(process.env.BENCH_ENGINE_FLAGS ?? '').split(' ').filter(Boolean)]
  const child: ChildProcess = fork(libScript('engine-server.ts'), [], {
    ...(pinned
      ? { execPath: taskset, execArgv: ['-c', String(core), process.execPath, ...ENGINE_NODE_FLAGS, '--import', 'tsx', ...extra] }
      : { execArgv: [...ENGINE_NODE_FLAGS, '--import', 'tsx', ...extra] }),
    env: {
      ...process.env,
      OZAN_DATA_DIR: dataDir,
      OZAN_HOST: '127.0.0.1',
      OZAN_PORT: '0',
      OZAN_ENGINE_HOST: '127.0.0.1',
      OZAN_ENGINE_PORT: '0',
      OZAN_LOG_LEVEL: 'warn',
      OZAN_MAX_LIVE_CALLS_PER_ORG: '10000',
      OZAN_ACCESS_TOKEN_TTL_S: '7200',
      // The stand-in providers listen on loopback, which provider credentials may reach only when allowed.
      OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8',
      OZAN_RATE_LIMIT_ORG_BURST: '1000000',
      OZAN_RATE_LIMIT_ORG_PER_MIN: '1000000',
      OZAN_RATE_LIMIT_KEY_BURST: '1000000',
      OZAN_RATE_LIMIT_KEY_PER_MIN: '1000000',
      OZAN_RATE_LIMIT_ADDRESS_BURST: '1000000',
      OZAN_RATE_LIMIT_ADDRESS_PER_MIN: '1000000',
      ...env,
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
    sipPort: ready.sipPort,
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

/**
 * The engine child on the last core, to itself, and this process (stand-ins and callers) pinned to
 * the others, so neither steals the other's time; with one core (or no taskset) both share.
 */
export async function startPinnedEngine(
  dataDirPrefix: string,
  log: (msg: string) => void,
  env: Record<string, string> = {},
): Promise<{ engine: EngineChild; engineCore: number | null; dataDir: string; cpus: number }> {
  const started = performance.now()
  const cpus = os.cpus().length
  const engineCore = tasksetPath() && cpus > 1 ? cpus - 1 : null
  if (engineCore !== null) {
    try {
      execFileSync(tasksetPath()!, ['-a', '-cp', `0-${cpus - 2}`, String(process.pid)], { stdio: 'ignore' })
    } catch {
      log('could not pin the bench process; it shares cores with the engine')
    }
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), dataDirPrefix))
  const engine = await startEngineChild(engineCore, dataDir, env)
  log(`engine up (${engine.transport}) on core ${engineCore ?? 'any'} in ${Math.round(performance.now() - started)} ms`)
  return { engine, engineCore, dataDir, cpus }
}
