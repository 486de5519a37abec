import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createHmac } from 'node:crypto'
import type { Test } from 'tap'
import { signatureHeader } from '../../api/webhooks/signing.js'
import { signPayload, verifyWebhook, WebhookVerificationError } from '../../sdk/node/src/index.js'

// Shared by the PHP, Go and .NET webhook checks (docs/webhook-verification.md): deliveries signed by
// the platform's own signer (api/webhooks/signing.ts, as the dispatcher sends them), fed as JSON lines
// to each language's CLI in one process, with each verdict checked against the expected code and
// against the Node library's outcome.

export const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
/** The secret being rotated out: the dispatcher signs with [new, previous] during the overlap. */
export const OLD_SECRET = 'whsec_2v1Zb0n9Qk3yR1m4T7w8X5c6V0b3N2m1'
const THIRD_SECRET = 'whsec_9dKx1Jq7Lm2Np3Rs4Tu5Vw6Xy7Za8Bc9'
export const NOW = 1_700_000_000
const TOLERANCE_S = 300
const REPO = path.resolve(import.meta.dirname, '../..')

/** The test vector printed in docs/webhook-verification.md. */
const VECTOR_BODY = '{"event":"session.ended","data":{"session_id":42,"caller":"çağrı"}}'
const VECTOR_HEADER = 't=1700000000,v1=6c62052be6725d305993190dfe08cfd41d9b5c93c21f57fae14672cf7130e53c'

export const BODY = JSON.stringify({
  event: 'call.ended',
  data: { call_id: 7, caller: 'çağrı', note: 'ğüşıöç 👋', nested: { list: [1, 2.5, true, null, 'q"b\\s\n'] }, empty: {} },
})

export interface PeerCase {
  name: string
  body: string | Buffer
  header: string | null
  secret: string | string[]
  toleranceS?: number
  /** Unix seconds; the CLI uses its clock when absent. */
  now?: number
  expect: 'ok' | WebhookVerificationError['code']
}

/** As the dispatcher signs: one v1 per live secret, newest first. */
const signed = (body: string, secrets: string[] = [SECRET], ts = NOW) => signatureHeader(secrets, ts, body)
const v1Part = (header: string) => header.split(',').find((p) => p.startsWith('v1='))!
const flipLastHex = (header: string) => header.slice(0, -1) + (header.endsWith('0') ? '1' : '0')

function deliveryCases(): PeerCase[] {
  const rotated = signed(BODY, [SECRET, OLD_SECRET])
  const decodedKey = Buffer.from(SECRET.slice('whsec_'.length), 'base64url')
  const decodedKeyV1 = createHmac('sha256', decodedKey).update(`${NOW}.${BODY}`).digest('hex')
  const c = (name: string, header: string | null, expect: PeerCase['expect'], more: Partial<PeerCase> = {}): PeerCase => ({
    name,
    body: BODY,
    header,
    secret: SECRET,
    now: NOW,
    expect,
    ...more,
  })
  return [
    c('the documented test vector', VECTOR_HEADER, 'ok', { body: VECTOR_BODY }),
    c('a delivery signed by the platform', signed(BODY), 'ok'),
    c('rotation: two v1 entries, checked with the new secret', rotated, 'ok'),
    c('rotation: two v1 entries, checked with the old secret', rotated, 'ok', { secret: OLD_SECRET }),
    c('rotation: two v1 entries, neither secret', rotated, 'no_matching_signature', { secret: THIRD_SECRET }),
    c('a list of secrets, the second matches', signed(BODY), 'ok', { secret: [OLD_SECRET, SECRET] }),
    c('a list of secrets, none matches', signed(BODY), 'no_matching_signature', { secret: [OLD_SECRET, THIRD_SECRET] }),
    c('body tampered', signed(BODY), 'no_matching_signature', { body: BODY.replace('"call_id":7', '"call_id":8') }),
    c('a space appended to the body', signed(BODY), 'no_matching_signature', { body: `${BODY} ` }),
    c('the body re-serialized', signed(BODY), 'no_matching_signature', { body: JSON.stringify(JSON.parse(BODY), null, 1) }),
    c('signature tampered', flipLastHex(signed(BODY)), 'no_matching_signature'),
    c('timestamp tampered', `t=${NOW + 1},${v1Part(signed(BODY))}`, 'no_matching_signature'),
    c('wrong secret', signed(BODY), 'no_matching_signature', { secret: OLD_SECRET }),
    c('the secret base64-decoded instead of used as text', `t=${NOW},v1=${decodedKeyV1}`, 'no_matching_signature'),
    c('forged, with a stale timestamp, is reported as forged', `t=1,v1=${'ab'.repeat(32)}`, 'no_matching_signature'),
    c('stale: one second beyond the tolerance', signed(BODY, [SECRET], NOW - TOLERANCE_S - 1), 'timestamp_too_old'),
    c('stale by a day', signed(BODY, [SECRET], NOW - 86_400), 'timestamp_too_old'),
    c('future: one second beyond the tolerance', signed(BODY, [SECRET], NOW + TOLERANCE_S + 1), 'timestamp_in_future'),
    c('a timestamp past 64 bits', signed(BODY, [SECRET], 1e20), 'timestamp_in_future'),
    c('exactly the tolerance in the past', signed(BODY, [SECRET], NOW - TOLERANCE_S), 'ok'),
    c('exactly the tolerance in the future', signed(BODY, [SECRET], NOW + TOLERANCE_S), 'ok'),
    c('a custom tolerance accepts an older delivery', signed(BODY, [SECRET], NOW - 301), 'ok', { toleranceS: 600 }),
    c('a tolerance of zero rejects one second old', signed(BODY, [SECRET], NOW - 1), 'timestamp_too_old', { toleranceS: 0 }),
    c('upper-case hex', `t=${NOW},${v1Part(signed(BODY)).toUpperCase().replace('V1=', 'v1=')}`, 'ok'),
    c('unknown schemes, spaces and tabs', ` t=${NOW} , v0=abc,\t${v1Part(signed(BODY))} ,v2=x`, 'ok'),
    c('a v1 that is not hex does not spoil a good one', `t=${NOW},v1=xyz,v1=${'zz'.repeat(32)},${v1Part(signed(BODY))}`, 'ok'),
    c('a v1 one byte short alone', `t=${NOW},${v1Part(signed(BODY)).slice(0, -2)}`, 'no_matching_signature'),
  ]
}

const GARBLED_HEADERS = [
  'hello world',
  `t=abc,v1=${'0'.repeat(64)}`,
  `v1=${'0'.repeat(64)}`,
  `t=${NOW}`,
  `t=-5,v1=${'0'.repeat(64)}`,
  `t=1.5,v1=${'0'.repeat(64)}`,
  `t=,v1=${'0'.repeat(64)}`,
  `t=${NOW},v1=`,
  `t=${NOW},t=${NOW},v1=${'0'.repeat(64)}`,
  `t=${NOW},v1=${'0'.repeat(64)},`,
  `t=${NOW},,v1=${'0'.repeat(64)}`,
  `t=${NOW};v1=${'0'.repeat(64)}`,
  `t=${NOW},garbage,v1=${'0'.repeat(64)}`,
  `t=${NOW},=x,v1=${'0'.repeat(64)}`,
  `t = ${NOW},v1=${'0'.repeat(64)}`,
  `t=١٢,v1=${'0'.repeat(64)}`,
  '=,=,=',
  ',,,',
]

/** Signed correctly, so only the body check can reject them. */
const BAD_BODIES: (string | Buffer)[] = [
  'not json',
  '',
  '[]',
  'null',
  '"session.ended"',
  '{"data":{}}',
  '{"event":5,"data":{}}',
  '{"event":null,"data":{}}',
  '{"event":"x"}',
  '{"event":"x","data":[]}',
  '{"event":"x","data":null}',
  '{"EVENT":"x","Data":{}}',
  '{"event":"x","data":{"n":NaN}}',
  '{"event":"x","data":{"n":01}}',
  '{"event":"x","data":{},}',
  "{'event':'x','data':{}}",
  '{"event":"x","data":{}} x',
  '{"event":"x\u0001","data":{}}',
  '\uFEFF{"event":"x","data":{}}',
  Buffer.from('{"event":"\xff","data":{}}', 'latin1'),
  Buffer.from([0x7b, 0xc3, 0x28, 0x7d]),
]

/** Unusual but valid bodies: the JSON reader must take all of them. */
const GOOD_BODIES = [
  '{"event":"x","data":{},"api_version":"2025-01"}',
  '\n {"event" : "x" ,\t"data" : { } }\r\n',
  '{"event":"a\\u00e7\\ud83d\\udc4b","data":{"k":"\\"\\\\\\/\\b\\f\\n\\r\\t"}}',
  '{"event":"x","data":{"a":-0.5e-3,"b":1E+2,"c":0,"d":-0,"e":[[],{}],"f":false}}',
  '{"data":{"first":true},"event":"x","event":"last wins"}',
]

export function peerCases(): PeerCase[] {
  const sign = (body: string | Buffer) => signPayload(body, SECRET, NOW)
  return [
    ...deliveryCases(),
    ...[null, '', ' \t'].map((header) => ({
      name: `missing header ${JSON.stringify(header)}`,
      body: BODY,
      header,
      secret: SECRET,
      now: NOW,
      expect: 'missing_header' as const,
    })),
    ...GARBLED_HEADERS.map((header) => ({
      name: `garbled header ${header}`,
      body: BODY,
      header,
      secret: SECRET,
      now: NOW,
      expect: 'malformed_header' as const,
    })),
    ...BAD_BODIES.map((body) => ({
      name: `bad body ${JSON.stringify(body.toString())}`,
      body,
      header: sign(body),
      secret: SECRET,
      now: NOW,
      expect: 'malformed_body' as const,
    })),
    ...GOOD_BODIES.map((body) => ({ name: `good body ${body}`, body, header: sign(body), secret: SECRET, now: NOW, expect: 'ok' as const })),
    // Without "now" the CLI uses its own clock.
    { name: 'signed now, checked by the clock', body: BODY, header: signed(BODY, [SECRET], Math.floor(Date.now() / 1000)), secret: SECRET, expect: 'ok' },
    {
      name: 'signed 400 s ago, checked by the clock',
      body: BODY,
      header: signed(BODY, [SECRET], Math.floor(Date.now() / 1000) - 400),
      secret: SECRET,
      expect: 'timestamp_too_old',
    },
  ]
}

export type Outcome = { ok: true; event: { event: string; data: unknown } } | { ok: false; code: string }

export function nodeOutcome(c: PeerCase): Outcome {
  try {
    const { event, data } = verifyWebhook(c.body, c.header, c.secret, { toleranceS: c.toleranceS, now: c.now === undefined ? undefined : () => c.now! })
    return { ok: true, event: { event, data } }
  } catch (err) {
    if (err instanceof WebhookVerificationError) return { ok: false, code: err.code }
    throw err
  }
}

/** One CLI request line, the same shape as sdk/python/verify_cli.py reads. */
export function requestLine(c: PeerCase): string {
  return JSON.stringify({
    body_b64: Buffer.from(c.body).toString('base64'),
    header: c.header,
    secret: c.secret,
    ...(c.now === undefined ? {} : { now: c.now }),
    ...(c.toleranceS === undefined ? {} : { tolerance_s: c.toleranceS }),
  })
}

/** Compares what a CLI printed with only the event and data, the fields every language returns. */
export function comparable(printed: unknown): Outcome {
  const o = printed as { ok: boolean; code?: string; event?: { event: string; data: unknown } }
  return o.ok ? { ok: true, event: { event: o.event!.event, data: o.event!.data } } : { ok: false, code: o.code! }
}

export interface Run {
  code: number | null
  stdout: string
  stderr: string
}

export function run(command: string, args: string[], input: string, options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env })
    let stdout = ''
    let stderr = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000)
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

/** Each command answering its version flag, or why not (the Debian package to install). */
export function toolchainProblem(commands: { command: string; args: string[]; pkg: string }[]): string | null {
  for (const { command, args, pkg } of commands) {
    const probe = spawnSync(command, args, { encoding: 'utf8' })
    if (probe.error || probe.status !== 0) return `${command} is not on PATH (Debian package ${pkg})`
  }
  return null
}

const BODY_B64 = Buffer.from(BODY).toString('base64')

/** Lines a CLI can never read, by name: each must exit 2 rather than print a verdict. */
export const UNREADABLE_LINES: [string, string][] = [
  ['not JSON', 'not json'],
  ['body_b64 not base64', JSON.stringify({ body_b64: '!!', header: null, secret: SECRET })],
  ['an array', '[]'],
  ['no body_b64', '{}'],
  ['an empty secret', JSON.stringify({ body_b64: BODY_B64, header: signed(BODY), secret: '' })],
  ['no secrets', JSON.stringify({ body_b64: BODY_B64, header: signed(BODY), secret: [] })],
  ['an empty secret in the list', JSON.stringify({ body_b64: BODY_B64, header: signed(BODY), secret: [SECRET, ''] })],
]

export interface PeerCli {
  command: string
  args: string[]
  cwd?: string
  env?: NodeJS.ProcessEnv
}

export interface PeerSuite {
  /** e.g. 'PHP', for messages. */
  language: string
  toolchain: { command: string; args: string[]; pkg: string }[]
  /** The files docs/webhook-verification.md must link to, relative to the repository. */
  files: string[]
  /** How the verifier is defined in its language: the doc must not carry a second, untested copy. */
  definition: RegExp
  /** Compiles the CLI into dir (a fresh temporary directory) if the language needs it. */
  build: (t: Test, dir: string) => Promise<PeerCli>
}

/**
 * The whole check for one language: build once, every case through one process, then the lines the
 * CLI must refuse. With CI=true a missing toolchain fails; elsewhere the file is skipped with why.
 */
export function peerSuite(t: Test, suite: PeerSuite): void {
  const problem = toolchainProblem(suite.toolchain)
  if (problem) {
    if (process.env.CI === 'true') {
      // The snippets ship in the docs, so CI must not pass without having run them.
      t.fail(`${problem}; the ${suite.language} webhook check cannot be tested (CI=true)`)
    } else {
      t.plan(0, `${problem}; skipping the ${suite.language} webhook check`)
    }
    return
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ozan-webhook-peer-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  let cli: PeerCli | undefined

  t.before(async () => {
    cli = await suite.build(t, dir)
  })

  t.test(`${suite.language} agrees with the expected verdict and with Node on every delivery`, async (t) => {
    const cases = peerCases()
    const res = await run(cli!.command, cli!.args, `${cases.map(requestLine).join('\n')}\n`, cli!)
    t.equal(res.code, 0, res.stderr)
    t.equal(res.stderr, '', 'nothing on stderr')
    const lines = res.stdout.split('\n').filter((l) => l !== '')
    t.equal(lines.length, cases.length, 'one verdict per delivery')
    cases.forEach((c, i) => {
      const node = nodeOutcome(c)
      t.equal(node.ok ? 'ok' : node.code, c.expect, `node: ${c.name}`)
      const line = lines[i]
      if (line === undefined) return
      const printed = comparable(JSON.parse(line))
      t.equal(printed.ok ? 'ok' : printed.code, c.expect, `${suite.language}: ${c.name}`)
      t.same(printed, node, `${suite.language} returns what Node returns: ${c.name}`)
    })
  })

  t.test(`docs/webhook-verification.md points to the tested ${suite.language} files`, async (t) => {
    const doc = readFileSync(path.join(REPO, 'docs/webhook-verification.md'), 'utf8')
    for (const file of suite.files) t.ok(doc.includes(`](../${file})`), `links ${file}`)
    t.notMatch(doc, suite.definition, 'no copy of the verifier in the doc')
  })

  t.test(`the ${suite.language} CLI exits 2 on input it cannot read, and on an empty secret`, async (t) => {
    for (const [name, line] of UNREADABLE_LINES) {
      const res = await run(cli!.command, cli!.args, `${line}\n`, cli!)
      t.equal(res.code, 2, `exit 2: ${name}`)
      t.equal(res.stdout, '', `no verdict: ${name}`)
      t.not(res.stderr, '', `a reason on stderr: ${name}`)
    }
  })
}
