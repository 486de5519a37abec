import t from 'tap'
import { CLOSE_CODES, CONNECTION_FAILED, closeError } from '../../client/src/close-codes.js'
import { CloseCode, CloseReason } from '../../engine/server/protocol.js'

// What the browser library reports for each way the socket closes (docs/protocol.md §5).

t.test("every close code the engine sends has an entry whose code is the engine's own reason", async (t) => {
  for (const [code, reason] of Object.entries(CloseReason)) {
    const n = Number(code)
    if (n === CloseCode.normal) continue
    t.equal(CLOSE_CODES[n]?.code, reason, `${n} → ${reason}`)
    t.ok(CLOSE_CODES[n]!.message.length > 10, `${n} has a message for people`)
  }
})

t.test('a close after opening reports the close reason as the code', async (t) => {
  for (const [code, reason] of [
    [4001, 'token_invalid'],
    [4002, 'token_expired'],
    [4003, 'token_used'],
    [4004, 'token_foreign'],
    [4005, 'protocol_version_unsupported'],
    [4029, 'concurrency_limit'],
    [4400, 'protocol_error'],
    [1001, 'server_shutdown'],
    [1009, 'message_too_large'],
    [1011, 'internal_error'],
  ] as const) {
    t.same(closeError(code, reason, true), { code: reason, message: CLOSE_CODES[code]!.message }, `${code} ${reason}`)
    // A proxy may strip the reason: the code alone still says what happened.
    t.equal(closeError(code, '', true)?.code, reason, `${code} without a reason`)
  }
})

t.test('1006 (no close frame: the network dropped) after opening is connection_lost', async (t) => {
  t.same(closeError(1006, '', true), CLOSE_CODES[1006])
  t.equal(CLOSE_CODES[1006]!.code, 'connection_lost')
})

t.test('a socket that never opened failed to connect, whatever code the browser reports', async (t) => {
  for (const code of [1006, 1015, 1000, 4001]) t.same(closeError(code, '', false), CONNECTION_FAILED)
  t.equal(CONNECTION_FAILED.code, 'connection_failed')
})

t.test('1000 and 1005 are normal ends: no error', async (t) => {
  t.equal(closeError(1000, 'normal', true), null)
  t.equal(closeError(1005, '', true), null)
})

t.test('an unknown code keeps a well-formed reason and never trusts a malformed one', async (t) => {
  t.same(closeError(4999, 'maintenance_window', true), { code: 'maintenance_window', message: 'The voice server closed the call (code 4999).' })
  t.equal(closeError(4999, 'Bad <b>thing</b>', true)?.code, 'connection_closed')
  t.equal(closeError(4003, 'Token Used!', true)?.code, 'token_used')
})
