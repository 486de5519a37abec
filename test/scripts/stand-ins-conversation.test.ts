import t from 'tap'
import { createLogger, loadConfig } from '../../core/index.js'
import { startEngine } from '../../api/index.js'
import { DEFAULT_DIALOGUE } from '../../scripts/stand-ins/dialogue.js'
import { startTestApp } from '../helpers/app.js'
import { skipWithoutEspeak, speak } from '../helpers/speech.js'
import { createKey, expectStatus, newOwner } from '../helpers/tenancy-fixtures.js'
import { Mic } from '../engine/pipeline/call/fixture.js'
import { TestClient, type Event } from '../engine/server/helpers.js'
import { freePort, portIsFree, printedCredentialBodies, startStandIns } from './stand-ins/process.js'

// `npm run stand-ins` against a real Ozan: --configure stores the credentials through the API (or
// says why it could not), and the printed credentials give a newcomer a voice conversation.

const RANGE = { OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' }

async function ownerWithKey(env: Record<string, string>) {
  const a = await startTestApp({ env })
  const owner = await newOwner(a)
  return { a, owner, key: (await createKey(a, owner)).key }
}

t.test('--configure stores both credentials through PUT /credentials and keeps the stand-ins running; the key is never printed', async (t) => {
  const { a, owner, key } = await ownerWithKey(RANGE)
  t.teardown(() => a.close())
  const [openaiPort, deepgramPort] = [await freePort(), await freePort()]
  const p = startStandIns(['--openai-port', String(openaiPort), '--deepgram-port', String(deepgramPort), '--configure', '--api-key', key, '--api-url', a.url])
  t.teardown(() => p.killAll())
  await p.waitFor("--configure: stored the organization's openai credential")
  t.match(p.stdout(), `--configure: stored the organization's deepgram credential (base_url http://127.0.0.1:${deepgramPort})`)
  const stored = expectStatus(await a.request('GET', '/api/v1/credentials', { token: owner.token }), 200, 'list') as Array<{
    provider: string
    fields: Record<string, string>
  }>
  t.match(Object.fromEntries(stored.map((c) => [c.provider, c.fields.base_url])), {
    deepgram: `http://127.0.0.1:${deepgramPort}`,
    openai: `http://127.0.0.1:${openaiPort}/v1`,
  })
  t.notMatch(p.stdout() + p.stderr(), key, 'the API key appears nowhere in the output')
  t.equal(p.child.exitCode, null, 'still running')
  p.child.kill('SIGTERM')
  t.equal((await p.exited).code, 0)
})

t.test('--configure against an Ozan started without the loopback range: exit 1, says to set OZAN_ALLOW_PRIVATE_CIDRS, stand-ins stopped', async (t) => {
  const { a, owner, key } = await ownerWithKey({})
  t.teardown(() => a.close())
  const deepgramPort = await freePort()
  const p = startStandIns(['--openai-port', '0', '--deepgram-port', String(deepgramPort), '--configure', '--api-key', key, '--api-url', a.url])
  t.equal((await p.exited).code, 1)
  t.match(p.stderr(), /stand-ins: --configure: the platform refused base_url http:\/\/127\.0\.0\.1:\d+ \(422 destination_refused: [^)]+\)/)
  t.match(p.stderr(), 'start Ozan with OZAN_ALLOW_PRIVATE_CIDRS=127.0.0.0/8')
  t.match(p.stderr(), 'The stand-ins are stopped.')
  t.notMatch(p.stdout() + p.stderr(), key)
  t.ok(await portIsFree(deepgramPort))
  t.same(expectStatus(await a.request('GET', '/api/v1/credentials', { token: owner.token }), 200, 'list'), [], 'nothing stored')
})

t.test('--configure with a key the API refuses: exit 1, says 401 and which flag, without the key', async (t) => {
  const a = await startTestApp({ env: RANGE })
  t.teardown(() => a.close())
  const wrong = 'ozan_sk_not_a_real_key_0123456789'
  const p = startStandIns(['--openai-port', '0', '--deepgram-port', '0', '--configure', '--api-url', a.url], { OZAN_API_KEY: wrong })
  t.equal((await p.exited).code, 1)
  t.match(p.stderr(), 'stand-ins: --configure: the API refused the key (401 authentication_required): check --api-key or OZAN_API_KEY')
  t.notMatch(p.stdout() + p.stderr(), wrong)
})

const skip = await skipWithoutEspeak()

t.test('a newcomer holds a scripted voice conversation: the printed credentials, the default agent, a web call', { skip, timeout: 90_000 }, async (t) => {
  const { a, key } = await ownerWithKey(RANGE)
  const engine = await startEngine({
    services: a.services,
    config: loadConfig({ OZAN_ENGINE_SOCKET: 'ws' }),
    logger: createLogger('silent'),
    host: '127.0.0.1',
    port: 0,
  })
  t.teardown(async () => {
    await engine.close()
    await a.close()
  })
  const p = startStandIns(['--openai-port', '0', '--deepgram-port', '0', '--api-url', a.url], {}, 85_000)
  t.teardown(() => p.killAll())
  const bodies = printedCredentialBodies(await p.waitFor('Ctrl-C stops them.'))
  t.equal(bodies.length, 2)
  // What the printed curl commands send.
  for (const body of bodies) expectStatus(await a.request('PUT', '/api/v1/credentials', { apiKey: key, body }), 200, `store ${body.provider}`)

  // The default agent (a conversation node: it needs the LLM) with the default config: deepgram STT, espeak TTS.
  const id = expectStatus(await a.request('POST', '/api/v1/workflows', { apiKey: key, body: { name: 'Stand-in demo' } }), 201, 'agent').id as string
  expectStatus(await a.request('POST', `/api/v1/workflows/${id}/publish`, { apiKey: key }), 200, 'publish')
  const call = expectStatus(await a.request('POST', '/api/v1/calls', { apiKey: key, body: { channel: 'web', workflow_uuid: id } }), 201, 'web call')
  const c = TestClient.connect(call.ws_url as string)
  c.keepBinaries = false
  t.teardown(() => c.ws.terminate())
  const mic = new Mic(c)
  t.teardown(() => mic.stop())
  const final = (role: string, turn: string) => (e: Event) => e.type === 'transcript' && e['role'] === role && e['final'] === true && e['turn_id'] === turn
  const listening = (after: Event) => (e: Event) => e.type === 'status' && e['status'] === 'listening' && c.events.indexOf(e) > c.events.indexOf(after)

  const greeting = await c.event(final('agent', 'turn-0'), 20_000)
  t.equal(greeting['text'], 'Hello! How can I help you today?')
  await c.event(listening(greeting), 15_000)
  // Real speech; the stand-in hears the script's first line whatever was said.
  await mic.say(await speak('good morning to you', 'en'))
  t.equal((await c.event(final('user', 'turn-1'), 15_000))['text'], DEFAULT_DIALOGUE[0]!.caller)
  const reply1 = await c.event(final('agent', 'turn-1'), 20_000)
  t.equal(reply1['text'], DEFAULT_DIALOGUE[0]!.reply, 'the scripted reply, spoken')
  await c.event(listening(reply1), 30_000)
  await mic.say(await speak('what else can you do', 'en'))
  t.equal((await c.event(final('user', 'turn-2'), 15_000))['text'], DEFAULT_DIALOGUE[1]!.caller, 'the next turn hears the next line')
  t.equal((await c.event(final('agent', 'turn-2'), 20_000))['text'], DEFAULT_DIALOGUE[1]!.reply)
  t.match(p.stdout(), `[deepgram] caller speech, transcribed as the script's line: "${DEFAULT_DIALOGUE[1]!.caller}"`)
})
