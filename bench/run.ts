/**
 * `npm run bench [-- --quick]`: runs every scenario in bench/*.ts in turn, each in its own
 * process, passing --quick through. Each scenario's output (JSON, then its summary line) is
 * forwarded as it comes; the summary lines are repeated at the end.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const quick = process.argv.includes('--quick')
const scenarios = fs
  .readdirSync(here)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && f !== 'run.ts')
  .sort()

const summaries: string[] = []
let failed = 0
for (const file of scenarios) {
  process.stderr.write(`\n[bench] === ${file} ===\n`)
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, file), ...(quick ? ['--quick'] : [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let tail = ''
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    process.stdout.write(s)
    tail = (tail + s).slice(-4096)
  })
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  const last = tail.trimEnd().split('\n').at(-1) ?? ''
  if (code === 0) summaries.push(last)
  else {
    failed++
    summaries.push(`${file}: FAILED (exit ${code})`)
  }
}
process.stdout.write('\n' + summaries.join('\n') + '\n')
process.exitCode = failed ? 1 : 0
