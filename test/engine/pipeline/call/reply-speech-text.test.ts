// Issue 23 item 1, "the engine speaks with it": the text a TTS provider receives has numbers,
// money and times in words for the agent's language, while what was heard (the transcript and
// the model's history) keeps what the model wrote.
import t from 'tap'
import type { GraphRuntime, RuntimeEvent } from '../../../../engine/graph-runtime/index.js'
import type { ControllerFrame } from '../../../../engine/pipeline/frames.js'
import { ReplyGenerator } from '../../../../engine/pipeline/call/reply-generator.js'
import { realPlayoutClock } from '../../../../engine/pipeline/playout-clock.js'
import { TtsCache } from '../../../../engine/pipeline/providers/tts/cache.js'
import type { SynthesizeOptions, TtsProvider } from '../../../../engine/pipeline/providers/tts/types.js'

/** Records what it is asked to say and answers 20 ms of silence per phrase. */
class RecordingTts implements TtsProvider {
  readonly name = 'recording'
  readonly texts: string[] = []
  async *synthesize(text: string, _o: SynthesizeOptions): AsyncGenerator<Int16Array> {
    this.texts.push(text)
    yield new Int16Array(320)
  }
}

/** A runtime whose every turn streams `deltas` as an LLM would, then the whole utterance. */
function streamingRuntime(deltas: string[]): GraphRuntime {
  const events = async function* (): AsyncGenerator<RuntimeEvent> {
    for (const text of deltas) yield { type: 'text_delta', text }
    yield { type: 'say', text: deltas.join(''), source: 'llm' }
  }
  return { turn: events, start: events, transferFailed: events, replyHeard: async () => {} } as unknown as GraphRuntime
}

async function speak(language: string, origin: Parameters<ReplyGenerator['start']>[1], deltas: string[] = [], ttsCache?: TtsCache) {
  const tts = new RecordingTts()
  const frames: ControllerFrame[] = []
  const ac = new AbortController()
  let done!: (heard: string) => void
  const heard = new Promise<string>((resolve) => (done = resolve))
  const replies = new ReplyGenerator({
    runtime: streamingRuntime(deltas),
    tts,
    ...(ttsCache ? { ttsCache } : {}),
    language,
    clock: realPlayoutClock,
    writeAudio: async () => {},
    signal: ac.signal,
    report(frame) {
      frames.push(frame)
      if (frame.type === 'reply_heard') done(frame.heard)
    },
  })
  replies.start('r1', origin)
  const heardText = await heard
  replies.close()
  ac.abort()
  return { texts: tts.texts, heardText, characters: replies.synthesizedCharacters }
}

t.test('a Turkish reply streamed by the model reaches TTS with money and times in words', async (t) => {
  const deltas = ['Toplam tutar 1.2', '50,50 TL', '. Randevunuz saat 14:', "30'da, 3. katta."]
  const r = await speak('tr-TR', { type: 'answer', text: 'ne kadar?', preempted: false }, deltas)
  t.same(r.texts, ['Toplam tutar bin iki yüz elli lira elli kuruş.', 'Randevunuz saat on dört otuzda, üçüncü katta.'])
  t.equal(r.heardText, "Toplam tutar 1.250,50 TL. Randevunuz saat 14:30'da, 3. katta.", 'what was heard keeps what the model wrote')
  t.equal(r.characters, r.texts.join('').length, 'metering counts the characters the provider was given')
})

t.test('an English reply reaches TTS in English words', async (t) => {
  const r = await speak('en-US', { type: 'answer', text: 'how much?', preempted: false }, ['That is $1,250.50, due on 11/27/2026.'])
  // The first phrase ends at its first clause (phrase-chunker.ts); neither cut falls inside "$1,250.50".
  t.same(r.texts, ['That is one thousand two hundred fifty dollars and fifty cents,', 'due on November twenty-seventh, twenty twenty-six.'])
})

t.test('a fixed line is read in words too, from the TTS cache under its spoken text', async (t) => {
  const cache = new TtsCache()
  const first = await speak('en', { type: 'line', text: 'Your code is 42.' }, [], cache)
  t.same(first.texts, ['Your code is forty-two.'])
  const again = await speak('en', { type: 'line', text: 'Your code is 42.' }, [], cache)
  t.same(again.texts, [], 'the second time comes from the cache')
  t.equal(again.characters, 0, 'and costs nothing')
})

t.test('a language the helpers do not speak reaches TTS as written', async (t) => {
  const r = await speak('de-DE', { type: 'answer', text: 'wie viel?', preempted: false }, ['Das kostet 1.250,50 €.'])
  t.same(r.texts, ['Das kostet 1.250,50 €.'])
})
