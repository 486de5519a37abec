import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { WebSocketServer, type WebSocket } from 'ws'
import { startTestApp } from '../helpers/app.js'
import { skipWithoutChromium, launchChromium } from '../helpers/chromium.js'
import { type CallPage, openCallPage, servePage } from './call-page.js'

// The browser library's unhappy paths in real Chromium, against a scripted stand-in for the
// engine's socket that refuses, drops and misbehaves on cue: every one ends in `error` (when it
// failed) and `ended`, releases the microphone, and none hangs.

const skip = skipWithoutChromium()

type Script = (ws: WebSocket) => void

const HELLO = JSON.stringify({
  type: 'hello',
  protocol: 1,
  call_id: '00000000-0000-4000-8000-000000000000',
  audio: { encoding: 'pcm_s16le', sample_rate_hz: 16_000, channels: 1 },
  max_frame_bytes: 32768,
})

/** docs/protocol.md §5: the close codes and the reasons the engine sends with them. */
const REASONS: Record<number, string> = {
  1001: 'server_shutdown',
  1009: 'message_too_large',
  1011: 'internal_error',
  4001: 'token_invalid',
  4002: 'token_expired',
  4003: 'token_used',
  4004: 'token_foreign',
  4005: 'protocol_version_unsupported',
  4029: 'concurrency_limit',
  4400: 'protocol_error',
}

/** A socket server that plays the next script to each connection. */
async function fakeEngine(t: Test) {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  await once(server, 'listening')
  const scripts: Script[] = []
  server.on('connection', (ws) => scripts.shift()?.(ws))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/calls/ws?token=tok&v=1`
  return { url, next: (s: Script) => scripts.push(s), clients: server.clients }
}

async function browserPage(t: Test, o: { noMic?: boolean } = {}): Promise<CallPage> {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const site = await servePage(`${a.url}/client/v1/ozan-web.js`)
  t.teardown(() => site.close())
  const browser = await launchChromium(o)
  t.teardown(() => browser.close())
  return openCallPage(browser, site.url)
}

/** Starts a call, waits for its end, and returns what it logged from the start on. */
async function run(page: CallPage, wsUrl: string, during?: () => Promise<void>) {
  const since = await page.now()
  await page.start({ token: 'tok', wsUrl })
  await during?.()
  const ended = await page.event('ended', {}, 10_000, since)
  await page.page.waitForTimeout(20)
  const log = (await page.log()).filter((e) => e.atMs >= since && e.name !== 'volume')
  return { ended: ended.payload, log, names: log.map((e) => e.name), micLive: await page.micLive() }
}

t.test('every close code of the protocol: error with the reason as code, then ended, the microphone released', { skip, timeout: 60_000 }, async (t) => {
  const engine = await fakeEngine(t)
  const page = await browserPage(t)
  // Refusals close before `hello` (docs/protocol.md §2); the others end an admitted call.
  const refusals = [4001, 4002, 4003, 4004, 4005, 4029] as const
  const midCall = [4400, 1001, 1009, 1011] as const
  for (const code of [...refusals, ...midCall]) {
    const reason = REASONS[code]
    engine.next((ws) => {
      if ((refusals as readonly number[]).includes(code)) return ws.close(code, reason)
      ws.send(HELLO)
      ws.send(JSON.stringify({ type: 'status', status: 'listening' }))
      // The engine says why before closing where it can (1001 after `ended: server_shutdown`).
      if (code === 1001) ws.send(JSON.stringify({ type: 'ended', reason: 'server_shutdown' }))
      setTimeout(() => ws.close(code, reason), 100)
    })
    const r = await run(page, engine.url)
    const error = r.log.find((e) => e.name === 'error')
    t.match(error?.payload, { code: reason, message: /\w/ }, `${code}: error ${reason}`)
    t.same(r.ended, { reason, closeCode: code }, `${code}: ended`)
    t.ok(r.names.indexOf('error') < r.names.indexOf('ended'), `${code}: error, then ended`)
    t.equal(r.micLive, false, `${code}: microphone released`)
    if ((refusals as readonly number[]).includes(code)) t.match(r.log.find((e) => e.name === 'rejected')?.payload, { code: reason }, `${code}: start() rejects`)
    else t.ok(r.names.includes('started'), `${code}: the call had started`)
  }
})

t.test('a dropped network mid-call (1006): error connection_lost, ended, microphone released', { skip, timeout: 30_000 }, async (t) => {
  const engine = await fakeEngine(t)
  const page = await browserPage(t)
  engine.next((ws) => {
    ws.send(HELLO)
    setTimeout(() => ws.terminate(), 300)
  })
  const r = await run(page, engine.url)
  t.match(r.log.find((e) => e.name === 'error')?.payload, { code: 'connection_lost' })
  t.same(r.ended, { reason: 'connection_lost', closeCode: 1006 })
  t.equal(r.micLive, false)
})

t.test('nothing listening (connection refused): error connection_failed, ended with no close code', { skip, timeout: 30_000 }, async (t) => {
  const page = await browserPage(t)
  const closed = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  await once(closed, 'listening')
  const port = (closed.address() as AddressInfo).port
  await new Promise<void>((resolve) => closed.close(() => resolve()))
  const r = await run(page, `ws://127.0.0.1:${port}/v1/calls/ws?token=tok&v=1`)
  t.match(r.log.find((e) => e.name === 'error')?.payload, { code: 'connection_failed' })
  t.match(r.log.find((e) => e.name === 'rejected')?.payload, { code: 'connection_failed' })
  t.same(r.ended, { reason: 'connection_failed', closeCode: null })
  t.equal(r.micLive, false)
})

t.test("the engine's error events are reported and the call goes on; its ended reason is the call's", { skip, timeout: 30_000 }, async (t) => {
  const engine = await fakeEngine(t)
  const page = await browserPage(t)
  engine.next((ws) => {
    ws.send(HELLO)
    ws.send(JSON.stringify({ type: 'error', code: 'bad_audio_frame', message: 'PCM16 frames need an even number of bytes' }))
    ws.send(JSON.stringify({ type: 'future_event', with: 'fields this version does not know' }))
    ws.send(JSON.stringify({ type: 'status', status: 'listening' }))
    setTimeout(() => {
      ws.send(JSON.stringify({ type: 'ended', reason: 'agent_ended' }))
      ws.close(1000, 'normal')
    }, 300)
  })
  const r = await run(page, engine.url)
  t.same(
    r.log.filter((e) => e.name === 'error').map((e) => e.payload),
    [{ code: 'bad_audio_frame', message: 'PCM16 frames need an even number of bytes' }],
    'one error, the engine’s; the normal close adds none',
  )
  t.ok(r.names.indexOf('error') < r.names.lastIndexOf('status'), 'the call went on after it (status listening)')
  t.same(r.ended, { reason: 'agent_ended', closeCode: 1000 })
})

t.test('stop() with an engine that never answers still ends, within the stop bound', { skip, timeout: 30_000 }, async (t) => {
  const engine = await fakeEngine(t)
  const page = await browserPage(t)
  let heard = ''
  engine.next((ws) => {
    ws.send(HELLO)
    ws.on('message', (data, binary) => void (binary || (heard += String(data))))
  })
  const r = await run(page, engine.url, async () => {
    await page.event('started')
    const took = await page.call(async (call) => {
      const from = performance.now()
      await call.stop()
      return performance.now() - from
    })
    t.ok(took >= 1900 && took < 3000, `stop() resolved after ${took.toFixed(0)} ms (WEB_CALL_TIMEOUTS.stopMs 2000)`)
  })
  t.match(heard, '{"type":"stop"}')
  t.same(r.ended, { reason: 'client_stop', closeCode: null })
  t.equal(r.micLive, false)
  t.notOk(r.names.includes('error'), 'a hang-up is no error')
})

t.test('no microphone: error mic_not_found, ended, no socket opened', { skip, timeout: 30_000 }, async (t) => {
  const engine = await fakeEngine(t)
  const page = await browserPage(t, { noMic: true })
  const r = await run(page, engine.url)
  t.match(r.log.find((e) => e.name === 'error')?.payload, { code: 'mic_not_found' })
  t.same(r.ended, { reason: 'mic_not_found', closeCode: null })
  t.equal(engine.clients.size, 0)
})
