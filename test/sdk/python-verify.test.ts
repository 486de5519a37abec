import t from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import path from 'node:path'
import { signPayload, verifyWebhook, WebhookVerificationError } from '../../sdk/node/src/index.js'

// Runs the Python library's own unit tests, then checks that it and the Node library agree in both
// directions: Node-signed deliveries through verify_cli.py, Python-signed ones through Node.

const PY_DIR = path.resolve(import.meta.dirname, '../../sdk/python')
// Keeps __pycache__ out of the source tree.
const PY_ENV = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
const OTHER_SECRET = 'whsec_2v1Zb0n9Qk3yR1m4T7w8X5c6V0b3N2m1'
const NOW = 1_700_000_000
const BODY = JSON.stringify({ event: 'session.ended', data: { session_id: 42, caller: 'çağrı', note: 'ğüşıöç 👋' } })

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function run(args: string[], input: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', args, { cwd: PY_DIR, env: PY_ENV })
    let stdout = ''
    let stderr = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
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

/** Python 3.8 or newer on PATH as python3, or why not. */
function pythonProblem(): string | null {
  const probe = spawnSync('python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' })
  if (probe.error || probe.status !== 0) return 'python3 is not on PATH'
  const [major = 0, minor = 0] = probe.stdout.trim().split('.').map(Number)
  if (major < 3 || (major === 3 && minor < 8)) return `python3 is ${probe.stdout.trim()}, the SDK needs 3.8+`
  return null
}

interface Case {
  name: string
  body: string | Buffer
  header: string | null
  secret: string | string[]
  toleranceS?: number
  expect: string
}

const cases: Case[] = [
  { name: 'genuine', body: BODY, header: signPayload(BODY, SECRET, NOW), secret: SECRET, expect: 'ok' },
  {
    name: 'rotation header, second v1 matches',
    body: BODY,
    header: signPayload(BODY, [OTHER_SECRET, SECRET], NOW),
    secret: SECRET,
    expect: 'ok',
  },
  {
    name: 'unknown scheme and spaces',
    body: BODY,
    header: `t=${NOW}, v0=abc, ${signPayload(BODY, SECRET, NOW).split(',')[1]}`,
    secret: SECRET,
    expect: 'ok',
  },
  { name: 'secret list', body: BODY, header: signPayload(BODY, SECRET, NOW), secret: [OTHER_SECRET, SECRET], expect: 'ok' },
  {
    name: 'tampered body',
    body: BODY.replace('42', '43'),
    header: signPayload(BODY, SECRET, NOW),
    secret: SECRET,
    expect: 'no_matching_signature',
  },
  { name: 'wrong secret', body: BODY, header: signPayload(BODY, SECRET, NOW), secret: OTHER_SECRET, expect: 'no_matching_signature' },
  { name: 'stale', body: BODY, header: signPayload(BODY, SECRET, NOW - 301), secret: SECRET, expect: 'timestamp_too_old' },
  { name: 'future', body: BODY, header: signPayload(BODY, SECRET, NOW + 301), secret: SECRET, expect: 'timestamp_in_future' },
  {
    name: 'custom tolerance',
    body: BODY,
    header: signPayload(BODY, SECRET, NOW - 301),
    secret: SECRET,
    toleranceS: 600,
    expect: 'ok',
  },
  { name: 'missing header', body: BODY, header: null, secret: SECRET, expect: 'missing_header' },
  { name: 'garbled header', body: BODY, header: `t=abc,v1=${'0'.repeat(64)}`, secret: SECRET, expect: 'malformed_header' },
  { name: 'no t', body: BODY, header: `v1=${'0'.repeat(64)}`, secret: SECRET, expect: 'malformed_header' },
  { name: 'not json', body: 'not json', header: signPayload('not json', SECRET, NOW), secret: SECRET, expect: 'malformed_body' },
  {
    name: 'invalid UTF-8',
    body: Buffer.from([0x7b, 0xff, 0x7d]),
    header: signPayload(Buffer.from([0x7b, 0xff, 0x7d]), SECRET, NOW),
    secret: SECRET,
    expect: 'malformed_body',
  },
]

function nodeOutcome(c: Case): { ok: true; event: unknown } | { ok: false; code: string } {
  try {
    return { ok: true, event: verifyWebhook(c.body, c.header, c.secret, { toleranceS: c.toleranceS, now: () => NOW }) }
  } catch (err) {
    if (err instanceof WebhookVerificationError) return { ok: false, code: err.code }
    throw err
  }
}

async function cliOutcome(c: Case): Promise<unknown> {
  const request = {
    body_b64: Buffer.from(c.body).toString('base64'),
    header: c.header,
    secret: c.secret,
    now: NOW,
    ...(c.toleranceS === undefined ? {} : { tolerance_s: c.toleranceS }),
  }
  const res = await run(['verify_cli.py'], JSON.stringify(request))
  if (res.code !== 0) throw new Error(`verify_cli.py exited ${res.code}: ${res.stderr}`)
  const lines = res.stdout.trim().split('\n')
  if (lines.length !== 1) throw new Error(`verify_cli.py printed ${lines.length} lines: ${res.stdout}`)
  return JSON.parse(lines[0]!)
}

const problem = pythonProblem()
if (problem) {
  if (process.env.CI === 'true') {
    // The Python SDK ships with the platform, so CI must not pass without having tested it.
    t.fail(`${problem}; the Python webhook SDK cannot be tested (CI=true)`)
  } else {
    t.plan(0, `${problem}; skipping the Python webhook SDK tests`)
  }
} else {
  t.test('the Python unit tests pass', async (t) => {
    const res = await run(['-m', 'unittest', '-v', 'test_ozan_webhooks'], '')
    t.equal(res.code, 0, res.stderr)
    t.match(res.stderr, /\nOK\b/)
  })

  t.test('verify_cli.py and the Node library agree on Node-signed deliveries', async (t) => {
    for (const c of cases) {
      const node = nodeOutcome(c)
      t.equal(node.ok ? 'ok' : node.code, c.expect, `node: ${c.name}`)
      t.same(await cliOutcome(c), node, `python: ${c.name}`)
    }
  })

  t.test('verify_cli.py uses the clock and the default tolerance when not given them', async (t) => {
    const now = Math.floor(Date.now() / 1000)
    const request = (ts: number) => JSON.stringify({ body_b64: Buffer.from(BODY).toString('base64'), header: signPayload(BODY, SECRET, ts), secret: SECRET })
    t.same(JSON.parse((await run(['verify_cli.py'], request(now))).stdout), { ok: true, event: JSON.parse(BODY) })
    t.same(JSON.parse((await run(['verify_cli.py'], request(now - 400))).stdout), { ok: false, code: 'timestamp_too_old' })
  })

  t.test('verify_cli.py exits 2 on input it cannot read', async (t) => {
    for (const input of ['not json', '{}', '{"body_b64": "!!", "secret": "x"}', '[]']) {
      const res = await run(['verify_cli.py'], input)
      t.equal(res.code, 2, input)
      t.equal(res.stdout, '', input)
      t.match(res.stderr, /verify_cli/, input)
    }
  })

  t.test('the Python sign_payload output verifies in Node, byte for byte the same header', async (t) => {
    const script = [
      'import base64, json, sys',
      'from ozan_webhooks import sign_payload',
      'req = json.load(sys.stdin)',
      'print(sign_payload(base64.b64decode(req["body_b64"]), req["secret"], req["t"]))',
    ].join('\n')
    const bodies = [BODY, Buffer.from(BODY, 'utf8'), '{"event":"x","data":{}}']
    for (const body of bodies) {
      for (const secret of [SECRET, [SECRET, OTHER_SECRET]]) {
        const input = JSON.stringify({ body_b64: Buffer.from(body).toString('base64'), secret, t: NOW })
        const res = await run(['-c', script], input)
        t.equal(res.code, 0, res.stderr)
        const header = res.stdout.trim()
        t.equal(header, signPayload(body, secret, NOW))
        t.same(verifyWebhook(body, header, SECRET, { now: () => NOW }), JSON.parse(body.toString()))
        t.throws(() => verifyWebhook(Buffer.concat([Buffer.from(body), Buffer.from(' ')]), header, SECRET, { now: () => NOW }), {
          code: 'no_matching_signature',
        })
      }
    }
  })
}
