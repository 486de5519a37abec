import t from 'tap'
import net from 'node:net'
import { configureCredentials, describeAnswer } from '../../../scripts/stand-ins/configure.js'

const URL_ = 'http://127.0.0.1:8091'

t.test('each answer of PUT /credentials is told in one sentence that says what to do', async (t) => {
  t.same(describeAnswer('deepgram', URL_, 200, {}), { ok: true, message: `stored the organization's deepgram credential (base_url ${URL_})` })
  t.match(describeAnswer('deepgram', URL_, 401, { error: { code: 'authentication_required' } }), {
    ok: false,
    message: /refused the key \(401 authentication_required\): check --api-key/,
  })
  t.match(describeAnswer('openai', URL_, 403, { error: { code: 'permission_denied' } }), { ok: false, message: /credentials:write/ })
  const guard = { detail: [{ type: 'destination_refused', loc: ['body', 'fields', 'base_url'], msg: 'loopback address' }] }
  t.match(describeAnswer('deepgram', URL_, 422, guard), {
    ok: false,
    message:
      /refused base_url http:\/\/127\.0\.0\.1:8091 \(422 destination_refused: loopback address\): start Ozan with OZAN_ALLOW_PRIVATE_CIDRS=127\.0\.0\.0\/8/,
  })
  t.match(describeAnswer('deepgram', URL_, 422, { detail: [{ type: 'insecure_url', msg: 'Use https' }] }).message, /insecure_url.*OZAN_ALLOW_PRIVATE_CIDRS/)
  t.match(
    describeAnswer('openai', URL_, 422, { detail: [{ type: 'string_too_long', msg: 'too long' }] }).message,
    /refused the openai credential \(422 string_too_long/,
  )
  t.match(
    describeAnswer('openai', URL_, 500, { error: { code: 'internal_error', message: 'Something went wrong.' } }).message,
    /answered 500 internal_error: Something/,
  )
  t.match(describeAnswer('openai', URL_, 502, null).message, /answered 502$/)
})

t.test('an API that cannot be reached is reported as such, without the key', async (t) => {
  const probe = net.createServer()
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
  const { port } = probe.address() as net.AddressInfo
  await new Promise<void>((r) => probe.close(() => r()))
  const e = { openaiUrl: 'http://127.0.0.1:1/v1', deepgramUrl: URL_, openaiKey: 'sk', deepgramKey: 'dg', apiUrl: `http://127.0.0.1:${port}` }
  const outcomes = await configureCredentials(e, 'ozan_never_shown_9')
  t.equal(outcomes.length, 1, 'stops at the first failure')
  t.match(outcomes[0], { ok: false, message: new RegExp(`cannot reach Ozan at http://127\\.0\\.0\\.1:${port} \\(.*ECONNREFUSED.*\\): is it running`) })
  t.notMatch(outcomes[0]!.message, /ozan_never_shown_9/)
})
