import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root (bench/lib/../..). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

export function machineInfo() {
  const cpus = os.cpus()
  return {
    cpus: cpus.length,
    model: cpus[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    total_mem_mb: Math.round(os.totalmem() / 2 ** 20),
    loadavg_1m_at_start: Math.round(os.loadavg()[0]! * 100) / 100,
  }
}

/** CPU time all processes on the machine have used so far (ms, summed over cores). */
export function machineBusyMs(): number {
  return os.cpus().reduce((sum, c) => sum + c.times.user + c.times.nice + c.times.sys + c.times.irq, 0)
}

/** Which code was measured: HEAD and how many paths differ from it (others edit the tree). */
export function gitState(): { commit: string; changed_paths: number } | null {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim()
    const status = execFileSync('git', ['status', '--porcelain'], { cwd: REPO_ROOT, encoding: 'utf8' })
    return { commit, changed_paths: status.split('\n').filter(Boolean).length }
  } catch {
    return null
  }
}

/** A file name stamp for this run: 2025-01-31T12-00-00-000Z. */
export function runStamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-')
}

/** bench/results/<base> (git-ignored), creating the directory. */
export function resultPath(base: string): string {
  const dir = path.join(REPO_ROOT, 'bench', 'results')
  fs.mkdirSync(dir, { recursive: true })
  return path.join(dir, base)
}

/** Writes a bench's JSON to bench/results/<name>-<stamp>.json; returns the path. */
export function writeResult(name: string, stamp: string, result: unknown): string {
  const file = resultPath(`${name}-${stamp}.json`)
  fs.writeFileSync(file, JSON.stringify(result, null, 2) + '\n')
  return file
}

/** Progress for humans goes to stderr, so stdout stays the JSON and the summary line. */
export function note(message: string): void {
  process.stderr.write(`[bench] ${message}\n`)
}
