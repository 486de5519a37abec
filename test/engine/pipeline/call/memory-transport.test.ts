/**
 * The same call over a second transport: MemoryTransport instead of protocol v1, at 8 kHz (a phone
 * line's rate): once handed over as audio to resample to 16 kHz, once announced as the line's rate
 * (lineRate), so the call's VAD and STT run at 8 kHz and the agent speaks at 8 kHz. Nothing in the controller or the other
 * adapters knows which transport it is: this is the proof that a transport plugs in on its own.
 */
import t from 'tap'
import { resample } from '../../../../engine/audio/index.js'
import { AgentConfig, Definition, GraphRuntime, initialState } from '../../../../engine/graph-runtime/index.js'
import { CallSession, MemoryRecorder, MemoryTransport } from '../../../../engine/pipeline/call/index.js'
import { startDeepgramStandIn } from '../../../../engine/pipeline/providers/stand-ins/index.js'
import { DeepgramLiveStt } from '../../../../engine/pipeline/providers/stt/index.js'
import { EspeakTts } from '../../../../engine/pipeline/providers/tts/index.js'
import { SilenceStrategy } from '../../../../engine/turn-taking/index.js'
import { EnergyVadModel, loadVad } from '../../../../engine/vad/index.js'
import { skipWithoutEspeak, speak } from '../../../helpers/speech.js'
import { demoGraph } from './fixture.js'

const skip = await skipWithoutEspeak()
const RATE = 8000
const FRAME = RATE / 50

/** Plays `pcm` (8 kHz) into the transport in real time, 20 ms a frame, then `tailMs` of silence. */
async function play(transport: MemoryTransport, pcm: Int16Array, tailMs: number): Promise<void> {
  const frames = Math.ceil(pcm.length / FRAME) + tailMs / 20
  const t0 = performance.now()
  for (let i = 0; i < frames; i++) {
    const frame = new Int16Array(FRAME)
    frame.set(pcm.subarray(i * FRAME, (i + 1) * FRAME))
    transport.sendAudio(frame)
    const due = t0 + (i + 1) * 20
    await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())))
  }
}

const until = async (what: string, ok: () => boolean, ms = 20_000) => {
  const end = performance.now() + ms
  while (!ok()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/**
 * A line that reads each frame at once (as a phone line encodes it), declaring so: the call's
 * playout should then hand it one array, refilled. It keeps a copy, as MemoryTransport keeps frames.
 */
class ReadsAtOnceTransport extends MemoryTransport {
  readonly writesAudioAtOnce = true
  readonly arrays = new Set<Int16Array>()

  override writeAudio(frame: Int16Array): Promise<void> {
    this.arrays.add(frame)
    return super.writeAudio(frame.slice())
  }
}

/** The greeting's length in frames on each path: the same speech, whatever the rate. */
const greetingFrames: number[] = []

for (const lineRate of [undefined, 8000] as const) {
  const path = lineRate ? 'an 8 kHz line both ways' : 'resampled to 16 kHz'
  t.test(`a call over the in-memory transport at 8 kHz, ${path}: greeting, one turn, hang-up`, { skip, timeout: 60_000 }, async (t) => {
    const dg = await startDeepgramStandIn({ apiKey: 'dg-key', finalLatencyMs: 100 })
    t.teardown(() => dg.close())
    const vad = await loadVad()
    const def = Definition.parse(demoGraph)
    const config = AgentConfig.parse({})
    const transport = lineRate ? new ReadsAtOnceTransport({ sampleRate: RATE, lineRate }) : new MemoryTransport({ sampleRate: RATE })
    const recorder = new MemoryRecorder()
    const session = new CallSession({
      transport,
      runtime: new GraphRuntime(def, config, { now: () => new Date() }, initialState(def, {}), { channel: 'web', session_id: 'memory-1' }),
      vad,
      stt: new DeepgramLiveStt({ apiKey: 'dg-key', baseUrl: dg.url }),
      tts: new EspeakTts(),
      strategy: new SilenceStrategy({ silenceMs: 300, preemptive: true }),
      language: 'en',
      recorder,
      limits: { maxDurationMs: 60_000, silenceTimeoutMs: 30_000 },
    })
    session.start()
    const agentLine = (turnId: string) => transport.events.find((e) => e.type === 'transcript' && e.role === 'agent' && e.turnId === turnId)

    await until('the greeting', () => agentLine('turn-0') !== undefined)
    t.match(agentLine('turn-0'), { text: 'Hello! Welcome to the demo line. What is your name?', interrupted: false })
    t.ok(transport.framesWritten >= 50, `the greeting was heard as audio (${transport.framesWritten} frames)`)
    const agentRate = lineRate ?? 16_000
    t.ok(
      transport.frames.every((f) => f.length === agentRate / 50),
      `agent audio leaves as 20 ms frames at ${agentRate} Hz`,
    )
    // Played out: the frame count stops growing. Synthesized at the line's rate, the greeting
    // lasts as long at 8 kHz as at 16 kHz (16 kHz audio cut into 8 kHz frames would last twice).
    for (let last = -1; last !== transport.framesWritten; ) {
      last = transport.framesWritten
      await new Promise((r) => setTimeout(r, 300))
    }
    greetingFrames.push(transport.framesWritten)
    if (transport instanceof ReadsAtOnceTransport) t.equal(transport.arrays.size, 1, 'a line that reads at once gets one array, refilled')
    if (greetingFrames.length === 2) {
      const [at16k, at8k] = greetingFrames as [number, number]
      t.ok(Math.abs(at8k - at16k) <= at16k * 0.02 + 2, `the greeting: ${at8k} frames at 8 kHz, ${at16k} at 16 kHz`)
    }

    dg.script('My name is Alice.')
    const name = resample(await speak('my name is Alice', 'en'), 16_000, RATE)
    await play(transport, name, 800)
    await until('the reply', () => agentLine('turn-1') !== undefined, 30_000)
    t.match(transport.transcript().slice(0, 3), [
      { role: 'agent', text: /^Hello!/ },
      { role: 'user', text: 'My name is Alice.' },
      { role: 'agent', text: /^Nice to meet you\./ },
    ])
    const sttRate = lineRate ?? 16_000
    t.equal(dg.sessions[0]!.query.get('sample_rate'), String(sttRate), `the STT stream is ${sttRate} Hz`)
    const heardBytes = dg.sessions[0]!.audioBytes
    t.ok(
      heardBytes > ((name.length * sttRate) / RATE) * 2 && heardBytes < ((name.length * sttRate) / RATE) * 2 + 4 * sttRate,
      `the STT heard the caller at ${sttRate} Hz (${heardBytes} bytes for ${name.length} samples at 8 kHz, and the silence after)`,
    )
    t.ok(
      transport.events.some((e) => e.type === 'metrics' && e.turnId === 'turn-1'),
      'turn metrics were sent',
    )

    transport.hangUp()
    await until('the end', () => recorder.endReason !== null)
    t.equal(recorder.endReason, 'client_hangup')
    t.ok(session.signal.aborted)
    t.equal(session.callStatus, 'ended')
  })
}

t.test('a bug inside the call ends that call with internal_error, not the process', async (t) => {
  const def = Definition.parse(demoGraph)
  const transport = new MemoryTransport()
  const recorder = new MemoryRecorder()
  const broken = Object.assign(Object.create(recorder) as MemoryRecorder, {
    event(kind: string, data: Record<string, unknown>) {
      if (kind === 'call_started') throw new Error('recorder broke')
      recorder.event(kind, data)
    },
  })
  const session = new CallSession({
    transport,
    runtime: new GraphRuntime(def, AgentConfig.parse({}), { now: () => new Date() }, initialState(def, {}), { channel: 'web', session_id: 'memory-2' }),
    vad: new EnergyVadModel(),
    stt: new DeepgramLiveStt({ apiKey: 'k', baseUrl: 'ws://127.0.0.1:9' }),
    tts: new EspeakTts(),
    strategy: new SilenceStrategy(),
    language: 'en',
    recorder: broken,
    limits: { maxDurationMs: 60_000, silenceTimeoutMs: 30_000 },
  })
  t.doesNotThrow(() => session.start())
  t.ok(session.signal.aborted, 'the call is over')
  t.equal(transport.endedWith, 'error')
  t.match(transport.events, [{ type: 'error', code: 'internal_error' }])
  t.equal(broken.endReason, 'error', 'recorded as ended by an error')
  t.match(recorder.events, [{ kind: 'error', data: { code: 'internal_error', message: 'recorder broke' } }])
})
