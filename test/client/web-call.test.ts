import fs from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import type { ManualClock } from '../../core/index.js'
import { expectStatus } from '../helpers/tenancy-fixtures.js'
import { skipWithoutChromium, launchChromium, writeFakeMicWav } from '../helpers/chromium.js'
import { skipWithoutEspeak, speak, timeline } from '../helpers/speech.js'
import { callScene } from '../api/calls/fixtures.js'
import { type CallPage, type Logged, openCallPage, servePage } from './call-page.js'
import { startWsProxy, type Relayed } from './ws-proxy.js'

// The browser library in real Chromium against the real engine (Silero VAD, the Deepgram
// stand-in for STT, espeak-ng TTS, the no-LLM demo graph), through a relay that records what the
// page really sent. The page, on an origin of its own, imports the library from the API's
// /client/v1/ozan-web.js. Chromium's fake microphone loops a WAV made with espeak-ng: 2 s of
// silence, "my name is Alice", 40 s of silence, so the caller speaks once, 2 s after the
// microphone opens: over the greeting, which starts about half a second after connecting.

const skip = skipWithoutChromium() || (await skipWithoutEspeak())
const mic = skip ? '' : writeFakeMicWav(timeline(2000, await speak('my name is Alice', 'en'), 40_000).pcm, 16_000)
if (mic) t.teardown(() => fs.rmSync(path.dirname(mic), { recursive: true, force: true }))

/** Output reads (peak |sample| of the last 256 rendered samples) at or below this are silence. */
const SILENT = 1e-4
/** Output reads above this carry the agent's voice (espeak-ng speaks near −10 dBFS peaks). */
const AUDIBLE = 0.05

async function scene(t: Test, o: { denyMic?: boolean } = {}) {
  const s = await callScene(t)
  await s.storeDeepgram()
  const proxy = await startWsProxy()
  t.teardown(() => proxy.close())
  const site = await servePage(`${s.a.url}/client/v1/ozan-web.js`)
  t.teardown(() => site.close())
  const browser = await launchChromium({ fakeMicWav: mic, ...o })
  t.teardown(() => browser.close())
  const page = await openCallPage(browser, site.url)
  const id = await s.agent()
  const mint = async () => expectStatus(await s.mint(id), 201, 'mint') as { token: string; ws_url: string }
  return { s, proxy, page, browser, mint }
}

const reads = (output: Array<[number, number]>, fromMs: number, toMs: number) => output.filter(([at]) => at >= fromMs && at < toMs).map(([, peak]) => peak)
const loudest = (peaks: number[]) => Math.max(0, ...peaks)
const fromClient = (m: Relayed) => m.from === 'client'
const mutes = (proxy: { messages: Relayed[] }) => proxy.messages.filter((m) => fromClient(m) && m.text?.includes('"mute"'))
const finalTranscript = (page: CallPage, role: string, turnId: string, timeoutMs = 15_000) => page.event('transcript', { role, turnId, final: true }, timeoutMs)

t.test('greeting heard, the caller barges in and is transcribed and answered, stop() twice ends it once', { skip, timeout: 60_000 }, async (t) => {
  const { s, proxy, page, browser, mint } = await scene(t)
  s.dg.script('My name is Alice.')
  const minted = await mint()
  await page.start({ token: minted.token, wsUrl: proxy.via(minted.ws_url) })

  t.match((await page.event('connected')).payload, { callId: /^[0-9a-f-]{36}$/ })
  await page.event('started')
  const speaking = await page.event('status', 'speaking')
  const user = await finalTranscript(page, 'user', 'turn-1')
  t.equal((user.payload as { text: string }).text, 'My name is Alice.', "the fake microphone's utterance came back as the caller's transcript")
  const clear = await page.event('clear')
  t.match((await finalTranscript(page, 'agent', 'turn-0')).payload, { text: /^Hello!/, interrupted: true }, 'the greeting was cut by the caller')
  const greeting = reads(await page.output(), speaking.atMs, clear.atMs)
  t.ok(loudest(greeting) > AUDIBLE, `the greeting reached the page's output: peak ${loudest(greeting).toFixed(3)} over ${greeting.length} reads`)

  // The engine pauses playout when its VAD hears the caller and sends `clear` once the words
  // confirm the interruption; the relay saw when its agent audio stopped.
  const clearAtRelay = proxy.messages.find((m) => m.text === '{"type":"clear"}')!
  const lastAudio = proxy.messages.filter((m) => m.from === 'server' && m.binary && m.atMs < clearAtRelay.atMs).at(-1)!
  const output = await page.output()
  const lastSound = output.filter(([at, peak]) => at < clear.atMs && peak > SILENT).at(-1)!
  t.comment(
    `barge-in: the engine's last agent audio ${(clearAtRelay.atMs - lastAudio.atMs).toFixed(0)} ms before its clear; ` +
      `the page's output silent ${(clear.atMs - lastSound[0]).toFixed(0)} ms before the clear reached it`,
  )
  const thinking = await page.event('status', 'thinking', 15_000, clear.atMs)
  const afterClear = reads(output, clear.atMs + 50, thinking.atMs)
  t.ok(
    afterClear.length > 10 && afterClear.every((p) => p <= SILENT),
    `nothing of the interrupted greeting plays after the clear (${afterClear.length} reads until the reply)`,
  )

  const reply = await finalTranscript(page, 'agent', 'turn-1')
  t.match(reply.payload, { text: 'Thank you. Anything else?', interrupted: false })
  const replySpeaking = await page.event('status', 'speaking', 1000, user.atMs)
  const replyPeak = loudest(reads(await page.output(), replySpeaking.atMs, reply.atMs))
  t.ok(replyPeak > AUDIBLE, `the reply reached the output: peak ${replyPeak.toFixed(3)}`)
  const metrics = (await page.event('metrics', { turnId: 'turn-1' })).payload as Record<string, unknown>
  t.type(metrics['voiceToVoiceMs'], 'number', `metrics camelCased: ${JSON.stringify(metrics)}`)

  const volumes = (await page.log()).filter((e) => e.name === 'volume' && e.atMs >= speaking.atMs && e.atMs < speaking.atMs + 2000)
  t.ok(volumes.length >= 15 && volumes.length <= 25, `${volumes.length} volume events in 2 s`)
  const agentLevel = Math.max(...volumes.map((e) => (e.payload as { agent: number }).agent))
  t.ok(agentLevel > 0.3 && agentLevel <= 1, `agent level up to ${agentLevel.toFixed(2)}`)

  await page.call((call) => Promise.all([call.stop(), call.stop()]))
  const ended = await page.event('ended')
  t.same(ended.payload, { reason: 'client_stop', closeCode: 1000 })
  t.ok(
    proxy.messages.some((m) => fromClient(m) && m.text === '{"type":"stop"}'),
    'the page sent the protocol stop',
  )
  t.equal(await page.micLive(), false, 'the microphone is released')
  t.equal(await page.call((call) => call.audioContext?.state), 'closed', 'the AudioContext is closed')
  await page.call((call) => call.stop())
  await page.page.waitForTimeout(200)
  const log = await page.log()
  t.equal(log.filter((e) => e.name === 'ended').length, 1, 'ended once, a third stop() included')
  t.equal(log.filter((e) => e.name === 'status').at(-1)?.payload, 'ended')

  const sent = proxy.messages.filter((m) => fromClient(m) && m.binary)
  t.ok(sent.length > 100 && sent.every((m) => m.bytes === 640), `${sent.length} caller frames of 640 bytes reached the relay`)
  const stats = await page.call((call) => call.stats)
  t.equal(stats['framesSent'], sent.length, "the library's framesSent is what the relay counted")
  t.equal(stats['callerFramesDropped'], 0)
  t.comment(`page stats: ${JSON.stringify(stats)}`)
  t.same(browser.pageErrors, [])
})

t.test(
  'mic mute stops frames reaching the engine; assistant mute silences output while transcripts go on; clear flushes at once',
  { skip, timeout: 60_000 },
  async (t) => {
    const { s, proxy, page, browser, mint } = await scene(t)
    const minted = await mint()
    await page.start({ token: minted.token, wsUrl: proxy.via(minted.ws_url), micMuted: true, assistantMuted: true })
    const speaking = await page.event('status', 'speaking')
    const greeting = await finalTranscript(page, 'agent', 'turn-0')
    t.match(
      greeting.payload,
      { text: 'Hello! Welcome to the demo line. What is your name?', interrupted: false },
      'the transcript arrives while the assistant is muted',
    )
    const muted = reads(await page.output(), speaking.atMs, greeting.atMs)
    t.ok(muted.length > 100 && loudest(muted) <= SILENT, `the output stayed silent over ${muted.length} reads of the greeting`)
    const heardLevel = Math.max(
      ...(await page.log())
        .filter((e) => e.name === 'volume' && e.atMs > speaking.atMs && e.atMs < greeting.atMs)
        .map((e) => (e.payload as { agent: number }).agent),
    )
    t.ok(heardLevel > 0.3, `the agent's audio arrived all the same (level ${heardLevel.toFixed(2)})`)

    const [muteOn] = mutes(proxy)
    t.equal(muteOn?.text, '{"type":"mute","muted":true}', 'muted before connecting: the page tells the engine right after hello')
    t.equal(proxy.messages.filter((m) => fromClient(m) && m.binary).length, 0, 'and no caller frame reached the engine while muted')

    // Audible again: a line said through the API, then cut by another (the `clear` of a barge-in).
    const callId = (await page.call((call) => call.callId))!
    const control = (body: Record<string, unknown>) => s.a.request('POST', `/api/v1/calls/${callId}/control`, { token: s.owner.token, body })
    await page.call((call) => call.setAssistantMuted(false))
    const before = await page.now()
    expectStatus(await control({ action: 'say', text: 'This line is heard and it goes on for a while so that it can be cut' }), 202, 'say')
    const lineSpeaking = await page.event('status', 'speaking', 10_000, before)
    await page.page.waitForTimeout(700)
    const playing = reads(await page.output(), lineSpeaking.atMs, lineSpeaking.atMs + 700)
    t.ok(loudest(playing) > AUDIBLE, `unmuted, the line is heard: peak ${loudest(playing).toFixed(3)}`)
    expectStatus(await control({ action: 'say', text: 'Cut.', interrupt: true }), 202, 'say, interrupting')
    const clear = await page.event('clear', {}, 5000, lineSpeaking.atMs)
    t.match(
      (await page.event('transcript', { role: 'agent', interrupted: true }, 5000, lineSpeaking.atMs)).payload,
      { text: /^This line/ },
      'the cut line reports the words heard',
    )
    await page.page.waitForTimeout(500)
    const output = await page.output()
    const beforeClear = loudest(reads(output, clear.atMs - 100, clear.atMs))
    t.ok(beforeClear > AUDIBLE, `the page was playing when the clear came (peak ${beforeClear.toFixed(3)} over the 100 ms before it)`)
    const lastRead = output.filter(([at]) => at < clear.atMs).at(-1)!
    const silentAt = output.find(([at, peak]) => at >= clear.atMs && peak <= SILENT)
    t.ok(silentAt, 'then its output went silent')
    const flushMs = silentAt![0] - clear.atMs
    t.comment(
      `clear → silence at the page's output: ${flushMs.toFixed(1)} ms (the read before the clear: peak ${lastRead[1].toFixed(3)}; ` +
        `analyser window 256 samples = ${(256 / 44.1).toFixed(1)} ms at 44.1 kHz, read every ~2-4 ms)`,
    )
    // How fast is measured by bench/browser-call.ts (goal ≤ 50 ms), not asserted on a shared machine;
    // that the jitter buffer drops what it holds on clear is jitter-buffer.test.ts's.
    const next = output.find(([at, peak]) => at > silentAt![0] && peak > AUDIBLE)
    t.comment(`the interrupting line audible from clear + ${next ? (next[0] - clear.atMs).toFixed(0) : '?'} ms`)

    // The microphone: unmuted, frames flow; muted again, none after the mute message.
    await page.call((call) => call.setMicMuted(false))
    await page.page.waitForTimeout(600)
    await page.call((call) => call.setMicMuted(true))
    await page.page.waitForTimeout(600)
    const [, off, on] = mutes(proxy)
    t.equal(off?.text, '{"type":"mute","muted":false}')
    t.equal(on?.text, '{"type":"mute","muted":true}')
    const between = proxy.messages.filter((m) => fromClient(m) && m.binary && m.atMs > off!.atMs && m.atMs < on!.atMs)
    t.ok(between.length >= 20, `${between.length} frames in the ~600 ms unmuted`)
    const after = proxy.messages.filter((m) => fromClient(m) && m.binary && m.atMs > on!.atMs)
    t.equal(after.length, 0, 'not one caller frame after the mute message')
    const sent = await page.call((call) => call.stats['framesSent'])
    t.equal(sent, between.length, 'framesSent counts exactly those')

    // The call handed on through the API: transfer, then ended.
    expectStatus(await control({ action: 'transfer', target: '+15550100' }), 202, 'transfer')
    t.same((await page.event('transfer', {}, 10_000)).payload, { target: '+15550100' })
    t.same((await page.event('ended', {}, 10_000)).payload, { reason: 'transfer', closeCode: 1000 })
    t.equal(await page.micLive(), false, 'the microphone is released')
    t.same(browser.pageErrors, [])
  },
)

t.test(
  'refused tokens: used → token_used (4003), expired → token_expired (4002); each errors, ends and releases the mic',
  { skip, timeout: 30_000 },
  async (t) => {
    const { s, proxy, page, mint } = await scene(t)
    const used = await mint()
    const first = await s.connect(used.ws_url)
    await first.event((e) => e.type === 'hello', 5000)
    first.ws.close()

    const expectRefusal = async (token: { token: string; ws_url: string }, code: string, closeCode: number) => {
      const since = await page.now()
      await page.start({ token: token.token, wsUrl: proxy.via(token.ws_url) })
      const rejected = await page.event('rejected', {}, 10_000, since)
      t.same(
        rejected.payload,
        { code, message: rejected.payload && (rejected.payload as { message: string }).message, isWebCallError: true },
        `start() rejects with ${code}`,
      )
      const error = await page.event('error', { code }, 1000, since)
      const ended = await page.event('ended', {}, 1000, since)
      t.same(ended.payload, { reason: code, closeCode }, `ended ${code} ${closeCode}`)
      t.ok(error.atMs <= ended.atMs, 'error before ended')
      t.equal(await page.micLive(), false, 'the microphone is released')
    }
    await expectRefusal(used, 'token_used', 4003)
    const expired = await mint()
    ;(s.a.clock as ManualClock).advance(301_000)
    await expectRefusal(expired, 'token_expired', 4002)
  },
)

t.test('microphone permission denied: error mic_permission_denied and ended, and the token is not used up', { skip, timeout: 30_000 }, async (t) => {
  const { s, proxy, page, mint } = await scene(t, { denyMic: true })
  const minted = await mint()
  await page.start({ token: minted.token, wsUrl: proxy.via(minted.ws_url) })
  const rejected = await page.event('rejected')
  t.match(rejected.payload, { code: 'mic_permission_denied', isWebCallError: true })
  t.match((await page.event('error')).payload, { code: 'mic_permission_denied', message: /denied/ })
  t.same((await page.event('ended')).payload, { reason: 'mic_permission_denied', closeCode: null })
  t.equal(proxy.connections, 0, 'no socket was opened')
  const later = await s.connect(minted.ws_url)
  t.match(await later.event((e) => e.type === 'hello', 5000), { type: 'hello' }, 'the same token still opens a call')
  later.ws.close()
  t.ok(((await page.log()) as Logged[]).every((e) => e.name !== 'connected'))
})
