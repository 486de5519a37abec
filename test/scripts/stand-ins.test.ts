import t from 'tap'
import net from 'node:net'
import WebSocket from 'ws'
import { encodeWav, pcmToBytes } from '../../engine/audio/index.js'
import { DEFAULT_DIALOGUE } from '../../scripts/stand-ins/dialogue.js'
import { DEFAULT_STAND_IN_OPTIONS } from '../../scripts/stand-ins/options.js'
import { freePort, portIsFree, printedCredentialBodies, startStandIns } from './stand-ins/process.js'

// `npm run stand-ins` as a newcomer runs it: a real process on fixed ports, spoken to over the
// providers' real wire protocols, stopped by a signal.

const OPENAI_KEY = DEFAULT_STAND_IN_OPTIONS.openaiKey
const DEEPGRAM_KEY = DEFAULT_STAND_IN_OPTIONS.deepgramKey
const [LINE_1, LINE_2] = [DEFAULT_DIALOGUE[0]!, DEFAULT_DIALOGUE[1]!]

/** `ms` of a loud 440 Hz tone (speech to the stand-in, which finds speech by energy) or of silence, 16 kHz. */
function audio(ms: number, loud: boolean): Int16Array {
  const pcm = new Int16Array((16_000 * ms) / 1000)
  if (loud) for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16_000))
  return pcm
}

/** Opens Deepgram's live socket as @deepgram/sdk does (key in `Authorization: Token`), collecting its JSON messages. */
async function listen(port: number, key: string) {
  const query = 'model=nova-3&encoding=linear16&sample_rate=16000&channels=1&interim_results=false&endpointing=300'
  const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/listen?${query}`, { headers: { authorization: `Token ${key}` } })
  const messages: Array<Record<string, unknown>> = []
  ws.on('message', (data, binary) => void (!binary && messages.push(JSON.parse(String(data)))))
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)))
  const opened = await new Promise<number>((resolve) => {
    ws.once('open', () => resolve(101))
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    ws.once('error', () => resolve(0))
  })
  const say = (pcm: Int16Array) => {
    for (let at = 0; at < pcm.length; at += 320) ws.send(pcmToBytes(pcm.subarray(at, at + 320)))
  }
  const next = async (pred: (m: Record<string, unknown>) => boolean, timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const hit = messages.find(pred)
      if (hit) return hit
      if (Date.now() > deadline) throw new Error(`no matching message; got ${JSON.stringify(messages)}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  return { ws, opened, messages, closed, say, next }
}

const transcript = (m: Record<string, unknown>) => (m['channel'] as { alternatives: Array<{ transcript: string }> }).alternatives[0]!.transcript

/** The chat completion as streamed server-sent events: each `data:` payload, parsed (`[DONE]` kept as is). */
async function chat(port: number, text: string) {
  const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPENAI_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: text },
      ],
    }),
  })
  const events = (await res.text())
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice(6))
    .map((data) => (data === '[DONE]' ? data : (JSON.parse(data) as { object: string; choices: Array<{ delta: { content?: string } }> })))
  const content = events.map((e) => (typeof e === 'string' ? '' : (e.choices[0]?.delta.content ?? ''))).join('')
  return { status: res.status, type: res.headers.get('content-type'), events, content }
}

t.test('npm run stand-ins: says they are scripted stand-ins, prints the credentials, answers each wire protocol, and SIGTERM frees its ports', async (t) => {
  const [openaiPort, deepgramPort] = [await freePort(), await freePort()]
  // One port by flag, the other by environment: both ways are documented.
  const p = startStandIns(['--openai-port', String(openaiPort)], { STAND_INS_DEEPGRAM_PORT: String(deepgramPort) })
  t.teardown(() => p.killAll())
  const out = await p.waitFor('Ctrl-C stops them.')

  t.match(out, /NOT real providers/, 'says plainly what they are')
  t.match(out, /answer from a SCRIPT\. They recognize no speech and understand nothing/)
  t.match(out, /OZAN_ALLOW_PRIVATE_CIDRS=127\.0\.0\.0\/8 npm start/, 'how to let the outbound guard reach loopback')
  t.same(
    printedCredentialBodies(out),
    [
      { provider: 'deepgram', fields: { api_key: DEEPGRAM_KEY, base_url: `http://127.0.0.1:${deepgramPort}` } },
      { provider: 'openai', fields: { api_key: OPENAI_KEY, base_url: `http://127.0.0.1:${openaiPort}/v1` } },
    ],
    'the PUT /credentials bodies point at the ports it listens on',
  )
  t.match(out, /curl -s -X PUT 'http:\/\/localhost:8080\/api\/v1\/credentials' -H "x-api-key: \$OZAN_API_KEY"/, 'the API key stays a shell variable')
  t.match(out, `OZAN_OPENAI_API_KEY=${OPENAI_KEY} OZAN_OPENAI_BASE_URL=http://127.0.0.1:${openaiPort}/v1`, 'the platform-wide alternative for OpenAI')
  t.match(out, `1. caller: ${LINE_1.caller}`, 'the dialogue')

  await t.test('Deepgram live: each stretch of speech is transcribed as the next caller line; CloseStream → Metadata, close 1000', async (t) => {
    const dg = await listen(deepgramPort, DEEPGRAM_KEY)
    t.equal(dg.opened, 101, 'the socket opens with the right key')
    dg.say(audio(600, true))
    dg.say(audio(500, false))
    const first = await dg.next((m) => m['type'] === 'Results' && m['is_final'] === true)
    t.equal(transcript(first), LINE_1.caller)
    t.equal(first['speech_final'], true, 'ended by endpointing')
    dg.say(audio(400, true))
    dg.say(audio(500, false))
    const second = await dg.next((m) => m['type'] === 'Results' && m['is_final'] === true && m !== first)
    t.equal(transcript(second), LINE_2.caller)
    dg.ws.send(JSON.stringify({ type: 'CloseStream' }))
    t.match(await dg.next((m) => m['type'] === 'Metadata'), { type: 'Metadata', channels: 1 })
    t.equal(await dg.closed, 1000)
    const again = await listen(deepgramPort, DEEPGRAM_KEY)
    again.say(audio(400, true))
    again.say(audio(500, false))
    t.equal(transcript(await again.next((m) => m['is_final'] === true)), LINE_1.caller, 'a new socket (a new call) starts from the first line')
    again.ws.close()
    t.equal((await listen(deepgramPort, 'not-the-key')).opened, 401, 'another key is refused at the upgrade, as Deepgram does')
  })

  await t.test('OpenAI chat completions: SSE chunks of the scripted reply to a caller line, else the echo', async (t) => {
    const scripted = await chat(openaiPort, LINE_1.caller)
    t.equal(scripted.status, 200)
    t.match(scripted.type, /^text\/event-stream/)
    t.ok(scripted.events.length > 3, 'the reply comes in several chunks')
    t.match(scripted.events[0], { object: 'chat.completion.chunk' })
    t.equal(scripted.events.at(-1), '[DONE]')
    t.equal(scripted.content, LINE_1.reply)
    t.equal((await chat(openaiPort, 'Something off script')).content, 'You said: Something off script')
  })

  await t.test('speech on both ports (a tone) and OpenAI transcriptions (the next caller line)', async (t) => {
    const openaiSpeech = await fetch(`http://127.0.0.1:${openaiPort}/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPENAI_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input: 'Hello.', response_format: 'pcm' }),
    })
    t.equal(openaiSpeech.status, 200)
    t.ok((await openaiSpeech.arrayBuffer()).byteLength > 0, 'OpenAI speech audio')
    const aura = await fetch(`http://127.0.0.1:${deepgramPort}/v1/speak?model=aura-asteria-en&encoding=linear16&sample_rate=16000&container=none`, {
      method: 'POST',
      headers: { authorization: `Token ${DEEPGRAM_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Hello.' }),
    })
    t.equal(aura.status, 200)
    t.ok((await aura.arrayBuffer()).byteLength > 0, 'Deepgram Aura audio beside live transcription, on the one base URL')
    const form = new FormData()
    form.append('file', new Blob([new Uint8Array(encodeWav(audio(500, true), 16_000))], { type: 'audio/wav' }), 'turn.wav')
    form.append('model', 'whisper-1')
    const transcribed = await fetch(`http://127.0.0.1:${openaiPort}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPENAI_KEY}` },
      body: form,
    })
    t.equal(transcribed.status, 200)
    t.match(await transcribed.json(), { text: LINE_1.caller })
  })

  t.match(p.stdout(), `[deepgram] caller speech, transcribed as the script's line: "${LINE_1.caller}"`, 'the console shows what the stand-ins "heard"')
  t.match(p.stdout(), `[openai] chat reply to "${LINE_1.caller}": "${LINE_1.reply}"`)

  p.child.kill('SIGTERM')
  t.same(await p.exited, { code: 0, signal: null }, 'SIGTERM: a clean exit')
  t.ok(await portIsFree(openaiPort), 'the OpenAI port is free again')
  t.ok(await portIsFree(deepgramPort), 'the Deepgram port is free again')
  t.equal(p.stderr().replace(/^npm warn .*\n/gm, ''), '', 'nothing on stderr')
})

t.test('SIGINT (Ctrl-C) stops it cleanly too', async (t) => {
  const p = startStandIns(['--openai-port', '0', '--deepgram-port', '0'])
  t.teardown(() => p.killAll())
  await p.waitFor('Ctrl-C stops them.')
  p.child.kill('SIGINT')
  t.same(await p.exited, { code: 0, signal: null })
})

t.test('through npm as documented: `npm run stand-ins -- <flags>` passes the flags, and SIGTERM to npm frees the ports', async (t) => {
  const [openaiPort, deepgramPort] = [await freePort(), await freePort()]
  const p = startStandIns(['--openai-port', String(openaiPort), '--deepgram-port', String(deepgramPort)], {}, 60_000, { viaNpm: true })
  t.teardown(() => p.killAll())
  t.match(await p.waitFor('Ctrl-C stops them.', 30_000), `OpenAI stand-in    http://127.0.0.1:${openaiPort}/v1`)
  // npm signals its child; the script line execs tsx, which passes the signal on (no orphan holding the ports).
  p.child.kill('SIGTERM')
  await p.exited
  const deadline = Date.now() + 5000
  while (!((await portIsFree(openaiPort)) && (await portIsFree(deepgramPort))) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
  t.ok(await portIsFree(openaiPort), 'the OpenAI port is free')
  t.ok(await portIsFree(deepgramPort), 'the Deepgram port is free')
})

t.test('a port in use: exit 1 naming the port and the flag that changes it, no stack trace', async (t) => {
  const taken = net.createServer()
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r))
  t.teardown(() => taken.close())
  const port = (taken.address() as net.AddressInfo).port
  const p = startStandIns(['--openai-port', '0', '--deepgram-port', String(port)])
  t.equal((await p.exited).code, 1)
  t.match(p.stderr(), `stand-ins: port ${port} (the deepgram stand-in) is already in use: stop what uses it, or choose another with --deepgram-port`)
  t.notMatch(p.stderr(), /\n\s+at /, 'no stack trace')
})

t.test('bad flags: exit 2 with the usage text, never a stack trace', async (t) => {
  const dir = t.testdir({ 'bad.txt': 'caller: hello\nwho knows\n' })
  const cases: Array<[string[], RegExp]> = [
    [['--bogus'], /Unknown option '--bogus'/],
    [['--openai-port', 'eighty'], /--openai-port must be a port number/],
    [['--script', `${dir}/missing.txt`], /cannot read --script .*missing\.txt: ENOENT/],
    [['--script', `${dir}/bad.txt`], /--script .*bad\.txt, line 2: expected "caller: …" or "agent: …"/],
  ]
  for (const [args, message] of cases) {
    const p = startStandIns(args)
    t.equal((await p.exited).code, 2, `${args.join(' ')}: exit 2`)
    t.match(p.stderr(), message)
    if (!args.includes('--script')) t.match(p.stderr(), /Usage: npm run stand-ins -- \[options\]/, 'with the usage text')
    t.notMatch(p.stderr(), /\n\s+at /, 'no stack trace')
    t.equal(p.stdout(), '', 'nothing started, nothing printed')
  }
  const help = startStandIns(['--help'])
  t.equal((await help.exited).code, 0, '--help exits 0')
  t.match(help.stdout(), /--configure\s+store the organization's deepgram and openai credentials/)
})
