import t from 'tap'
import { TtsCache } from '../../../../../engine/pipeline/providers/tts/cache.js'
import { ProviderError } from '../../../../../engine/pipeline/providers/errors.js'
import type { SynthesizeOptions, TtsProvider } from '../../../../../engine/pipeline/providers/tts/types.js'
import { collect, live } from './helpers.js'

/** A provider whose clips are `chunks` chunks of `samples` samples, each gated by a promise the test opens. */
class FakeTts implements TtsProvider {
  readonly name = 'fake'
  calls: { text: string; signal: AbortSignal }[] = []
  rates: (number | undefined)[] = []
  gate: Promise<void> = Promise.resolve()
  failAfter = Infinity

  constructor(
    private readonly chunks = 3,
    private readonly samples = 100,
  ) {}

  async *synthesize(text: string, o: SynthesizeOptions): AsyncGenerator<Int16Array> {
    this.calls.push({ text, signal: o.signal })
    this.rates.push(o.sampleRate)
    for (let i = 0; i < this.chunks; i++) {
      await this.gate
      o.signal.throwIfAborted()
      if (i >= this.failAfter) throw new ProviderError('tts', 'tts_failed', 'boom', { retryable: true })
      yield new Int16Array(this.samples).fill(text.length + i)
    }
  }
}

t.test('the second request for a line replays it without synthesizing again', async (t) => {
  const p = new FakeTts()
  const cache = new TtsCache()
  const a = await collect(cache.synthesizeCached(p, 'hello', { voice: 'v', signal: live() }))
  const b = await collect(cache.synthesizeCached(p, 'hello', { voice: 'v', signal: live() }))
  t.equal(p.calls.length, 1)
  t.same(b.chunks, a.chunks, 'same chunks, same order')
  t.equal(cache.bytes, 600)
  b.chunks[0]!.fill(0)
  const c = await collect(cache.synthesizeCached(p, 'hello', { voice: 'v', signal: live() }))
  t.equal(c.chunks[0]![0], 5, 'a consumer writing into its chunk does not change the cache')
  await collect(cache.synthesizeCached(p, 'hello', { voice: 'w', signal: live() }))
  await collect(cache.synthesizeCached(p, 'hello', { language: 'tr', signal: live() }))
  t.equal(p.calls.length, 3, 'voice and language are part of the key')
  await collect(cache.synthesizeCached(p, 'hello', { voice: 'v', sampleRate: 8000, signal: live() }))
  t.equal(p.calls.length, 4, "the rate is part of the key: a phone line's 8 kHz clip is another clip")
  t.same(p.rates.at(-1), 8000, 'and the provider is asked for that rate')
  t.ok(cache.has('fake', 'hello', { voice: 'v', sampleRate: 8000 }))
  t.ok(cache.has('fake', 'hello', { voice: 'v', sampleRate: 16000 }), '16 kHz is the default rate')
})

t.test('evicts the least recently used clips to stay within maxBytes', async (t) => {
  const p = new FakeTts(1, 100) // 200 bytes per clip
  const cache = new TtsCache({ maxBytes: 500 })
  for (const text of ['a', 'b']) await collect(cache.synthesizeCached(p, text, { signal: live() }))
  await collect(cache.synthesizeCached(p, 'a', { signal: live() })) // a is now the most recent
  await collect(cache.synthesizeCached(p, 'c', { signal: live() }))
  t.ok(cache.has('fake', 'a') && cache.has('fake', 'c') && !cache.has('fake', 'b'), 'b, the least recently used, went')
  t.equal(cache.bytes, 400)
  const big = new FakeTts(3, 100) // 600 bytes: over the whole budget
  await collect(cache.synthesizeCached(big, 'huge', { signal: live() }))
  t.notOk(cache.has('fake', 'huge'), 'a clip over the budget is played, not stored')
  t.equal(cache.size, 2)
})

t.test('an aborted synthesis is never cached', async (t) => {
  const p = new FakeTts(3)
  const cache = new TtsCache()
  const ac = new AbortController()
  await t.rejects(
    async () => {
      for await (const _ of cache.synthesizeCached(p, 'hello', { signal: ac.signal })) ac.abort(new Error('barge-in'))
    },
    { message: 'barge-in' },
  )
  await new Promise((r) => setImmediate(r))
  t.ok(p.calls[0]!.signal.aborted, 'the provider was told to stop')
  t.notOk(cache.has('fake', 'hello'))
  const again = await collect(cache.synthesizeCached(p, 'hello', { signal: live() }))
  t.equal(again.chunks.length, 3)
  t.equal(p.calls.length, 2, 'the next request synthesizes afresh')
})

t.test('a failed synthesis is not cached and its error reaches the caller', async (t) => {
  const p = new FakeTts(3)
  p.failAfter = 2
  const cache = new TtsCache()
  await t.rejects(collect(cache.synthesizeCached(p, 'hello', { signal: live() })), { code: 'tts_failed' })
  t.equal(cache.size, 0)
})

t.test('concurrent requests for a line share one synthesis; one leaving does not stop the other', async (t) => {
  const p = new FakeTts(3)
  let open!: () => void
  p.gate = new Promise((r) => (open = r))
  const cache = new TtsCache()
  const leaver = new AbortController()
  const first = collect(cache.synthesizeCached(p, 'hello', { signal: live() }))
  const second = collect(cache.synthesizeCached(p, 'hello', { signal: leaver.signal }))
  const third = collect(cache.synthesizeCached(p, 'hello', { signal: live() }))
  await new Promise((r) => setImmediate(r))
  leaver.abort(new Error('hung up'))
  open()
  const [a, b, c] = await Promise.allSettled([first, second, third])
  t.equal(p.calls.length, 1, 'one synthesis')
  t.match(b, { status: 'rejected', reason: { message: 'hung up' } })
  t.ok(a.status === 'fulfilled' && a.value.chunks.length === 3 && c.status === 'fulfilled' && c.value.chunks.length === 3, 'the others got every chunk')
  t.ok(cache.has('fake', 'hello'), 'and the complete clip was cached')
})
