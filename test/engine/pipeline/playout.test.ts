import t from 'tap'
import { FRAME_MS, FRAME_SAMPLES } from '../../../engine/audio/format.js'
import { FakePlayoutClock } from '../../../engine/pipeline/playout-clock.js'
import { heardPrefix, Playout, type PlayoutEvent, type PlayoutInit } from '../../../engine/pipeline/playout.js'

/** `ms` of audio whose samples count up from `from`, so frames can be checked for order and gaps. */
const audio = (ms: number, from = 1) => Int16Array.from({ length: (ms * FRAME_SAMPLES) / FRAME_MS }, (_, i) => (from + i) % 30_000)

function setup(options: Partial<PlayoutInit> = {}, clock = new FakePlayoutClock()) {
  const sent: Array<{ at: number; frame: Int16Array }> = []
  const events: PlayoutEvent[] = []
  const playout = new Playout({ clock, sink: (frame) => sent.push({ at: clock.now(), frame }), onEvent: (e) => events.push(e), ...options })
  return { clock, playout, sent, events }
}

/** Advances fake time in small steps, letting awaiting producers run between them. */
async function run(clock: FakePlayoutClock, ms: number, step = 1): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    clock.advance(Math.min(step, ms - done))
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/** A deterministic PRNG (mulberry32) so jitter tests replay identically. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

t.test('paces N frames over N × 20 ms, sending at most leadMs ahead', async (t) => {
  const { clock, playout, sent } = setup({ leadMs: 60 })
  const seg = playout.beginSegment('hello')
  void seg.push(audio(1000))
  seg.end()
  t.equal(sent.length, 3, 'the lead (60 ms = 3 frames) goes out at once')
  clock.advance(2000)
  t.equal(sent.length, 50)
  // Frame k leaves when its end is within the lead: at (k + 1) × 20 − 60 ms, never earlier.
  t.same(
    sent.map((s) => s.at),
    sent.map((_, k) => Math.max(0, (k + 1) * FRAME_MS - 60)),
  )
  t.ok(sent.every((s) => s.frame.length === FRAME_SAMPLES))
})

t.test('stays drift-free over 10 s when every timer fires up to 15 ms late', async (t) => {
  const lateness = random(7)
  const clock = new FakePlayoutClock(1000, () => lateness() * 15)
  const leadMs = 80
  const { playout, sent } = setup({ leadMs, maxBufferMs: 500 }, clock)
  const seg = playout.beginSegment('a long reply')
  const produce = (async () => {
    for (let i = 0; i < 100; i++) await seg.push(audio(100, i * 1600))
    seg.end()
  })()
  await run(clock, 10_500, 5)
  await produce
  t.equal(sent.length, 500)
  sent.forEach((s, k) => {
    const elapsed = s.at - 1000
    // Audio ahead of real time after this frame: bounded by the lead...
    if ((k + 1) * FRAME_MS - elapsed > leadMs) t.fail(`frame ${k} sent ${(k + 1) * FRAME_MS - elapsed} ms ahead`)
    // ...and the client never ran dry before it arrived.
    if (k * FRAME_MS < elapsed) t.fail(`frame ${k} late: client dry for ${elapsed - k * FRAME_MS} ms`)
  })
  const last = sent.at(-1)!.at - 1000
  t.ok(last >= 10_000 - leadMs && last <= 10_000 - leadMs + 15, `last frame at ${last} ms`)
  t.match(playout.metrics(), { framesSent: 500, underruns: 0, stalls: 0 })
})

t.test('cuts chunks of any size into exact frames, padding only the last', async (t) => {
  const { clock, playout, sent } = setup()
  const seg = playout.beginSegment('odd sizes')
  const sizes = [100, 457, 1000, 13, 700]
  let from = 1
  for (const n of sizes) {
    void seg.push(Int16Array.from({ length: n }, (_, i) => from + i))
    from += n
  }
  seg.end()
  clock.advance(1000)
  const total = sizes.reduce((a, b) => a + b, 0)
  t.equal(sent.length, Math.ceil(total / FRAME_SAMPLES))
  t.ok(sent.every((s) => s.frame.length === FRAME_SAMPLES))
  const joined = Int16Array.from(sent.flatMap((s) => [...s.frame]))
  t.same(
    [...joined.subarray(0, total)],
    Array.from({ length: total }, (_, i) => i + 1),
    'samples in order, none lost',
  )
  t.ok(
    joined.subarray(total).every((v) => v === 0),
    'the tail is zero-padded',
  )
})

t.test('admitted audio is a copy, and by default a whole long reply is admitted at once', async (t) => {
  const { clock, playout, sent } = setup()
  const seg = playout.beginSegment('a long reply')
  // 15 s arriving faster than real time, as TTS providers send it: read without waiting.
  const chunk = new Int16Array(4800)
  for (let k = 0; k < 50; k++) {
    chunk.fill(k + 1)
    t.equal(await seg.push(chunk), true)
  }
  seg.end()
  t.equal(playout.bufferedMs, 15_000 - 60, 'all queued but the lead already sent')
  clock.advance(16_000)
  t.equal(sent.length, 750)
  // The producer refilled the same array for every chunk: each frame still holds its own chunk's value.
  t.ok(sent.every((s, i) => s.frame.every((v) => v === Math.floor((i * FRAME_SAMPLES) / 4800) + 1)))
})

t.test('bounded buffer: push waits when full and resumes as frames are sent', async (t) => {
  const { clock, playout, sent } = setup({ leadMs: 20, maxBufferMs: 100 })
  const seg = playout.beginSegment('backpressure')
  const settled: boolean[] = []
  const push = (ms: number) => {
    const i = settled.length
    settled.push(false)
    void seg.push(audio(ms)).then(() => (settled[i] = true))
  }
  push(20) // sent at once (the lead)
  for (let i = 0; i < 5; i++) push(20) // fills 100 ms
  push(20)
  push(20)
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(sent.length, 1)
  t.equal(playout.bufferedMs, 100)
  t.same(settled, [true, true, true, true, true, true, false, false], 'the pushes over the bound wait')
  await run(clock, 20)
  t.equal(sent.length, 2)
  t.same(settled.slice(6), [true, false], 'one frame out lets one chunk in')
  t.ok(playout.bufferedMs <= 100)
  await run(clock, 20)
  t.same(settled.slice(6), [true, true])
})

t.test('a prefetched next phrase cannot starve the playing one of room', async (t) => {
  const { clock, playout, sent } = setup({ leadMs: 20, maxBufferMs: 100 })
  const first = playout.beginSegment('first')
  const second = playout.beginSegment('second')
  void first.push(audio(20))
  void second.push(audio(100))
  const late = first.push(audio(40))
  let ok: boolean | undefined
  void late.then((v) => (ok = v))
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(ok, true, 'the playing segment is admitted though the buffer is full')
  first.end()
  second.end()
  clock.advance(1000)
  t.equal(sent.length, 8)
})

t.test('pause stops within one frame and resume continues where it stopped', async (t) => {
  const { clock, playout, sent, events } = setup({ leadMs: 60 })
  const seg = playout.beginSegment('one two three')
  void seg.push(audio(1000))
  seg.end()
  clock.advance(205)
  const before = sent.length
  playout.pause()
  clock.advance(2000)
  t.equal(sent.length, before, 'nothing is sent while paused')
  t.equal(playout.bufferedMs, 1000 - before * FRAME_MS, 'queued audio is kept')
  playout.resume()
  t.equal(sent.length, before + 3, 'the client ran dry: the lead is sent again at once')
  clock.advance(2000)
  t.equal(sent.length, 50)
  const samples = sent.flatMap((s) => [...s.frame])
  t.same(samples, [...audio(1000)], 'no frame lost or repeated across the pause')
  t.equal(playout.metrics().underruns, 0, 'a pause is not an underrun')
  t.equal(events.at(-1)?.type, 'drained')
})

t.test('pause from inside the sink makes the frame in progress the last one', async (t) => {
  const clock = new FakePlayoutClock()
  let n = 0
  const playout: Playout = new Playout({ clock, leadMs: 60, sink: () => ++n === 2 && playout.pause() })
  const seg = playout.beginSegment('x')
  void seg.push(audio(200))
  clock.advance(100)
  t.equal(n, 2)
})

t.test('interrupt drops queued audio and keeps a word-boundary prefix as heard', async (t) => {
  const { clock, playout, sent, events } = setup({ leadMs: 60, maxBufferMs: 500 })
  playout.startTurn()
  const text = 'one two three four five six seven eight nine ten'
  const seg = playout.beginSegment(text)
  void seg.push(audio(500))
  const waiting = seg.push(audio(500))
  seg.end()
  clock.advance(400)
  t.equal(sent.length, 23, '460 ms of 1000 ms sent')
  // 46 % of 49 characters = 22.5: "five" ends at 23, so it is not claimed.
  const cut = playout.interrupt()
  t.same(cut, { heardText: 'one two three four', interrupted: true })
  t.equal(await waiting, false, 'a push waiting for room is released')
  t.equal(await seg.push(audio(20)).catch(() => 'threw'), false, 'late TTS audio is refused')
  clock.advance(2000)
  t.equal(sent.length, 23, 'nothing after the interrupt')
  t.same(playout.heard(), [{ text: 'one two three four', complete: false, interrupted: true }])
  t.match(events.at(-1), { type: 'interrupted', heardText: 'one two three four' })
  t.equal(playout.bufferedMs, 0)

  playout.startTurn()
  const next = playout.beginSegment('Next turn.')
  void next.push(audio(40))
  next.end()
  clock.advance(100)
  t.equal(sent.length, 25, 'the next turn plays')
  t.same(playout.heard(), [{ text: 'Next turn.', complete: true, interrupted: false }])
})

t.test('aborting the turn signal interrupts; aborting the call signal closes', async (t) => {
  const call = new AbortController()
  const { clock, playout, sent } = setup({ signal: call.signal })
  const turn = new AbortController()
  playout.startTurn(turn.signal)
  const seg = playout.beginSegment('hello there')
  void seg.push(audio(200))
  seg.end()
  clock.advance(40)
  const n = sent.length
  turn.abort()
  clock.advance(500)
  t.equal(sent.length, n)
  t.ok(playout.idle)
  t.equal(await playout.beginSegment('late').push(audio(20)), false, 'a segment of an aborted turn is refused')

  playout.startTurn()
  const again = playout.beginSegment('again')
  t.equal(await again.push(audio(20)), true)
  call.abort()
  t.equal(await again.push(audio(20)), false)
  t.equal(await playout.beginSegment('after close').push(audio(20)), false)
})

t.test('two segments play back to back and report in order', async (t) => {
  const { clock, playout, sent, events } = setup({ leadMs: 60 })
  const a = playout.beginSegment('Hello there.')
  const b = playout.beginSegment('How are you?')
  void a.push(audio(100, 1))
  a.end()
  void b.push(audio(100, 1601))
  b.end()
  clock.advance(500)
  t.equal(sent.length, 10)
  t.same(
    sent.map((s) => s.at),
    sent.map((_, k) => Math.max(0, (k + 1) * FRAME_MS - 60)),
    'no gap at the phrase boundary',
  )
  t.same(
    events.map((e) => `${e.type}${'text' in e ? ` ${e.text}` : ''}@${e.at}`),
    [
      'segment_started Hello there.@0',
      'segment_finished Hello there.@40',
      'segment_started How are you?@60',
      'segment_finished How are you?@140',
      'drained@140',
    ],
  )
  t.match(events.at(-1), { type: 'drained', audioEndsAt: 200 })
  t.equal(playout.heardText(), 'Hello there. How are you?')
  t.ok(playout.heard().every((h) => h.complete))
})

t.test('underruns: a segment running dry mid-way counts, a gap between phrases does not', async (t) => {
  const { clock, playout, sent } = setup({ leadMs: 60 })
  const seg = playout.beginSegment('slow tts')
  void seg.push(audio(100))
  clock.advance(300)
  t.equal(sent.length, 5)
  void seg.push(audio(100, 1601)) // the client ran out at 100 ms: 200 ms of dead air
  seg.end()
  clock.advance(300)
  t.equal(sent.length, 10)
  t.same(
    sent.slice(5, 8).map((s) => s.at),
    [300, 300, 300],
    'restarts with the lead, no burst beyond it',
  )
  t.match(playout.metrics(), { underruns: 1, underrunMs: 200, framesSent: 10 })

  const next = playout.beginSegment('next phrase')
  clock.advance(500)
  void next.push(audio(40))
  next.end()
  clock.advance(100)
  t.match(playout.metrics(), { underruns: 1, underrunMs: 200, framesSent: 12 })
  t.match(playout.metrics(), { phraseGaps: 1, phraseGapMs: 700 }, 'the gap is counted as one between phrases (400 → 1100 ms)')
})

t.test("the turn's first phrase waiting for TTS is no gap", async (t) => {
  const { clock, playout } = setup({ leadMs: 60 })
  const seg = playout.beginSegment('first')
  clock.advance(400)
  void seg.push(audio(100))
  seg.end()
  clock.advance(200)
  t.match(playout.metrics(), { phraseGaps: 0, underruns: 0, stalls: 0, framesSent: 5 })
})

t.test('audio arriving before the client runs dry is not an underrun', async (t) => {
  const { clock, playout } = setup({ leadMs: 60 })
  const seg = playout.beginSegment('fine')
  void seg.push(audio(100))
  clock.advance(70) // sent up to 100 ms, client has played 70
  void seg.push(audio(100))
  seg.end()
  clock.advance(500)
  t.match(playout.metrics(), { underruns: 0, framesSent: 10 })
})

t.test('metrics: first chunk and first frame of the turn', async (t) => {
  const { clock, playout } = setup()
  clock.advance(50)
  playout.startTurn()
  const seg = playout.beginSegment('hi')
  clock.advance(30)
  void seg.push(audio(20))
  t.match(playout.metrics(), { firstChunkAt: 80, firstFrameAt: 80, framesSent: 1 })
  playout.startTurn()
  t.match(playout.metrics(), { firstChunkAt: null, firstFrameAt: null, framesSent: 0 })
})

t.test('heard text of a segment still streaming is estimated from its text, not overstated', async (t) => {
  const { clock, playout } = setup({ leadMs: 20, msPerChar: 60 })
  const text = 'alpha beta gamma delta' // 22 chars ≈ 1320 ms by the estimate
  const seg = playout.beginSegment(text)
  void seg.push(audio(660))
  clock.advance(1000) // all 660 ms sent, TTS not finished
  t.same(playout.heard(), [{ text: 'alpha beta', complete: false, interrupted: false }], '50 % of 22 chars = 11: only "alpha beta" fits')
})

t.test('heardPrefix never claims a word not fully played', async (t) => {
  t.equal(heardPrefix('one two three', 0), '')
  t.equal(heardPrefix('one two three', 3 / 13), 'one')
  t.equal(heardPrefix('one two three', 6 / 13), 'one')
  t.equal(heardPrefix('one two three', 7 / 13), 'one two')
  t.equal(heardPrefix('Yes, sure.', 1), 'Yes, sure.')
  t.equal(heardPrefix('Yes, sure.', 2), 'Yes, sure.')
})

t.test('options are validated up front', async (t) => {
  const sink = () => {}
  t.throws(() => new Playout({ sink, leadMs: 10 }), RangeError)
  t.throws(() => new Playout({ sink, maxBufferMs: Number.NaN }), RangeError)
  t.throws(() => new Playout({ sink, msPerChar: 0 }), RangeError)
  t.throws(() => new Playout({ sink, sampleRate: 44_100 as 16000 }), RangeError, 'a rate with no frame size of its own')
})

t.test('a timer later than the lead is a stall: sending restarts from now instead of bursting', async (t) => {
  const clock = new FakePlayoutClock(0, () => 100)
  const { playout, sent } = setup({ leadMs: 60 }, clock)
  const seg = playout.beginSegment('stalled')
  void seg.push(audio(200))
  seg.end()
  clock.advance(150) // the first timer (due at 0 + 20) fires at 120; the client ran dry at 60
  t.same(
    sent.map((s) => s.at),
    [0, 0, 0, 120, 120, 120],
    'only the lead is sent on catch-up',
  )
  t.match(playout.metrics(), { stalls: 1, stallMs: 60, underruns: 0 })
})

t.test("at a phone line's 8 kHz: 160-sample frames on the same 20 ms pacing, the bound and the heard text in time", async (t) => {
  const at8k = (ms: number, from = 1) => Int16Array.from({ length: ms * 8 }, (_, i) => (from + i) % 30_000)
  const { clock, playout, sent } = setup({ sampleRate: 8000, leadMs: 20, maxBufferMs: 100, msPerChar: 60 })
  const text = 'alpha beta gamma delta' // 22 chars ≈ 1320 ms by the estimate
  const seg = playout.beginSegment(text)
  t.equal(await seg.push(at8k(100)), true)
  let admitted = false
  const second = seg.push(at8k(40, 801)).then((ok) => (admitted = ok))
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(sent.length, 1, 'the lead: one frame')
  t.equal(sent[0]!.frame.length, 160, 'a 20 ms frame of 160 samples')
  t.equal(playout.bufferedMs, 80, 'buffered audio is counted in ms at 8 kHz')
  t.equal(admitted, false, '80 + 40 ms would pass the 100 ms bound: the push waits')
  await run(clock, 20)
  await second
  t.equal(admitted, true, 'one 20 ms frame out makes room for it')
  await run(clock, 400)
  t.same(
    sent.map((s) => s.at),
    [0, 20, 40, 60, 80, 100, 120],
    '140 ms in 7 frames, paced every 20 ms',
  )
  t.ok(
    sent.every((s) => s.frame.length === 160),
    'every frame 160 samples',
  )
  t.same(Array.from(sent[5]!.frame.subarray(0, 3)), [801, 802, 803], 'in order, no sample lost')
  // 140 ms sent of an estimated 1320: under 11 % of 22 characters, no whole word yet.
  t.same(playout.heard(), [{ text: '', complete: false, interrupted: false }])
  void seg.push(at8k(520, 2000))
  await run(clock, 600)
  t.same(playout.heard(), [{ text: 'alpha beta', complete: false, interrupted: false }], '660 ms of 1320: "alpha beta", as at 16 kHz')
})

t.test('a sink that reads at once MUST get one array, refilled, with the same samples as fresh frames and the tail zero-padded', async (t) => {
  const fresh: Int16Array[] = []
  const reused: Int16Array[] = []
  const arrays = new Set<Int16Array>()
  for (const [sinkReadsAtOnce, into] of [
    [false, fresh],
    [true, reused],
  ] as const) {
    const clock = new FakePlayoutClock()
    const playout = new Playout({
      clock,
      sinkReadsAtOnce,
      sink: (frame) => {
        into.push(frame.slice()) // what the sink read, when it read it
        if (sinkReadsAtOnce) arrays.add(frame)
      },
    })
    const seg = playout.beginSegment('hello there')
    void seg.push(audio(210)) // 10½ frames: the last one half audio, half padding
    seg.end()
    clock.advance(1000)
    // A second segment after a pause: its short frame must not carry the first one's samples.
    const next = playout.beginSegment('again')
    void next.push(audio(5, 7))
    next.end()
    clock.advance(1000)
  }
  t.equal(reused.length, 12)
  t.same(reused, fresh)
  t.equal(arrays.size, 1, 'one array for every frame')
  t.same([...reused[11]!.subarray(80)], new Array(FRAME_SAMPLES - 80).fill(0), 'the short frame is padded with zeros')
})
