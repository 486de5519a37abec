/**
 * The same protocol suite against both socket implementations (uWS and ws): every behaviour the
 * web-call protocol documents must hold whichever library carries the socket.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { SignJWT } from 'jose'
import { AccessTokens } from '../../../api/security/access-tokens.js'
import { WebCallTokens } from '../../../engine/calls/index.js'
import {
  MAX_AUDIO_FRAME_BYTES,
  MAX_CONSECUTIVE_ERRORS,
  MAX_PAYLOAD_BYTES,
  createSocketServer,
  createWebCallGate,
  type SocketKind,
  type WebCall,
} from '../../../engine/server/index.js'
import { TestClient, tokenFixture, until } from './helpers.js'

const PATH = '/v1/calls/ws'

async function setup(t: Test, kind: SocketKind, opts: { cap?: number | null; highWaterBytes?: number; maxQueueBytes?: number } = {}) {
  const f = tokenFixture(t, opts)
  const calls: (WebCall & { audio: Int16Array[]; controls: unknown[]; closes: { code: number; reason: string }[] })[] = []
  const gate = createWebCallGate({
    tokens: f.tokens,
    liveCalls: f.liveCalls,
    writer: { highWaterBytes: opts.highWaterBytes ?? 64 * 1024, maxQueueBytes: opts.maxQueueBytes ?? 256 * 1024 },
    onCall(call) {
      const rec = { ...call, audio: [] as Int16Array[], controls: [] as unknown[], closes: [] as { code: number; reason: string }[] }
      const defaults = call.channel.handlers
      call.channel.handlers = {
        audio: (pcm) => rec.audio.push(pcm),
        control: (m) => {
          rec.controls.push(m)
          defaults.control(m)
        },
        closed: (code, reason) => rec.closes.push({ code, reason }),
      }
      calls.push(rec)
    },
  })
  const server = await createSocketServer(gate, { prefer: kind, path: PATH, maxPayloadBytes: MAX_PAYLOAD_BYTES })
  const port = await server.listen('127.0.0.1', 0)
  let closed = false
  const close = async () => {
    if (!closed) await server.close()
    closed = true
  }
  t.teardown(close)
  const clients: TestClient[] = []
  t.teardown(() => clients.forEach((c) => c.ws.terminate()))
  const connect = (query: string) => {
    const c = TestClient.connect(`ws://127.0.0.1:${port}${PATH}?${query}`)
    clients.push(c)
    return c
  }
  const mint = async (extra: { variables?: Record<string, unknown>; ttlS?: number } = {}) => (await f.tokens.mint({ ...f.binding, ...extra })).token
  /** Connects with a fresh token and waits for the server's hello. */
  const open = async () => {
    const c = connect(`token=${await mint()}&v=1`)
    await c.event((e) => e.type === 'hello')
    return { c, call: calls.at(-1)! }
  }
  return { ...f, server, port, calls, connect, mint, open, close }
}

const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url')

for (const kind of ['uws', 'ws'] as const) {
  t.test(kind, async (t) => {
    t.test('the preferred implementation runs (uWS has a binary for this Node)', async (t) => {
      const s = await setup(t, kind)
      t.equal(s.server.kind, kind)
      t.equal(s.server.fallbackReason, undefined)
    })

    t.test('a valid token opens the call: hello, connecting, and the token binding reaches the session', async (t) => {
      const s = await setup(t, kind)
      const c = s.connect(`token=${await s.mint({ variables: { name: 'Ada' } })}&v=1`)
      const hello = await c.event((e) => e.type === 'hello')
      t.match(hello, { protocol: 1, audio: { encoding: 'pcm_s16le', sample_rate_hz: 16000, channels: 1 }, max_frame_bytes: MAX_AUDIO_FRAME_BYTES })
      await c.event((e) => e.type === 'status' && e.status === 'connecting')
      const call = s.calls[0]!
      t.equal(call.callId, hello.call_id)
      t.match(call.claims, s.binding)
      t.same(call.variables, { name: 'Ada' })
      t.equal(s.liveCalls.count(s.binding.organizationId), 1)
      c.ws.close(1000)
      await until(() => s.liveCalls.count(s.binding.organizationId) === 0)
      t.same(
        call.closes.map((x) => x.code),
        [1000],
        'the session saw the close once',
      )
    })

    t.test('refused tokens: the socket opens and closes at once with the documented code and reason', async (t) => {
      const s = await setup(t, kind)
      const expect = async (query: string, code: number, reason: string, what: string) => {
        const closed = await s.connect(query).closed
        t.same(closed, { code, reason }, what)
      }
      const good = await s.mint()
      const [h, p] = good.split('.') as [string, string, string]
      await expect('v=1', 4001, 'token_invalid', 'no token')
      await expect('token=garbage', 4001, 'token_invalid', 'malformed')
      await expect(`token=${h}.${p}.${Buffer.alloc(32).toString('base64url')}`, 4001, 'token_invalid', 'bad signature')
      const forged = await new SignJWT(JSON.parse(Buffer.from(p, 'base64url').toString())).setProtectedHeader({ alg: 'HS256' }).sign(randomBytes(32))
      await expect(`token=${forged}`, 4001, 'token_invalid', 'signed with another key')
      await expect(`token=${b64url({ alg: 'none', typ: 'JWT' })}.${p}.`, 4001, 'token_invalid', 'alg none')
      const otherEngine = new WebCallTokens({ key: s.key, repo: s.repos.webCallTokens, clock: s.clock, audience: 'another-engine' })
      await expect(`token=${(await otherEngine.mint(s.binding)).token}`, 4004, 'token_foreign', 'minted for another audience')
      const access = await new AccessTokens(s.key, 900, s.clock).issue({ userId: 'u', organizationId: s.binding.organizationId, sessionId: 's' })
      await expect(`token=${access}`, 4004, 'token_foreign', 'an access token')
      await expect(`token=${good}&v=2`, 4005, 'protocol_version_unsupported', 'unknown protocol version')
      t.equal(s.calls.length, 0, 'no session opened')
      // The refusals above did not use the token up.
      const c = s.connect(`token=${good}`)
      await c.event((e) => e.type === 'hello')
      c.ws.close()
      await expect(`token=${good}`, 4003, 'token_used', 'reused')
      const short = await s.mint({ ttlS: 5 })
      s.clock.advance(5_000)
      await expect(`token=${short}`, 4002, 'token_expired', 'expired')
    })

    t.test('the live-call cap is checked on connect (4029) and a refused token stays usable', async (t) => {
      const s = await setup(t, kind, { cap: 1 })
      const first = await s.open()
      const token = await s.mint()
      t.same(await s.connect(`token=${token}`).closed, { code: 4029, reason: 'concurrency_limit' })
      t.equal(s.liveCalls.hasRoom(s.binding.organizationId), false, 'minting would be refused too')
      first.c.ws.close()
      await until(() => s.liveCalls.hasRoom(s.binding.organizationId))
      const again = s.connect(`token=${token}`)
      await again.event((e) => e.type === 'hello')
    })

    t.test('an odd byte count is an error event; the session stays open and takes the next frame', async (t) => {
      const s = await setup(t, kind)
      const { c, call } = await s.open()
      c.ws.send(Buffer.alloc(641))
      t.match(await c.event((e) => e.type === 'error'), { code: 'bad_audio_frame' })
      c.ws.send(Buffer.from([0x01, 0x00, 0xff, 0xff]))
      await until(() => call.audio.length === 1)
      t.same(Array.from(call.audio[0]!), [1, -1])
    })

    t.test('oversized frames: above the frame limit an error event, above the payload limit close 1009 message_too_large', async (t) => {
      const s = await setup(t, kind)
      const { c, call } = await s.open()
      c.ws.send(Buffer.alloc(MAX_AUDIO_FRAME_BYTES + 2))
      t.match(await c.event((e) => e.type === 'error'), { code: 'frame_too_large' })
      c.ws.send(Buffer.alloc(MAX_AUDIO_FRAME_BYTES))
      await until(() => call.audio.length === 1)
      c.ws.send(Buffer.alloc(MAX_PAYLOAD_BYTES + 2))
      t.same(await c.closed, { code: 1009, reason: 'message_too_large' })
    })

    t.test('bad text: garbage, unknown types, wrong fields and oversized text are error events', async (t) => {
      const s = await setup(t, kind)
      const { c, call } = await s.open()
      const sends = ['not json', '[1]', '{"type":"dance"}', '{"type":"mute","muted":"yes"}', JSON.stringify({ type: 'ping', pad: 'x'.repeat(5000) })]
      for (const m of sends) c.ws.send(m)
      await until(() => c.events.filter((e) => e.type === 'error').length === sends.length)
      t.same(
        c.events.filter((e) => e.type === 'error').map((e) => e.code),
        ['bad_message', 'bad_message', 'unknown_message', 'bad_message', 'message_too_large'],
      )
      c.ws.send('{"type":"ping","id":7}')
      t.match(await c.event((e) => e.type === 'pong'), { id: 7 })
      c.ws.send('{"type":"mute","muted":true}')
      c.ws.send(Buffer.alloc(640))
      c.ws.send('{"type":"mute","muted":false}')
      c.ws.send(Buffer.alloc(320))
      await until(() => call.audio.length === 1)
      t.equal(call.audio[0]!.length, 160, 'audio sent while muted was discarded')
      t.same(call.controls, [
        { type: 'mute', muted: true },
        { type: 'mute', muted: false },
      ])
    })

    t.test(`${MAX_CONSECUTIVE_ERRORS} malformed messages in a row close with 4400; a good one resets the count`, async (t) => {
      const s = await setup(t, kind)
      const { c } = await s.open()
      for (let i = 0; i < MAX_CONSECUTIVE_ERRORS - 1; i++) c.ws.send(Buffer.alloc(3))
      c.ws.send('{"type":"ping"}')
      for (let i = 0; i < MAX_CONSECUTIVE_ERRORS - 1; i++) c.ws.send('{')
      await c.event((e) => e.type === 'pong')
      await until(() => c.events.filter((e) => e.type === 'error').length === 2 * (MAX_CONSECUTIVE_ERRORS - 1))
      t.equal(c.ws.readyState, c.ws.OPEN)
      c.ws.send('{')
      t.same(await c.closed, { code: 4400, reason: 'protocol_error' })
      t.match(c.events.at(-1), { type: 'ended', reason: 'protocol_error' })
    })

    t.test('invalid UTF-8 in a text message fails the connection (RFC 6455 §8.1); the session is told 1007 invalid_utf8', async (t) => {
      const s = await setup(t, kind)
      const { c, call } = await s.open()
      c.ws.send(Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]), { binary: false })
      // ws sends the 1007 close frame; uWS checks UTF-8 natively and drops the TCP connection
      // without one (no option turns the check off), so its client sees 1006 (docs/protocol.md §5).
      t.same(await c.closed, kind === 'ws' ? { code: 1007, reason: '' } : { code: 1006, reason: '' })
      await until(() => call.closes.length === 1)
      t.same(call.closes, [{ code: 1007, reason: 'invalid_utf8' }], 'the same cause whichever transport carried it')
      t.equal(call.audio.length + call.controls.length, 0, 'nothing of the message reached the session')
      await until(() => s.liveCalls.count(s.binding.organizationId) === 0)
    })

    t.test('stop ends the call: ended, close 1000, the live-call slot is released', async (t) => {
      const s = await setup(t, kind)
      const { c } = await s.open()
      c.ws.send('{"type":"stop"}')
      t.same(await c.closed, { code: 1000, reason: 'normal' })
      t.match(c.events.at(-1), { type: 'ended', reason: 'client_stop' })
      t.equal(s.liveCalls.count(s.binding.organizationId), 0)
    })

    t.test('backpressure: a client that stops reading pauses the writer; reading again drains it all', async (t) => {
      const s = await setup(t, kind)
      const { c, call } = await s.open()
      c.keepBinaries = false
      c.socket.pause()
      const writer = call.channel.audio
      const chunk = new Uint8Array(MAX_AUDIO_FRAME_BYTES).fill(1)
      let written = 0
      let stop = false
      const producer = (async () => {
        // Bounded so a broken writer fails the test instead of eating memory.
        while (!stop && written < 512 * 1024 * 1024) if (await writer.write(chunk)) written += chunk.byteLength
      })()
      await until(() => writer.paused && writer.queuedBytes >= 256 * 1024 - chunk.byteLength, 20_000)
      t.ok(call.channel.closed === false)
      const stalledAt = written
      await new Promise((r) => setTimeout(r, 100))
      t.equal(written, stalledAt, 'the producer waits while the socket is full')
      stop = true
      c.socket.resume()
      await producer
      await until(() => c.binaryBytes === written && !writer.paused, 20_000)
      t.equal(writer.queuedBytes, 0)
      t.ok(written > 256 * 1024, `wrote ${written} bytes before the writer paused`)
    })

    t.test('server close() closes clients with 1001 server_shutdown', async (t) => {
      const s = await setup(t, kind)
      const { c } = await s.open()
      await s.close()
      t.same(await c.closed, { code: 1001, reason: 'server_shutdown' })
    })

    t.test('other paths are 404', async (t) => {
      const s = await setup(t, kind)
      const c = TestClient.connect(`ws://127.0.0.1:${s.port}/elsewhere`)
      await t.rejects(c.opened, /HTTP 404/)
    })
  })
}

t.test('where uWS cannot load, ws runs and says why', async (t) => {
  const gate = { authorize: async () => ({ ok: true as const, context: null }), open: () => {} }
  const server = await createSocketServer(gate, { prefer: 'uws', path: PATH, maxPayloadBytes: 1024, uwsBinaryPath: '/nonexistent/uws.node' })
  t.equal(server.kind, 'ws')
  t.match(server.fallbackReason, /nonexistent/)
  const bogus = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ozan-uws-')), 'uws.node')
  fs.writeFileSync(bogus, 'not a shared object')
  t.teardown(() => fs.rmSync(path.dirname(bogus), { recursive: true, force: true }))
  const notNative = await createSocketServer(gate, { prefer: 'uws', path: PATH, maxPayloadBytes: 1024, uwsBinaryPath: bogus })
  t.equal(notNative.kind, 'ws')
  t.match(notNative.fallbackReason, /failed to load/)
  const chosen = await createSocketServer(gate, { prefer: 'ws', path: PATH, maxPayloadBytes: 1024 })
  t.equal(chosen.kind, 'ws')
  t.equal(chosen.fallbackReason, undefined, 'choosing ws is not a fallback')
})
