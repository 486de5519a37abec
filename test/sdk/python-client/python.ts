import { spawn, spawnSync } from 'node:child_process'
import path from 'node:path'

/** sdk/python: the package `ozan`, its unit tests and the single-file webhook verifier. */
export const SDK_DIR = path.resolve(import.meta.dirname, '../../../sdk/python')

export interface PythonRun {
  code: number | null
  stdout: string
  stderr: string
}

/** Python 3.11 or newer on PATH as python3 (the library's requires-python), or why not. */
export function pythonProblem(): string | null {
  const probe = spawnSync('python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' })
  if (probe.error || probe.status !== 0) return 'python3 is not on PATH'
  const [major = 0, minor = 0] = probe.stdout.trim().split('.').map(Number)
  if (major < 3 || (major === 3 && minor < 11)) return `python3 is ${probe.stdout.trim()}, the client needs 3.11+`
  return null
}

/**
 * Skips a test file without python3, except in CI (CI=true), where the file fails instead: the
 * Python library ships with the platform, so CI must not pass without testing it.
 */
export function requirePython(t: { fail(msg: string): void; plan(n: number, why: string): void }): boolean {
  const problem = pythonProblem()
  if (!problem) return true
  if (process.env.CI === 'true') t.fail(`${problem}; the Python client cannot be tested (CI=true)`)
  else t.plan(0, `${problem}; skipping the Python client tests`)
  return false
}

/** Runs python3 with sdk/python importable; stdin is `input`. Killed after `timeoutMs`. */
export function runPython(args: string[], input = '', o: { cwd?: string; timeoutMs?: number } = {}): Promise<PythonRun> {
  return new Promise((resolve, reject) => {
    // PYTHONDONTWRITEBYTECODE keeps __pycache__ out of the source tree.
    const env = { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: SDK_DIR, PYTHONIOENCODING: 'utf-8' }
    const child = spawn('python3', args, { cwd: o.cwd ?? SDK_DIR, env })
    let stdout = ''
    let stderr = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 60_000)
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
    child.stdin.end(input)
  })
}

/** The one JSON line a contract script prints; throws with its stderr when it failed. */
// biome-ignore lint/suspicious/noExplicitAny: a report is JSON the test reads field by field
export function reportOf<T = Record<string, any>>(run: PythonRun): T {
  if (run.code !== 0) throw new Error(`python exited ${run.code}: ${run.stderr}`)
  return JSON.parse(run.stdout) as T
}
