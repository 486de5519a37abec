import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { requirePython, runPython, SDK_DIR } from './python.js'

// The Python library's own unit tests (sdk/python/tests: retry rules, errors, paging, request
// shaping against a scripted local server, and the generated module's type sanity), a compile
// of every file, and mypy --strict over the package where mypy is installed.

/** A real caller of the generated types: mypy checks its calls against them. */
const CONTRACT = path.resolve(import.meta.dirname, 'contract.py')

const files = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? (e.name === '__pycache__' ? [] : files(path.join(dir, e.name))) : e.name.endsWith('.py') ? [path.join(dir, e.name)] : [],
    )

if (requirePython(t)) {
  t.test('every Python file compiles', async (t) => {
    const sources = files(SDK_DIR)
    t.ok(sources.length >= 10, `${sources.length} files`)
    const script = 'import sys\nfor f in sys.argv[1:]:\n    compile(open(f, encoding="utf-8").read(), f, "exec")'
    const res = await runPython(['-c', script, ...sources])
    t.equal(res.code, 0, res.stderr)
  })

  t.test('the unit tests pass', async (t) => {
    const res = await runPython(['-m', 'unittest', 'discover', '-v', '-s', 'tests', '-t', '.'], '', { timeoutMs: 120_000 })
    t.equal(res.code, 0, res.code === 0 ? 'exit 0' : res.stderr)
    const ran = Number(/Ran (\d+) tests?/.exec(res.stderr)?.[1] ?? 0)
    t.ok(ran >= 30, `ran ${ran} tests`)
    t.match(res.stderr, /\nOK\b/)
  })

  t.test('mypy --strict finds nothing in the package, its tests or the contract script', async (t) => {
    // mypy cannot come from PyPI here: Debian's python3-mypy (scripts/system-packages.txt) is on the
    // system interpreter. In CI its absence fails the test; elsewhere it is said and skipped.
    const python = ['python3', '/usr/bin/python3'].find((p) => spawnSync(p, ['-m', 'mypy', '--version']).status === 0)
    if (!python) {
      if (process.env['CI'] === 'true') t.fail('mypy is not installed (apt-get install python3-mypy)')
      else t.comment('mypy is not installed: the run-time type checks in tests/test_generated.py still ran')
      return
    }
    const cache = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'ozan-mypy-'))
    t.teardown(() => fs.rmSync(cache, { recursive: true, force: true }))
    const res = spawnSync(python, ['-m', 'mypy', '--strict', '--python-version', '3.11', '--cache-dir', cache, 'ozan', 'tests', CONTRACT], {
      cwd: SDK_DIR,
      encoding: 'utf8',
      env: { ...process.env, MYPYPATH: SDK_DIR },
    })
    t.equal(res.status, 0, res.stdout + res.stderr)
    t.match(res.stdout, /^Success: no issues found/m)
  })
}
