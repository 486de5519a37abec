import t from 'tap'
import { createHmac } from 'node:crypto'
import { DEFAULT_TOLERANCE_S, signPayload, verifyWebhook, WebhookVerificationError, type VerifyOptions } from '../../sdk/node/src/index.js'

// The same cases as sdk/python/test_ozan_webhooks.py, so the two libraries keep one set of rules.

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
const OTHER_SECRET = 'whsec_2v1Zb0n9Qk3yR1m4T7w8X5c6V0b3N2m1'
const NOW = 1_700_000_000
const EVENT = { event: 'session.ended', data: { session_id: 42, caller: 'çağrı' } }
const TEXT = JSON.stringify(EVENT)
const BODY = Buffer.from(TEXT, 'utf8')
// Computed independently: printf '%s' '1700000000.<BODY>' | openssl dgst -sha256 -hmac <SECRET>
const KNOWN_V1 = '6c62052be6725d305993190dfe08cfd41d9b5c93c21f57fae14672cf7130e53c'

const at = (now: number): VerifyOptions => ({ now: () => now })
const v1 = (body: string | Buffer, secret = SECRET, ts = NOW) => signPayload(body, secret, ts).split(',')[1]!

function codeOf(
  body: string | Buffer | Uint8Array,
  header: string | null | undefined,
  secret: string | string[] = SECRET,
  options: VerifyOptions = at(NOW),
): string {
  try {
    verifyWebhook(body, header, secret, options)
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.code
    throw err
  }
  return 'accepted'
}

t.test('signPayload matches an independently computed signature', async (t) => {
  t.equal(signPayload(BODY, SECRET, NOW), `t=${NOW},v1=${KNOWN_V1}`)
  t.equal(signPayload(TEXT, SECRET, NOW), `t=${NOW},v1=${KNOWN_V1}`)
})

t.test('a genuine delivery is accepted as a Buffer, a string or a Uint8Array', async (t) => {
  const header = signPayload(BODY, SECRET, NOW)
  t.same(verifyWebhook(BODY, header, SECRET, at(NOW)), EVENT)
  t.same(verifyWebhook(TEXT, header, SECRET, at(NOW)), EVENT)
  // A view into a larger buffer, as body parsers can hand over: only its own bytes count.
  const padded = Buffer.concat([Buffer.from('xx'), BODY, Buffer.from('yy')])
  t.same(verifyWebhook(new Uint8Array(padded.buffer, padded.byteOffset + 2, BODY.length), header, SECRET, at(NOW)), EVENT)
  t.equal(verifyWebhook(BODY, header, SECRET, at(NOW)).data.caller, 'çağrı')
})

t.test('without options the clock and the default tolerance are used', async (t) => {
  t.equal(DEFAULT_TOLERANCE_S, 300)
  const now = Math.floor(Date.now() / 1000)
  t.same(verifyWebhook(BODY, signPayload(BODY, SECRET, now), SECRET), EVENT)
  t.equal(codeOf(BODY, signPayload(BODY, SECRET, now - 400), SECRET, {}), 'timestamp_too_old')
})

t.test('two v1 values where only the second matches', async (t) => {
  t.same(verifyWebhook(BODY, `t=${NOW},v1=${'0'.repeat(64)},${v1(BODY)}`, SECRET, at(NOW)), EVENT)
})

t.test('a rotation header signed with two secrets verifies with either', async (t) => {
  const header = signPayload(BODY, [OTHER_SECRET, SECRET], NOW)
  t.equal(header.match(/v1=/g)?.length, 2)
  t.equal(codeOf(BODY, header, SECRET), 'accepted')
  t.equal(codeOf(BODY, header, OTHER_SECRET), 'accepted')
})

t.test('unknown schemes are ignored', async (t) => {
  t.equal(codeOf(BODY, `t=${NOW},v0=deadbeef,${v1(BODY)},v2=whatever`), 'accepted')
})

t.test('a v1 that is not 64 hex characters does not match, and does not spoil the others', async (t) => {
  for (const bad of ['abc', 'zz'.repeat(32), KNOWN_V1.slice(0, -2), KNOWN_V1 + '00']) {
    t.equal(codeOf(BODY, `t=${NOW},v1=${bad}`), 'no_matching_signature', bad)
  }
  t.equal(codeOf(BODY, `t=${NOW},v1=xyz,${v1(BODY)}`), 'accepted')
  t.equal(codeOf(BODY, `t=${NOW},v1=${KNOWN_V1.toUpperCase()}`), 'accepted')
})

t.test('a tampered body or timestamp is rejected', async (t) => {
  const header = signPayload(BODY, SECRET, NOW)
  t.equal(codeOf(TEXT.replace('42', '43'), header), 'no_matching_signature')
  t.equal(codeOf(TEXT + ' ', header), 'no_matching_signature')
  // Re-serialized JSON is equal as data but not as bytes.
  t.equal(codeOf(JSON.stringify(EVENT, null, 1), header), 'no_matching_signature')
  t.equal(codeOf(BODY, `t=${NOW + 1},${v1(BODY)}`), 'no_matching_signature')
})

t.test('the wrong secret is rejected', async (t) => {
  t.equal(codeOf(BODY, signPayload(BODY, SECRET, NOW), OTHER_SECRET), 'no_matching_signature')
})

t.test('the secret is used as text, not decoded', async (t) => {
  const decoded = Buffer.from(SECRET.slice('whsec_'.length), 'base64url')
  const digest = createHmac('sha256', decoded).update(`${NOW}.`).update(BODY).digest('hex')
  t.equal(codeOf(BODY, `t=${NOW},v1=${digest}`), 'no_matching_signature')
})

t.test('a forged header is reported as forged even when its timestamp is stale', async (t) => {
  t.equal(codeOf(BODY, `t=1,v1=${'ab'.repeat(32)}`), 'no_matching_signature')
})

t.test('stale and future timestamps', async (t) => {
  t.equal(codeOf(BODY, signPayload(BODY, SECRET, NOW - DEFAULT_TOLERANCE_S - 1)), 'timestamp_too_old')
  t.equal(codeOf(BODY, signPayload(BODY, SECRET, NOW + DEFAULT_TOLERANCE_S + 1)), 'timestamp_in_future')
  // The edges themselves are inside.
  t.equal(codeOf(BODY, signPayload(BODY, SECRET, NOW - DEFAULT_TOLERANCE_S)), 'accepted')
  t.equal(codeOf(BODY, signPayload(BODY, SECRET, NOW + DEFAULT_TOLERANCE_S)), 'accepted')
  // A fractional clock is compared as is.
  const header = signPayload(BODY, SECRET, NOW)
  t.equal(codeOf(BODY, header, SECRET, at(NOW + 300)), 'accepted')
  t.equal(codeOf(BODY, header, SECRET, at(NOW + 300.5)), 'timestamp_too_old')
})

t.test('a custom tolerance', async (t) => {
  const header = signPayload(BODY, SECRET, NOW - 100)
  t.equal(codeOf(BODY, header, SECRET, { toleranceS: 100, now: () => NOW }), 'accepted')
  t.equal(codeOf(BODY, header, SECRET, { toleranceS: 99, now: () => NOW }), 'timestamp_too_old')
  t.equal(codeOf(BODY, signPayload(BODY, SECRET, NOW + 11), SECRET, { toleranceS: 10, now: () => NOW }), 'timestamp_in_future')
  t.equal(codeOf(BODY, signPayload(BODY, SECRET, NOW - 1), SECRET, { toleranceS: 0, now: () => NOW }), 'timestamp_too_old')
  for (const toleranceS of [-1, NaN, Infinity]) {
    t.throws(() => verifyWebhook(BODY, header, SECRET, { toleranceS }), RangeError)
  }
})

t.test('a missing header', async (t) => {
  for (const header of [null, undefined, '', '   ', '\t']) {
    t.equal(codeOf(BODY, header), 'missing_header', JSON.stringify(header))
  }
})

t.test('garbled headers', async (t) => {
  const sig = v1(BODY)
  const headers = [
    `t=abc,${sig}`,
    sig,
    `t=${NOW}`,
    'hello world',
    `t=-5,${sig}`,
    `t=1.5,${sig}`,
    `t=,${sig}`,
    `t=${NOW},v1=`,
    `t=${NOW},t=${NOW},${sig}`,
    `t=${NOW},${sig},`,
    `t=${NOW},,${sig}`,
    `t=${NOW};${sig}`,
    `t=${NOW},garbage,${sig}`,
    `t=${NOW},=x,${sig}`,
    `t = ${NOW},${sig}`,
    `t=١٢,${sig}`,
  ]
  for (const header of headers) t.equal(codeOf(BODY, header), 'malformed_header', header)
})

t.test('spaces and tabs around commas are accepted', async (t) => {
  t.equal(codeOf(BODY, ` t=${NOW} , v0=1,\t${v1(BODY)} `), 'accepted')
})

t.test('a list of secrets accepts a match with any of them', async (t) => {
  const header = signPayload(BODY, SECRET, NOW)
  t.equal(codeOf(BODY, header, [OTHER_SECRET, SECRET]), 'accepted')
  t.equal(codeOf(BODY, header, [OTHER_SECRET]), 'no_matching_signature')
})

t.test('an empty secret is a setup error, not a verdict', async (t) => {
  const header = signPayload(BODY, SECRET, NOW)
  for (const secret of ['', [], [SECRET, '']]) {
    t.throws(() => verifyWebhook(BODY, header, secret, at(NOW)), TypeError)
  }
  t.throws(() => signPayload(BODY, '', NOW), TypeError)
})

t.test('a validly signed body that is not an event', async (t) => {
  const bodies = [
    'not json',
    '[]',
    'null',
    '"session.ended"',
    '{"data":{}}',
    '{"event":5,"data":{}}',
    '{"event":"x"}',
    '{"event":"x","data":[]}',
    '{"event":"x","data":{"n":NaN}}',
    '\uFEFF{"event":"x","data":{}}',
    Buffer.from('{"event":"\xff","data":{}}', 'latin1'),
    '',
  ]
  for (const body of bodies) {
    t.equal(codeOf(body, signPayload(body, SECRET, NOW)), 'malformed_body', String(body))
  }
})

t.test('fields beyond event and data are kept', async (t) => {
  const body = '{"event":"x","data":{},"api_version":"2025-01"}'
  const event = verifyWebhook(body, signPayload(body, SECRET, NOW), SECRET, at(NOW)) as unknown as Record<string, unknown>
  t.equal(event.api_version, '2025-01')
})

t.test('the error carries its code', async (t) => {
  const err = new WebhookVerificationError('malformed_body', 'nope')
  t.ok(err instanceof Error)
  t.same([err.name, err.code, err.message], ['WebhookVerificationError', 'malformed_body', 'nope'])
})

t.test('signPayload wants whole unix seconds', async (t) => {
  for (const ts of [1.5, -1, NaN]) t.throws(() => signPayload(BODY, SECRET, ts), RangeError)
})
