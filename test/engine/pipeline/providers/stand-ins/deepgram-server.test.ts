import t, { type Test } from 'tap'
import WebSocket from 'ws'
import { startDeepgramStandIn, type DeepgramStandIn, type DeepgramStandInOptions } from '../../../../../engine/pipeline/providers/stand-ins/index.js'

const KEY = 'dg-standin-raw-0042'
const QUERY = '/v1/listen?model=nova-3&encoding=linear16&sample_rate=16000&channels=1&interim_results=true&endpointing=300&utterance_end_ms=1000'

async function standIn(t: Test, o: Partial<DeepgramStandInOptions> = {}): Promise<DeepgramStandIn> {
  const s = await startDeepgramStandIn({ apiKey: KEY, finalLatencyMs: 0, ...o })
  t.teardown(() => s.close())
  return s
}

/** A 440 Hz tone (speech, as far as energy goes) or silence, as little-endian PCM16 bytes. */
function audio(ms: number, loud: boolean): Buffer {
  const n = (ms * 16000) / 1000
  const out = Buffer.alloc(n * 2)
  for (let i = 0; i < n; i++) out.writeInt16LE(loud ? Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16000)) : 0, i * 2)
  return out
}

async function connect(url: string, o: { protocols?: string[]; headers?: Record<string, string> } = {}) {
  const ws = new WebSocket(url, o.protocols ?? [], { headers: o.headers ?? { authorization: `Token ${KEY}` } })
  const messages: Array<Record<string, unknown>> = []
  ws.on('message', (d) => messages.push(JSON.parse(String(d)) as Record<string, unknown>))
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: String(reason) })))
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  return { ws, messages, closed }
}

const sendAudio = async (ws: WebSocket, buf: Buffer) => {
  for (let at = 0; at < buf.length; at += 640) {
    ws.send(buf.subarray(at, at + 640))
    await new Promise((r) => setImmediate(r))
  }
}

t.test("refuses a wrong key at the upgrade with 401 and Deepgram's error body", async (t) => {
  const s = await standIn(t)
  const ws = new WebSocket(s.url + QUERY, { headers: { authorization: 'Token nope' } })
  const res = await new Promise<{ status: number; body: string }>((resolve) => {
    ws.on('unexpected-response', (_req, r) => {
      let body = ''
      r.on('data', (c: Buffer) => (body += c))
      r.on('end', () => resolve({ status: r.statusCode ?? 0, body }))
    })
    ws.on('error', () => {})
  })
  t.equal(res.status, 401)
  t.match(JSON.parse(res.body), { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.' })
  t.match(s.sessions[0], { authorized: false, outcome: 'rejected', closeCode: 401 })
})

t.test('accepts the key as the `token` subprotocol, as browsers send it', async (t) => {
  const s = await standIn(t)
  const c = await connect(s.url + QUERY, { protocols: ['token', KEY], headers: {} })
  t.equal(c.ws.protocol, 'token')
  t.equal(s.sessions[0]?.auth, 'subprotocol')
  c.ws.close()
})

t.test('finds the utterance by energy: interims, a final after endpointing silence, UtteranceEnd, then Metadata on CloseStream', async (t) => {
  const s = await standIn(t)
  s.script('Turn the lights off please')
  const c = await connect(s.url + QUERY)
  await sendAudio(c.ws, Buffer.concat([audio(1000, true), audio(400, false)]))
  await new Promise((r) => setTimeout(r, 50))
  c.ws.send(JSON.stringify({ type: 'CloseStream' }))
  t.equal((await c.closed).code, 1000)
  const types = c.messages.map((m) => m.type)
  t.same(types.slice(-3), ['Results', 'UtteranceEnd', 'Metadata'])
  const interims = c.messages
    .filter((m) => m.type === 'Results' && !m.is_final)
    .map((m) => (m.channel as { alternatives: Array<{ transcript: string }> }).alternatives[0]!.transcript)
  t.same(interims, ['Turn', 'Turn the', 'Turn the lights', 'Turn the lights off'], 'one more word every 250 ms of speech, never the whole text')
  const final = c.messages.find((m) => m.is_final)!
  t.match(final, { is_final: true, speech_final: true, start: 0, channel_index: [0, 1], metadata: { model_info: { arch: 'nova-3' } } })
  t.equal(Math.round((final.duration as number) * 1000), 1000)
  const u = s.sessions[0]!.utterances[0]!
  t.match(u, { text: 'Turn the lights off please', speechStartMs: 0, speechEndMs: 1000, endedBy: 'endpointing', injectedLatencyMs: 0 })
  t.ok(u.finalSentAt >= u.speechEndAt)
  t.equal(await s.sessions[0]!.ended, 'completed')
})

const transcripts = (ms: Array<Record<string, unknown>>, final: boolean) =>
  ms
    .filter((m) => m.type === 'Results' && m.is_final === final)
    .map((m) => (m.channel as { alternatives: Array<{ transcript: string }> }).alternatives[0]!.transcript)

t.test('with speechMs, interims hold the words whose audio has arrived, and may hold them all before the final', async (t) => {
  const s = await standIn(t)
  // Word ends by characters (22): Turn 182, the 318, lights 591, off 727, please 1000 ms.
  s.script({ text: 'Turn the lights off please', speechMs: 1000 })
  const c = await connect(s.url + QUERY)
  await sendAudio(c.ws, Buffer.concat([audio(1000, true), audio(400, false)]))
  await new Promise((r) => setTimeout(r, 50))
  t.same(
    transcripts(c.messages, false),
    ['Turn', 'Turn the', 'Turn the lights off', 'Turn the lights off please', 'Turn the lights off please'],
    'every 250 ms of audio, changed or not, until the endpoint at 1300',
  )
  t.same(transcripts(c.messages, true), ['Turn the lights off please'])
  const u = s.sessions[0]!.utterances[0]!
  t.ok(u.completeAt < u.finalSentAt, 'complete in an interim before the final')
  c.ws.close()
})

t.test('interims go on through the trailing silence until the endpoint', async (t) => {
  const s = await standIn(t, { interimEveryMs: 400 })
  s.script({ text: 'Turn the lights off please', speechMs: 1000 })
  const c = await connect(s.url + QUERY)
  await sendAudio(c.ws, Buffer.concat([audio(1000, true), audio(400, false)]))
  await new Promise((r) => setTimeout(r, 50))
  // Ticks at 400 and 800 ms of speech, then 1200 in the silence (the endpoint is at 1300).
  t.same(transcripts(c.messages, false), ['Turn the', 'Turn the lights off', 'Turn the lights off please'])
  c.ws.close()
})

t.test('a Finalize ends the utterance, but its final still waits out the injected latency', async (t) => {
  const s = await standIn(t, { finalLatencyMs: 150 })
  s.script('Yes')
  const c = await connect(s.url + QUERY)
  await sendAudio(c.ws, audio(300, true))
  const finalizedAt = performance.now()
  c.ws.send(JSON.stringify({ type: 'Finalize' }))
  const final = await new Promise<number>((resolve) => c.ws.on('message', (d) => JSON.parse(String(d)).is_final && resolve(performance.now())))
  const u = s.sessions[0]!.utterances[0]!
  t.match(u, { text: 'Yes', endedBy: 'finalize', injectedLatencyMs: 150 })
  t.ok(u.finalSentAt - u.speechEndAt >= 149, `final ${Math.round(u.finalSentAt - u.speechEndAt)} ms after the speech`)
  t.ok(final - finalizedAt >= 100, 'not at once')
  c.ws.close()
})

t.test('a Finalize in a pause inside a timed utterance finalizes the words heard; the rest comes with the next speech', async (t) => {
  const s = await standIn(t)
  s.script({ text: 'Turn the lights off please', speechMs: 1000 }, 'Next')
  const c = await connect(s.url + QUERY)
  // Word ends by characters: Turn 182, the 318, lights 591, off 727, please 1000 ms.
  await sendAudio(c.ws, Buffer.concat([audio(500, true), audio(250, false)]))
  c.ws.send(JSON.stringify({ type: 'Finalize' }))
  await sendAudio(c.ws, Buffer.concat([audio(250, true), audio(400, false)]))
  await new Promise((r) => setTimeout(r, 50))
  t.same(transcripts(c.messages, true), ['Turn the lights off', 'please'], 'two segments, every word once')
  t.match(s.sessions[0]!.utterances, [
    { text: 'Turn the lights off', endedBy: 'finalize' },
    { text: 'please', endedBy: 'endpointing' },
  ])
  c.ws.close()
})

t.test('CloseStream sends a waiting final at once and logs only the latency it served', async (t) => {
  const s = await standIn(t, { finalLatencyMs: 2000 })
  s.script('Yes')
  const c = await connect(s.url + QUERY)
  await sendAudio(c.ws, Buffer.concat([audio(300, true), audio(400, false)]))
  await new Promise((r) => setTimeout(r, 50))
  t.same(transcripts(c.messages, true), [], 'endpointed, its final still waiting')
  c.ws.send(JSON.stringify({ type: 'CloseStream' }))
  await c.closed
  t.same(transcripts(c.messages, true), ['Yes'])
  const u = s.sessions[0]!.utterances[0]!
  t.ok(u.injectedLatencyMs < 2000 && u.injectedLatencyMs <= Math.round(u.finalSentAt - u.speechEndAt), `served ${u.injectedLatencyMs} ms`)
})

t.test('Finalize answers with from_finalize, even with nothing pending', async (t) => {
  const s = await standIn(t)
  s.script('Yes')
  const c = await connect(s.url + QUERY)
  c.ws.send(JSON.stringify({ type: 'Finalize' }))
  await sendAudio(c.ws, audio(300, true))
  c.ws.send(JSON.stringify({ type: 'Finalize' }))
  await new Promise((r) => setTimeout(r, 100))
  const finals = c.messages.filter((m) => m.is_final)
  t.match(finals, [
    { from_finalize: true, speech_final: false, channel: { alternatives: [{ transcript: '' }] } },
    { from_finalize: true, speech_final: false, channel: { alternatives: [{ transcript: 'Yes' }] } },
  ])
  t.equal(s.sessions[0]!.utterances[0]!.endedBy, 'finalize')
  c.ws.close()
})

t.test('injected failures: a close mid-stream, and an idle socket closed with NET-0001', async (t) => {
  const s = await standIn(t, { idleTimeoutMs: 200 })
  s.fail({ kind: 'close', code: 1011, reason: 'NET-0000', afterAudioMs: 100 })
  const c = await connect(s.url + QUERY)
  await sendAudio(c.ws, audio(300, true))
  t.same(await c.closed, { code: 1011, reason: 'NET-0000' })
  t.equal(await s.sessions[0]!.ended, 'server_closed')
  const idle = await connect(s.url + QUERY)
  const closed = await idle.closed
  t.equal(closed.code, 1011)
  t.match(closed.reason, /net0001/)
})
