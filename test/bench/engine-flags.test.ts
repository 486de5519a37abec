import fs from 'node:fs'
import { spawnSync } from 'node:child_process'
import t from 'tap'
import { ENGINE_NODE_FLAGS } from '../../bench/lib/engine-flags.js'

// The bench measures the engine as `npm start` runs it, so both must give node the same flags.
const scripts = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).scripts as Record<string, string>

t.test('npm start and start:engine give the engine process the bench engine’s V8 flags', async (t) => {
  for (const name of ['start', 'start:engine']) {
    const words = scripts[name]!.split(/\s+/)
    const script = words.indexOf('bin/ozan.ts')
    t.ok(script > 0, `${name} runs bin/ozan.ts`)
    t.same(words.slice(1, script), [...ENGINE_NODE_FLAGS], `${name}: ${scripts[name]}`)
  }
})

t.test('node accepts the flags (it refuses ones it does not know)', async (t) => {
  const run = (flags: readonly string[]) => spawnSync(process.execPath, [...flags, '-e', '0'], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })
  const ok = run(ENGINE_NODE_FLAGS)
  t.equal(ok.status, 0, ok.stderr)
  t.equal(ok.stderr, '')
  const bad = run(['--no-such-v8-flag-here'])
  t.not(bad.status, 0, 'an unknown flag fails, so the check above means something')
})
