import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import net from 'node:net'
import path from 'node:path'

/** Helpers for the tests that run `npm run stand-ins` as a real process. */

const ROOT = path.resolve(import.meta.dirname, '../../..')

export interface StandInsProcess {
  child: ChildProcessWithoutNullStreams
  stdout(): string
  stderr(): string
  /** Resolves once stdout holds `text`; rejects after `timeoutMs` or when the process exits first. */
  waitFor(text: string, timeoutMs?: number): Promise<string>
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** SIGKILL to its whole process group (npm, sh, tsx and node when run through npm): a test's teardown. */
  killAll(): void
}

/**
 * Starts the command in a process group of its own; the group is SIGKILLed after `killAfterMs`
 * whatever happens, so a test never hangs or leaves a process behind. `viaNpm` runs it as a
 * newcomer does, `npm run stand-ins -- …`; otherwise tsx is a loader of this node (one process).
 */
export function startStandIns(args: string[], env: Record<string, string> = {}, killAfterMs = 60_000, o: { viaNpm?: boolean } = {}): StandInsProcess {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('STAND_INS_') && k !== 'OZAN_API_KEY'))
  const [command, commandArgs] = o.viaNpm
    ? ['npm', ['run', '--silent', 'stand-ins', '--', ...args]]
    : [process.execPath, ['--import', 'tsx', 'scripts/stand-ins.ts', ...args]]
  const child = spawn(command, commandArgs, { cwd: ROOT, env: { ...clean, ...env }, detached: true })
  const killAll = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      // The group is gone already.
    }
  }
  let out = ''
  let err = ''
  const waiters = new Set<() => void>()
  child.stdout.on('data', (d) => {
    out += d
    for (const w of waiters) w()
  })
  child.stderr.on('data', (d) => (err += d))
  const timer = setTimeout(killAll, killAfterMs)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      for (const w of waiters) w()
      resolve({ code, signal })
    }),
  )
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    killAll,
    waitFor: (text, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const deadline = setTimeout(() => done(new Error(`no "${text}" within ${timeoutMs} ms; stdout:\n${out}\nstderr:\n${err}`)), timeoutMs)
        const check = () => {
          if (out.includes(text)) done(null)
          else if (child.exitCode !== null || child.signalCode !== null) done(new Error(`exited before "${text}"; stdout:\n${out}\nstderr:\n${err}`))
        }
        function done(e: Error | null) {
          clearTimeout(deadline)
          waiters.delete(check)
          if (e) reject(e)
          else resolve(out)
        }
        waiters.add(check)
        check()
      }),
  }
}

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const probe = net.createServer()
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
  const { port } = probe.address() as net.AddressInfo
  await new Promise<void>((r) => probe.close(() => r()))
  return port
}

/** Whether a server could listen on the port now (the stand-ins freed it). */
export async function portIsFree(port: number): Promise<boolean> {
  const probe = net.createServer()
  const ok = await new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false))
    probe.listen(port, '127.0.0.1', () => resolve(true))
  })
  if (ok) await new Promise<void>((r) => probe.close(() => r()))
  return ok
}

/** The request bodies of the printed `curl … -d '{…}'` commands, parsed. */
export function printedCredentialBodies(stdout: string): Array<{ provider: string; fields: Record<string, string> }> {
  return [...stdout.matchAll(/-d '(\{"provider".*\})'$/gm)].map((m) => JSON.parse(m[1]!))
}
