import http from 'node:http'
import net, { type AddressInfo, type Socket } from 'node:net'
import t, { type Test } from 'tap'
import { startOpenAiStandIn, DEFAULT_SPEECH_KEYS, startSpeechStandIn } from '../../../../engine/pipeline/providers/stand-ins/index.js'
import { ProviderConnections } from '../../../../engine/pipeline/providers/connections.js'
import { OpenAiLlm } from '../../../../engine/pipeline/providers/llm/index.js'
import { DeepgramAuraTts } from '../../../../engine/pipeline/providers/tts/deepgram-aura.js'
import { OpenAiSpeechTts } from '../../../../engine/pipeline/providers/tts/openai-speech.js'
import { KEY, never, request, settle } from './llm/fixture.js'
import { collect, live } from './tts/helpers.js'

/** Provider clients asking for warm connections. */
const A = { client: 'a' }
const B = { client: 'b' }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function until(what: string, ok: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(2)
  }
}

/** A server that records every TCP connection and the client port of every request. */
async function counting(t: Test, onConnection?: (s: Socket, n: number) => void) {
  const connections: Socket[] = []
  const requestPorts: number[] = []
  const server = http.createServer((req, res) => {
    requestPorts.push(req.socket.remotePort!)
    req.resume()
    req.on('end', () => res.end('ok'))
  })
  server.on('connection', (s: Socket) => {
    connections.push(s)
    onConnection?.(s, connections.length)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() =>
    new Promise<void>((r) => server.close(() => r())).then(
      () => undefined,
      () => undefined,
    ),
  )
  t.teardown(() => server.closeAllConnections())
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, connections, requestPorts }
}

/** A TCP relay in front of a stand-in, counting the connections made to it. */
async function relay(t: Test, target: string) {
  const { hostname, port } = new URL(target)
  let count = 0
  const server = net.createServer((inbound) => {
    count++
    const out = net.connect(Number(port), hostname)
    inbound.pipe(out).pipe(inbound)
    inbound.on('error', () => out.destroy())
    out.on('error', () => inbound.destroy())
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  const u = new URL(target)
  u.port = String((server.address() as AddressInfo).port)
  return { url: u.toString().replace(/\/$/, ''), count: () => count }
}

function pool(t: Test, options: ConstructorParameters<typeof ProviderConnections>[0] = {}): ProviderConnections {
  const c = new ProviderConnections(options)
  t.teardown(() => c.close())
  return c
}

t.test('a prewarmed connection carries the next request', async (t) => {
  const s = await counting(t)
  const c = pool(t)
  c.prewarm(s.url, A)
  await until('the warm connection', () => s.connections.length === 1)
  const res = await c.fetch(`${s.url}/models`)
  t.equal(await res.text(), 'ok')
  t.equal(s.connections.length, 1, 'no second connection')
  t.equal(s.requestPorts[0], s.connections[0]!.remotePort, 'the request came on the warm connection')
})

t.test('a request while the warm connection is still connecting waits for it', async (t) => {
  const s = await counting(t)
  const c = pool(t)
  c.prewarm(s.url, A)
  const res = await c.fetch(`${s.url}/models`)
  t.equal(await res.text(), 'ok')
  t.equal(s.connections.length, 1)
})

t.test('one warm connection per client and origin, however often it asks', async (t) => {
  const s = await counting(t)
  const c = pool(t)
  c.prewarm(s.url, A)
  c.prewarm(`${s.url}/chat/completions`, A)
  await until('the warm connection', () => s.connections.length === 1)
  c.prewarm(s.url, A)
  await sleep(50)
  t.equal(s.connections.length, 1)
  // Used by a request, it is no longer warm: the next prewarm opens another.
  await (await c.fetch(`${s.url}/models`)).text()
  c.prewarm(s.url, A)
  await until('a second warm connection', () => s.connections.length === 2)
  t.equal(s.requestPorts[0], s.connections[0]!.remotePort)
})

t.test('two clients of one origin get one each, so a request made while another streams finds one', async (t) => {
  // An LLM reply still streaming when the first TTS request goes out, both at one origin (OpenAI).
  const held: http.ServerResponse[] = []
  const connections: Socket[] = []
  const server = http.createServer((req, res) => {
    req.resume()
    if (req.url === '/v1/chat/completions') {
      res.writeHead(200, { 'content-type': 'text/event-stream' }).write('data: {}\n\n')
      held.push(res)
    } else res.end('audio')
  })
  server.on('connection', (sock: Socket) => connections.push(sock))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  t.teardown(() => server.closeAllConnections())
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  const c = pool(t)
  c.prewarm(url, A)
  c.prewarm(url, B)
  await until('two warm connections', () => connections.length === 2)
  const stream = await c.fetch(`${url}/chat/completions`, { method: 'POST', body: '{}' })
  t.equal(stream.status, 200)
  t.equal(await (await c.fetch(`${url}/audio/speech`, { method: 'POST', body: '{}' })).text(), 'audio')
  t.equal(connections.length, 2, 'both requests went on warm connections')
  held.forEach((r) => r.end())
  await stream.text()
})

t.test('at most maxWarmPerOrigin wait per origin', async (t) => {
  const s = await counting(t)
  const c = pool(t, { maxWarmPerOrigin: 2 })
  for (let i = 0; i < 5; i++) c.prewarm(s.url, { client: i })
  await until('two warm connections', () => s.connections.length === 2)
  await sleep(50)
  t.equal(s.connections.length, 2)
})

t.test('an unused warm connection is closed after maxWarmAgeMs', async (t) => {
  let closed = false
  const s = await counting(t, (sock) => sock.on('close', () => (closed = true)))
  const c = pool(t, { maxWarmAgeMs: 80 })
  c.prewarm(s.url, A)
  await until('the warm connection', () => s.connections.length === 1)
  await until('its close', () => closed, 2000)
  t.pass('closed')
  // A later request connects afresh and is answered.
  t.equal(await (await c.fetch(`${s.url}/models`)).text(), 'ok')
  t.equal(s.connections.length, 2)
})

t.test('a warm connection the server closed is not handed to a request', async (t) => {
  const s = await counting(t, (sock, n) => {
    if (n === 1) setTimeout(() => sock.end(), 10)
  })
  const c = pool(t)
  c.prewarm(s.url, A)
  await until('the warm connection', () => s.connections.length === 1)
  await sleep(100)
  t.equal(await (await c.fetch(`${s.url}/models`)).text(), 'ok')
  t.equal(s.connections.length, 2)
  t.equal(s.requestPorts[0], s.connections[1]!.remotePort, 'the request came on a new connection')
})

t.test('a warm connection that fails leaves the request its own error', async (t) => {
  // A port nothing listens on: both the warm connect and the request's are refused.
  const probe = net.createServer()
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
  const port = (probe.address() as AddressInfo).port
  await new Promise<void>((r) => probe.close(() => r()))
  const c = pool(t)
  c.prewarm(`http://127.0.0.1:${port}/v1`, A)
  const err = await c.fetch(`http://127.0.0.1:${port}/v1/models`).then(
    () => null,
    (e: Error) => e,
  )
  t.match(err, { message: 'fetch failed', cause: { code: 'ECONNREFUSED' } })
  // A later prewarm still works once something listens (nothing was left stuck).
  await sleep(20)
  t.doesNotThrow(() => c.prewarm(`http://127.0.0.1:${port}/v1`, A))
})

t.test('prewarm ignores what is not an http(s) URL, and does nothing once closed', async (t) => {
  const s = await counting(t)
  const c = new ProviderConnections()
  t.doesNotThrow(() => c.prewarm('not a url', A))
  t.doesNotThrow(() => c.prewarm('ws://127.0.0.1:1/v1', A))
  await c.close()
  c.prewarm(s.url, A)
  await sleep(50)
  t.equal(s.connections.length, 0)
  t.throws(() => new ProviderConnections({ maxWarmAgeMs: 0 }), RangeError)
  t.throws(() => new ProviderConnections({ maxWarmPerOrigin: -1 }), RangeError)
  t.throws(() => new ProviderConnections({ connectTimeoutMs: Number.NaN }), RangeError)
})

t.test('close() closes a warm connection', async (t) => {
  let closed = false
  const s = await counting(t, (sock) => sock.on('close', () => (closed = true)))
  const c = new ProviderConnections()
  c.prewarm(s.url, A)
  await until('the warm connection', () => s.connections.length === 1)
  await c.close()
  await until('its close', () => closed)
  t.pass('closed')
})

t.test('the LLM and speech providers prewarm their own origin, and their requests use it', async (t) => {
  const llmStand = await startOpenAiStandIn({ apiKey: KEY })
  t.teardown(() => llmStand.close())
  const speech = await startSpeechStandIn({})
  t.teardown(() => speech.close())
  const llmHop = await relay(t, llmStand.url)
  const openaiHop = await relay(t, speech.openaiUrl)
  const auraHop = await relay(t, speech.origin)
  const c = pool(t)

  const llm = new OpenAiLlm({ apiKey: KEY, baseURL: llmHop.url, connections: c })
  llm.prewarm()
  await until('the LLM connection', () => llmHop.count() === 1)
  const { chunks, error } = await settle(llm.stream(request(), never()))
  t.equal(error, null)
  t.ok(
    chunks.some((ch) => ch.type === 'text'),
    'the reply streamed',
  )
  t.equal(llmHop.count(), 1, 'on the warm connection')

  const openai = new OpenAiSpeechTts({ apiKey: DEFAULT_SPEECH_KEYS.openai, baseURL: openaiHop.url, connections: c })
  openai.prewarm()
  await until('the speech connection', () => openaiHop.count() === 1)
  t.ok((await collect(openai.synthesize('Hello there.', { signal: live() }))).all.length > 0, 'audio came')
  t.equal(openaiHop.count(), 1)

  const aura = new DeepgramAuraTts({ apiKey: DEFAULT_SPEECH_KEYS.deepgram, baseUrl: auraHop.url, connections: c })
  aura.prewarm()
  await until('the Aura connection', () => auraHop.count() === 1)
  t.ok((await collect(aura.synthesize('Hello there.', { signal: live() }))).all.length > 0, 'audio came')
  t.equal(auraHop.count(), 1)
})

t.test('fetch: statuses, headers, bodies and aborts come through as fetch gives them', async (t) => {
  let hold: http.ServerResponse | null = null
  const seen: { method: string; type: string; body: string }[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (d: Buffer) => (body += d))
    req.on('end', () => {
      seen.push({ method: req.method!, type: req.headers['content-type'] ?? '', body })
      if (req.url === '/empty') return void res.writeHead(204).end()
      if (req.url === '/moved') return void res.writeHead(307, { location: '/elsewhere' }).end()
      if (req.url === '/cookies')
        return void res
          .writeHead(200, [
            ['set-cookie', 'a=1'],
            ['set-cookie', 'b=2'],
            ['x-one', 'y'],
          ])
          .end('two')
      if (req.url === '/stream') {
        res.writeHead(200).write('first ')
        hold = res
        return
      }
      if (req.url === '/never') return
      res.end(`echo ${body}`)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  t.teardown(() => server.closeAllConnections())
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const c = pool(t)

  const posted = await c.fetch(`${url}/json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' })
  t.equal(posted.status, 200)
  t.equal(await posted.text(), 'echo {"a":1}')
  t.same(seen.at(-1), { method: 'POST', type: 'application/json', body: '{"a":1}' })

  const empty = await c.fetch(`${url}/empty`)
  t.equal(empty.status, 204)
  t.equal(empty.body, null)

  const moved = await c.fetch(`${url}/moved`, { redirect: 'error' })
  t.equal(moved.status, 307, 'a redirect is answered as it came, not followed')
  t.equal(seen.filter((x) => x.method === 'GET').length, 2, 'nothing requested /elsewhere')

  const cookies = await c.fetch(`${url}/cookies`)
  t.equal(cookies.headers.get('set-cookie'), 'a=1, b=2')
  t.equal(cookies.headers.get('x-one'), 'y')
  t.equal(await cookies.text(), 'two')

  // A multipart form (the transcription upload) goes through undici's fetch.
  const form = new FormData()
  form.append('file', new Blob(['RIFF']), 'a.wav')
  t.equal((await c.fetch(`${url}/form`, { method: 'POST', body: form })).status, 200)
  t.match(seen.at(-1), { type: /^multipart\/form-data; boundary=/, body: /RIFF/ })

  // The body streams: the first chunk is readable before the server ends the response.
  const streamed = await c.fetch(`${url}/stream`)
  const reader = streamed.body!.getReader()
  t.equal(new TextDecoder().decode((await reader.read()).value), 'first ')
  ;(hold as http.ServerResponse | null)!.end('second')
  t.equal(new TextDecoder().decode((await reader.read()).value), 'second')
  t.equal((await reader.read()).done, true)

  // An abort before the answer rejects with the signal's reason.
  const ac = new AbortController()
  const pending = c.fetch(`${url}/never`, { signal: ac.signal })
  setTimeout(() => ac.abort(), 20)
  t.match(
    await pending.then(
      () => null,
      (e: unknown) => e,
    ),
    { name: 'AbortError' },
  )
})

t.test('fetch: a large body arrives whole when read slowly; cancelling the reader closes the connection', async (t) => {
  const big = Buffer.alloc(4 * 1024 * 1024)
  for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 0xff
  let closed = false
  const server = http.createServer((req, res) => {
    req.resume()
    if (req.url === '/big') return void res.end(big)
    req.socket.on('close', () => (closed = true))
    res.writeHead(200)
    const timer = setInterval(() => res.write(Buffer.alloc(1024)), 5)
    res.on('close', () => clearInterval(timer))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  t.teardown(() => server.closeAllConnections())
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const c = pool(t)

  const reader = (await c.fetch(`${url}/big`)).body!.getReader()
  const parts: Uint8Array[] = []
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    parts.push(value.slice())
    await sleep(1)
  }
  t.ok(Buffer.concat(parts).equals(big), 'every byte, in order')

  const endless = (await c.fetch(`${url}/endless`)).body!.getReader()
  await endless.read()
  await endless.cancel()
  await until('the connection to close', () => closed)
  t.pass('closed')
})
