import t from 'tap'
import { SpeechDetector, Windower, type SpeechEvent } from '../../../engine/vad/detector.js'

const WINDOW = 32

/** Feeds one probability per 32 ms window, the first window ending at 32 ms. */
function run(probabilities: number[], detector = new SpeechDetector()): SpeechEvent[] {
  const events: SpeechEvent[] = []
  probabilities.forEach((p, i) => events.push(...detector.process(p, (i + 1) * WINDOW)))
  return events
}
const windows = (count: number, p: number): number[] => Array<number>(count).fill(p)

t.test('speech is confirmed after minSpeechMs and dated from its first window', async (t) => {
  const events = run([...windows(10, 0), ...windows(8, 0.9)])
  t.same(events, [{ type: 'speech_start', at: 320, confirmedAt: 576 }])
})

t.test('speech shorter than minSpeechMs is a misfire and never reported', async (t) => {
  t.same(run([...windows(5, 0), ...windows(7, 0.9), ...windows(20, 0)]), [])
})

t.test('speech_end is dated where speech stopped, confirmed after silenceMs', async (t) => {
  const events = run([...windows(10, 0.9), ...windows(10, 0.1)])
  t.same(events[1], { type: 'speech_end', at: 320, confirmedAt: 320 + 320 })
  t.ok(events[1]!.confirmedAt - events[1]!.at >= 300)
})

t.test('a pause shorter than silenceMs is bridged', async (t) => {
  const events = run([...windows(10, 0.9), ...windows(9, 0.1), ...windows(10, 0.9), ...windows(10, 0)])
  t.same(
    events.map((e) => e.type),
    ['speech_start', 'speech_end'],
  )
  t.equal(events[1]!.at, 29 * WINDOW)
})

t.test('hysteresis: between the thresholds keeps speech going but does not start it', async (t) => {
  t.same(run(windows(20, 0.4)), [], '0.4 never starts speech')
  const events = run([...windows(10, 0.9), ...windows(20, 0.4), ...windows(10, 0)])
  t.equal(events[1]!.at, 30 * WINDOW, '0.4 after speech is still speech')
})

t.test('while stopping, only a window above the positive threshold resumes speech', async (t) => {
  // 0.2 starts the silence, 0.4s neither resume nor reset the timer.
  const events = run([...windows(10, 0.9), 0.2, ...windows(12, 0.4)])
  t.same(events[1], { type: 'speech_end', at: 320, confirmedAt: 320 + 320 })
})

t.test('options are honoured and validated', async (t) => {
  const events = run([...windows(4, 0.9), ...windows(4, 0)], new SpeechDetector({ minSpeechMs: 64, silenceMs: 64 }))
  t.same(events, [
    { type: 'speech_start', at: 0, confirmedAt: 64 },
    { type: 'speech_end', at: 128, confirmedAt: 192 },
  ])
  t.throws(() => new SpeechDetector({ negativeThreshold: 0.6 }), RangeError)
  t.throws(() => new SpeechDetector({ silenceMs: -1 }), RangeError)
})

t.test('finish ends open speech where it was last heard', async (t) => {
  const detector = new SpeechDetector()
  run([...windows(10, 0.9), ...windows(3, 0)], detector)
  t.equal(detector.state, 'stopping')
  t.same(detector.finish(13 * WINDOW), [{ type: 'speech_end', at: 320, confirmedAt: 416 }])
  t.equal(detector.state, 'quiet')
  t.same(new SpeechDetector().finish(0), [])
})

t.test('the Windower cuts any chunking into the same stamped windows', async (t) => {
  const input = Int16Array.from({ length: 512 * 3 + 100 }, (_, i) => i % 30000)
  for (const size of [1, 100, 512, 700, input.length]) {
    const windower = new Windower(1000)
    const out = []
    for (let i = 0; i < input.length; i += size) out.push(...windower.push(input.subarray(i, i + size)))
    t.same(
      out.map((w) => w.endMs),
      [1032, 1064, 1096],
      `chunks of ${size}`,
    )
    t.same(Array.from(out[1]!.samples), Array.from(input.subarray(512, 1024)))
    t.equal(windower.buffered, 100)
  }
})

t.test('each window is its own buffer', async (t) => {
  const windower = new Windower()
  const [a] = windower.push(new Int16Array(512).fill(1))
  windower.push(new Int16Array(512).fill(2))
  t.equal(a!.samples[0], 1)
})

t.test('reportPauses: a pause is reported at the first quiet window, then a resume or the end', async (t) => {
  const d = new SpeechDetector({ reportPauses: true, minSpeechMs: 64, silenceMs: 128, windowMs: 32 })
  const feed = (probs: number[], from: number) => probs.flatMap((p, i) => d.process(p, from + (i + 1) * 32))
  t.same(feed([0.9, 0.9, 0.9], 0), [{ type: 'speech_start', at: 0, confirmedAt: 64 }])
  t.same(feed([0.1], 96), [{ type: 'speech_pause', at: 96, confirmedAt: 128 }])
  t.same(feed([0.9], 128), [{ type: 'speech_resume', at: 128, confirmedAt: 160 }], 'back within silenceMs')
  t.same(
    feed([0.1, 0.1, 0.1, 0.1], 160),
    [
      { type: 'speech_pause', at: 160, confirmedAt: 192 },
      { type: 'speech_end', at: 160, confirmedAt: 288 },
    ],
    'the end carries the pause’s instant',
  )
  const quiet = new SpeechDetector({ minSpeechMs: 64, silenceMs: 128, windowMs: 32 })
  const events = [0.9, 0.9, 0.9, 0.1, 0.9, 0.1, 0.1, 0.1, 0.1].flatMap((p, i) => quiet.process(p, (i + 1) * 32))
  t.same(
    events.map((e) => e.type),
    ['speech_start', 'speech_end'],
    'off by default',
  )
})

t.test('Windower.cut visits the windows push() returns, in one array it refills', async (t) => {
  const pcm = Int16Array.from({ length: 5000 }, (_, i) => (i * 7919) % 20011)
  const copies = new Windower(0, 8000).push(pcm)
  const visited: Array<{ samples: number[]; endMs: number }> = []
  const arrays = new Set<Int16Array>()
  const windower = new Windower(0, 8000)
  // Chunks of odd sizes, some spanning two windows.
  for (const [from, to] of [
    [0, 100],
    [100, 700],
    [700, 701],
    [701, 5000],
  ] as const) {
    windower.cut(pcm.subarray(from, to), (w) => {
      arrays.add(w.samples)
      visited.push({ samples: [...w.samples], endMs: w.endMs })
    })
  }
  t.equal(visited.length, Math.floor(5000 / 256))
  t.same(
    visited,
    copies.map((w) => ({ samples: [...w.samples], endMs: w.endMs })),
  )
  t.equal(arrays.size, 1, 'no array per window')
  t.equal(windower.buffered, 5000 % 256)
  t.equal(new Set(copies.map((w) => w.samples.buffer)).size, copies.length, 'push() gives each window an array of its own')
})
