/**
 * A real engine socket server (ws transport, web-call gate) whose calls run CallSession with
 * Silero VAD, Deepgram live STT against the stand-in (scripted transcripts), espeak-ng TTS and a
 * deterministic graph (no LLM). A streaming client sends caller audio in 20 ms frames in real
 * time, silence between utterances, like a microphone.
 */
import type { z } from 'zod'
import { startDeepgramStandIn } from '../../../../engine/pipeline/providers/stand-ins/index.js'
import { pcmToBytes } from '../../../../engine/audio/index.js'
import { AgentConfig, Definition, GraphRuntime, initialState } from '../../../../engine/graph-runtime/index.js'
import { CallSession, MemoryRecorder, type CallLimits } from '../../../../engine/pipeline/call/index.js'
import { DeepgramLiveStt } from '../../../../engine/pipeline/providers/stt/deepgram-live.js'
import { TtsCache } from '../../../../engine/pipeline/providers/tts/cache.js'
import { EspeakTts } from '../../../../engine/pipeline/providers/tts/espeak.js'
import type { SynthesizeOptions, TtsProvider } from '../../../../engine/pipeline/providers/tts/types.js'
import { MAX_PAYLOAD_BYTES, WebSocketTransport, createSocketServer, createWebCallGate } from '../../../../engine/server/index.js'
import { SilenceStrategy } from '../../../../engine/turn-taking/index.js'
import { loadVad, type VadModel } from '../../../../engine/vad/index.js'
import { TestClient, tokenFixture } from '../../server/helpers.js'

const PATH = '/v1/calls/ws'
export const FRAME_SAMPLES = 320

export const demoGraph: z.input<typeof Definition> = {
  variables: [
    { name: 'name', type: 'string' },
    { name: 'again', type: 'boolean' },
    { name: 'other', type: 'string' },
  ],
  nodes: [
    { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Hello! Welcome to the demo line.' } } },
    { id: 'ask_name', type: 'collect', data: { variable: 'name', value_type: 'text', prompt: 'What is your name?', max_attempts: 3 } },
    {
      id: 'hours',
      type: 'say',
      data: { text: 'Nice to meet you. We are open every day from nine in the morning until six in the evening, and on Saturdays we close at noon.' },
    },
    { id: 'again', type: 'collect', data: { variable: 'again', value_type: 'yes_no', prompt: 'Shall I repeat the opening hours?', max_attempts: 3 } },
    { id: 'cond', type: 'condition' },
    { id: 'bye', type: 'collect', data: { variable: 'other', value_type: 'text', prompt: 'Alright. Is there anything else?', max_attempts: 3 } },
    { id: 'end', type: 'end', data: { message: 'Goodbye.', disposition: 'completed' } },
  ],
  edges: [
    { id: 'e1', source: 'start', target: 'ask_name' },
    { id: 'e2', source: 'ask_name', target: 'hours', condition: { kind: 'outcome', outcome: 'collected' } },
    { id: 'e3', source: 'hours', target: 'again' },
    { id: 'e4', source: 'again', target: 'cond', condition: { kind: 'outcome', outcome: 'collected' } },
    { id: 'e5', source: 'cond', target: 'hours', condition: { kind: 'expression', expression: { '==': [{ var: 'again' }, true] } } },
    { id: 'e6', source: 'cond', target: 'bye' },
    { id: 'e7', source: 'bye', target: 'end', condition: { kind: 'outcome', outcome: 'collected' } },
  ],
}

let vadModel: Promise<VadModel> | undefined

export async function startCallServer(t: { teardown(fn: () => unknown): void }, o: { limits?: Partial<CallLimits> } = {}) {
  const f = tokenFixture(t)
  const dg = await startDeepgramStandIn({ apiKey: 'dg-key', finalLatencyMs: 100 })
  t.teardown(() => dg.close())
  vadModel ??= loadVad()
  const vad = await vadModel
  if (vad.kind !== 'silero') throw new Error('Silero VAD did not load')
  const tts = new WatchedTts(new EspeakTts())
  const ttsCache = new TtsCache()
  const config = AgentConfig.parse({})
  const def = Definition.parse(demoGraph)
  const sessions: { session: CallSession; recorder: MemoryRecorder }[] = []
  const gate = createWebCallGate({
    tokens: f.tokens,
    liveCalls: f.liveCalls,
    onCall(call) {
      const recorder = new MemoryRecorder()
      const runtime = new GraphRuntime(def, config, { now: () => new Date() }, initialState(def, {}), { channel: 'web', session_id: call.callId })
      const session = new CallSession({
        transport: new WebSocketTransport(call.channel),
        runtime,
        vad,
        stt: new DeepgramLiveStt({ apiKey: 'dg-key', baseUrl: dg.url }),
        tts,
        ttsCache,
        strategy: new SilenceStrategy({ silenceMs: config.turn_taking.endpointing_ms, preemptive: config.turn_taking.preemptive_generation }),
        bargeIn: { minWords: config.turn_taking.interruption_min_words, minSpeechMs: config.turn_taking.interruption_min_duration_ms },
        language: 'en',
        recorder,
        limits: { maxDurationMs: 120_000, silenceTimeoutMs: 60_000, ...o.limits },
        // One frame of lead: the stop on barge-in is exact to a frame (see playout.ts).
        playout: { leadMs: 40 },
      })
      sessions.push({ session, recorder })
      session.start()
    },
  })
  const server = await createSocketServer(gate, { prefer: 'ws', path: PATH, maxPayloadBytes: MAX_PAYLOAD_BYTES })
  const port = await server.listen('127.0.0.1', 0)
  t.teardown(() => server.close())
  const clients: TestClient[] = []
  t.teardown(() => clients.forEach((c) => c.ws.terminate()))
  const connect = async () => {
    const { token } = await f.tokens.mint({ ...f.binding })
    const c = TestClient.connect(`ws://127.0.0.1:${port}${PATH}?token=${token}&v=1`)
    clients.push(c)
    await c.event((e) => e.type === 'hello')
    return c
  }
  return { dg, sessions, connect, tts }
}

/** espeak-ng, recording when it was asked to prewarm and to synthesize (the HTTP providers' hook). */
export class WatchedTts implements TtsProvider {
  readonly name: string
  readonly prewarms: number[] = []
  readonly synthesized: { text: string; at: number }[] = []
  constructor(private readonly inner: TtsProvider) {
    this.name = inner.name
  }

  prewarm(): void {
    this.prewarms.push(performance.now())
  }

  synthesize(text: string, o: SynthesizeOptions): AsyncIterable<Int16Array> {
    this.synthesized.push({ text, at: performance.now() })
    return this.inner.synthesize(text, o)
  }
}

/**
 * A microphone: sends a 20 ms frame every 20 ms (real time, paced from a fixed start so timer
 * lateness does not drift), speech when some is queued, silence otherwise.
 */
export class Mic {
  private queue: { pcm: Int16Array; at: number; done: () => void }[] = []
  private timer: NodeJS.Timeout | null = null
  private sent = 0
  private readonly t0 = performance.now()
  private readonly silence = new Int16Array(FRAME_SAMPLES)

  constructor(private readonly client: TestClient) {
    const loop = () => {
      const due = Math.floor((performance.now() - this.t0) / 20)
      while (this.sent < due && this.client.ws.readyState === this.client.ws.OPEN) {
        this.client.ws.send(pcmToBytes(this.next()))
        this.sent++
      }
      this.timer = setTimeout(loop, 10)
    }
    this.timer = setTimeout(loop, 10)
  }

  /** Resolves when the last frame of `pcm` has been sent. */
  say(pcm: Int16Array): Promise<void> {
    return new Promise((done) => this.queue.push({ pcm, at: 0, done }))
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  private next(): Int16Array {
    const head = this.queue[0]
    if (!head) return this.silence
    const frame = new Int16Array(FRAME_SAMPLES)
    frame.set(head.pcm.subarray(head.at, head.at + FRAME_SAMPLES))
    head.at += FRAME_SAMPLES
    if (head.at >= head.pcm.length) {
      this.queue.shift()
      head.done()
    }
    return frame
  }
}
