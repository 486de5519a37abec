/**
 * One capacity step's callers: a SIPp process placing `calls` calls at `rate` a second (at most
 * `calls` at once), each running loadCallerScenario. Resolves, once SIPp has exited, with how
 * many calls succeeded and failed (its statistics file) and the tail of its error log.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { freeUdpPort } from '../../test/helpers/sipp.js'
import { loadCallerScenario } from './scenario.js'

export interface LoadRun {
  /** Resolves when SIPp exits. */
  done: Promise<LoadOutcome>
  kill(): void
}

export interface LoadOutcome {
  code: number | null
  successful: number
  failed: number
  /** The tail of SIPp's error log (why calls failed). */
  errors: string
}

export async function startLoad(o: {
  dir: string
  target: string
  number: string
  calls: number
  rate: number
  greetMs: number
  holdMs: number
  audio: Buffer
  /** SIPp's RTP ports start here (rtp_stream); keep them out of the engine's range. */
  mediaPort: number
}): Promise<LoadRun> {
  fs.mkdirSync(o.dir, { recursive: true })
  fs.writeFileSync(path.join(o.dir, 'caller.ulaw'), o.audio)
  fs.writeFileSync(path.join(o.dir, 'scenario.xml'), loadCallerScenario({ greetMs: o.greetMs, holdMs: o.holdMs, audioFile: 'caller.ulaw' }))
  const args = [
    '-sf',
    'scenario.xml',
    o.target,
    '-s',
    o.number,
    '-i',
    '127.0.0.1',
    '-p',
    String(await freeUdpPort()),
    '-mp',
    String(o.mediaPort),
    '-m',
    String(o.calls),
    '-l',
    String(o.calls),
    '-r',
    String(o.rate),
    '-nostdin',
    '-trace_err',
    '-trace_stat',
    '-stf',
    'stats.csv',
    '-fd',
    '1',
    // A call must not outlive its plan by much: a stuck call fails the step instead of hanging it.
    '-timeout',
    `${Math.ceil((o.calls / o.rate) * 1000 + o.greetMs + o.holdMs + 30_000) / 1000}s`,
    '-timeout_error',
    '-recv_timeout',
    '10000',
  ]
  const child = spawn('sipp', args, { cwd: o.dir, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr = (stderr + s).slice(-4000)))
  const done = new Promise<LoadOutcome>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => resolve({ code, ...readStats(o.dir), errors: (errorLog(o.dir) + stderr).slice(-3000) }))
  })
  return { done, kill: () => child.kill('SIGKILL') }
}

/** SIPp's cumulative counters from the last line of its statistics file (-trace_stat). */
function readStats(dir: string): { successful: number; failed: number } {
  const file = path.join(dir, 'stats.csv')
  if (!fs.existsSync(file)) return { successful: 0, failed: 0 }
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n')
  const header = lines[0]!.split(';')
  const last = lines.at(-1)!.split(';')
  const column = (name: string) => Number(last[header.indexOf(name)] ?? 0) || 0
  return { successful: column('SuccessfulCall(C)'), failed: column('FailedCall(C)') }
}

function errorLog(dir: string): string {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('_errors.log'))
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .join('\n')
}
