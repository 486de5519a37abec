import { fork, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { FromChild, ToChild } from './ipc.js'

export interface Mark {
  us: number
  cpu_us: number
  sys_us: number
}

export interface ServerChild {
  name: string
  port: number
  url: string
  pid: number
  /**
   * The child's monotonic clock in µs at this moment (to cut a .cpuprofile to a window) and the
   * CPU time it has used so far.
   */
  mark(label: string): Promise<Mark>
  /** Asks the child to close and exit; resolves with its exit code. */
  stop(): Promise<number | null>
  stderr(): string
}

export interface StartOptions {
  /** Extra environment on top of this process's. */
  env?: Record<string, string>
  /** Extra node flags, e.g. --cpu-prof. */
  nodeFlags?: string[]
  /** Where the child's stdout goes (the app's log lines); default: discarded. */
  stdoutFile?: string
  readyTimeoutMs?: number
}

/** Script path under bench/lib, resolved from this module. */
export function libScript(name: string): string {
  return fileURLToPath(new URL(`./${name}`, import.meta.url))
}

/**
 * Forks a server script (a .ts file, run through tsx's loader like `npm start`) in its own
 * process and waits for it to report its port over IPC.
 */
export async function startServer(name: string, script: string, o: StartOptions = {}): Promise<ServerChild> {
  const out = o.stdoutFile ? fs.openSync(o.stdoutFile, 'a') : 'ignore'
  const child: ChildProcess = fork(script, [], {
    execArgv: ['--import', 'tsx', ...(o.nodeFlags ?? [])],
    env: { ...process.env, ...o.env },
    stdio: ['ignore', out, 'pipe', 'ipc'],
  })
  if (typeof out === 'number') fs.closeSync(out)
  let err = ''
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const waiters = new Map<string, (m: Mark) => void>()

  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: not ready after ${o.readyTimeoutMs ?? 30_000} ms\n${err}`)), o.readyTimeoutMs ?? 30_000)
    child.on('message', (m: FromChild) => {
      if (m.type === 'ready') {
        clearTimeout(timer)
        resolve(m.port)
      } else if (m.type === 'mark') {
        waiters.get(m.label)?.({ us: m.us, cpu_us: m.cpu_us, sys_us: m.sys_us })
        waiters.delete(m.label)
      }
    })
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`${name}: exited with ${code} before it was ready\n${err}`))
    })
  })

  const send = (m: ToChild) => child.send(m)
  return {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    mark(label) {
      return new Promise((resolve) => {
        waiters.set(label, resolve)
        send({ type: 'mark', label })
      })
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
      send({ type: 'stop' })
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      const code = await exited
      clearTimeout(timer)
      return code
    },
    stderr: () => err,
  }
}
