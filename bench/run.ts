/**
 * `npm run bench [-- --quick] [-- --only voice-calls,rest-auth-get]`: runs every scenario in
 * bench/*.ts (or those named) in turn, each in its own process, passing --quick through. Each
 * scenario's output (JSON, then its summary line) is forwarded as it comes; the summary lines are
 * repeated at the end. The JSONs are then combined into one report (bench/voice/report.ts builds
 * it): bench/results/<stamp>.json, .md and .svg.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { resultPath, runStamp } from './lib/report.js'
import { buildReport } from './voice/report.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const { values: args } = parseArgs({ options: { quick: { type: 'boolean', default: false }, only: { type: 'string' } } })
const quick = args.quick ?? false
const available = fs
  .readdirSync(here)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && f !== 'run.ts')
  .map((f) => f.slice(0, -'.ts'.length))
  .sort()
const only = args.only
  ?.split(',')
  .map((s) => s.trim())
  .filter(Boolean)
const unknown = only?.filter((n) => !available.includes(n)) ?? []
if (unknown.length) {
  process.stderr.write(`[bench] no such scenario: ${unknown.join(', ')} (have: ${available.join(', ')})\n`)
  process.exit(2)
}
const scenarios = only ? available.filter((n) => only.includes(n)) : available

const stamp = runStamp()
const started = performance.now()
const summaries: string[] = []
const results: Record<string, unknown> = {}
const failed: Record<string, string> = {}
for (const name of scenarios) {
  process.stderr.write(`\n[bench] === ${name} ===\n`)
  const t0 = performance.now()
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, `${name}.ts`), ...(quick ? ['--quick'] : [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    process.stdout.write(s)
    out += s
  })
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  process.stderr.write(`[bench] ${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s\n`)
  // Stdout is the JSON, then one summary line (bench/README.md, "Adding a scenario").
  const lines = out.trimEnd().split('\n')
  const last = lines.pop() ?? ''
  if (code !== 0) {
    failed[name] = `exit ${code}`
    summaries.push(`${name}: FAILED (exit ${code})`)
    continue
  }
  summaries.push(last)
  try {
    results[name] = JSON.parse(lines.join('\n'))
  } catch (err) {
    failed[name] = `its output before the summary line is not JSON (${err instanceof Error ? err.message : String(err)})`
  }
}
process.stdout.write('\n' + summaries.join('\n') + '\n')

const cpus = os.cpus()
const report = buildReport({
  stamp,
  quick,
  scenarios: results,
  failed,
  machine: {
    cpus: cpus.length,
    cpu_model: cpus[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
  },
})
for (const [ext, text] of [
  ['json', report.json],
  ['md', report.markdown],
  ['svg', report.svg],
] as const) {
  fs.writeFileSync(resultPath(`${stamp}.${ext}`), text)
}
process.stderr.write(`[bench] report: bench/results/${stamp}.{json,md,svg} (${((performance.now() - started) / 1000).toFixed(1)} s in all)\n`)
process.exitCode = Object.keys(failed).length ? 1 : 0
