// baresip as a real softphone (issue #21 item 8): it calls a number and is answered by the agent
// — audio both ways: the agent hears its words (the transcript), and it hears the agent (the
// greeting is in what it recorded) — and it answers a call we place.
import t from 'tap'
import { encodeWav, parseWav, resample, rms } from '../../engine/audio/index.js'
import { runBaresip, skipWithoutBaresip } from '../helpers/baresip.js'
import { freeUdpPort } from '../helpers/sipp.js'
import { skipWithoutEspeak, speak } from '../helpers/speech.js'
import { expectStatus } from '../helpers/tenancy-fixtures.js'
import { phoneScene } from './scene.js'

const skip = skipWithoutBaresip() || (await skipWithoutEspeak())

/** 4 s of silence (the greeting plays), the words, then silence: 8 kHz mono for aufile. */
async function microphone(text: string): Promise<Buffer> {
  const words = resample(await speak(text, 'en'), 16_000, 8000)
  const pcm = new Int16Array(8000 * 4 + words.length + 8000 * 6)
  pcm.set(words, 8000 * 4)
  return encodeWav(pcm, 8000)
}

t.test('baresip calls a number: the agent hears it, and it hears the agent', { skip }, async (t) => {
  const s = await phoneScene(t)
  const line = await s.line()
  s.dg.script('Alice')
  const run = await runBaresip({
    port: await freeUdpPort(),
    wav: await microphone('My name is Alice'),
    commands: [`/dial sip:${line.number}@${s.target}`],
    seconds: 10,
  })
  t.ok(run.heard, 'baresip recorded what it heard', { diagnostic: true, output: run.output })
  const heard = parseWav(run.heard!)
  const level = rms(heard.samples)
  t.ok(level > 0.01, `the agent's voice reached the phone (rms ${level.toFixed(3)})`)
  const [call] = await s.finishedCalls(1)
  t.match(call, { channel: 'phone' })
  const detail = expectStatus(await s.a.request('GET', `/api/v1/calls/${call!.call_uuid}`, { token: s.owner.token }), 200, 'detail')
  t.ok(
    detail.transcript.some((l: { role: string; text: string }) => l.role === 'user' && l.text === 'Alice'),
    'the phone’s words reached the agent',
    { transcript: detail.transcript, events: detail.events.map((e: { kind: string }) => e.kind).join(' '), output: run.output.slice(-1500) },
  )
})

t.test('baresip answers a call we place: it hears the agent, the agent hears it', { skip }, async (t) => {
  const s = await phoneScene(t)
  const port = await freeUdpPort()
  const line = await s.line({ trunk: { host: '127.0.0.1', port } })
  s.dg.script('Alice')
  const phone = runBaresip({ port, user: '+15550142000', wav: await microphone('My name is Alice'), seconds: 12 })
  await new Promise((r) => setTimeout(r, 500)) // baresip binds its socket
  const placed = await s.a.request('POST', '/api/v1/calls', {
    token: s.owner.token,
    body: { channel: 'phone', from: line.number, to: '+15550142000', workflow_uuid: line.workflowId },
  })
  t.equal(placed.status, 201, placed.text)
  const run = await phone
  t.ok(run.heard && rms(parseWav(run.heard).samples) > 0.01, 'the agent’s voice reached the phone', { diagnostic: true, output: run.output })
  const [call] = await s.finishedCalls(1)
  t.match(call, { channel: 'phone', status: 'completed', phone_status: 'completed' })
  const detail = expectStatus(await s.a.request('GET', `/api/v1/calls/${call!.call_uuid}`, { token: s.owner.token }), 200, 'detail')
  t.ok(
    detail.transcript.some((l: { role: string; text: string }) => l.role === 'user' && l.text === 'Alice'),
    'the phone’s words reached the agent',
  )
})
