import t from 'tap'
import { DEFAULT_JITTER_BUFFER_MS, JitterBuffer, jitterBufferOptions } from '../../client/src/jitter-buffer.js'

// The playback jitter buffer (client/src/jitter-buffer.ts), driven as the playback worklet drives
// it: writes of whatever arrives, reads of one 128-sample render quantum each.

const QUANTUM = 128
/** Small numbers keep the arithmetic visible: prebuffer 256, capacity 1024, gap limit 512 samples. */
const small = () => new JitterBuffer({ prebufferSamples: 256, capacitySamples: 1024, gapLimitSamples: 512 })
/** `n` samples counting up from `from`, so what comes out says which samples it was. */
const ramp = (n: number, from = 1) => Float32Array.from({ length: n }, (_, i) => from + i)
const read = (b: JitterBuffer) => {
  const out = new Float32Array(QUANTUM)
  const real = b.read(out)
  return { out, real }
}

t.test('the defaults at 48 kHz: 60 ms prebuffer (≤ the 60 ms target), 1 s capacity, 250 ms gap limit', async (t) => {
  t.same(jitterBufferOptions(48_000), { prebufferSamples: 2880, capacitySamples: 48_000, gapLimitSamples: 12_000 })
  t.ok(DEFAULT_JITTER_BUFFER_MS.prebufferMs <= 60)
})

t.test('prebuffer: silence until prebufferSamples are held, then the audio in order', async (t) => {
  const b = small()
  t.equal(b.state, 'idle')
  t.same(read(b).real, 0, 'nothing to play')
  b.write(ramp(200))
  t.equal(b.state, 'prebuffering')
  const first = read(b)
  t.equal(first.real, 0, 'below the prebuffer: silence')
  t.ok(first.out.every((v) => v === 0))
  b.write(ramp(100, 201))
  t.equal(b.bufferedSamples, 300)
  const second = read(b)
  t.equal(b.state, 'playing')
  t.equal(second.real, QUANTUM)
  t.same(Array.from(second.out.slice(0, 3)), [1, 2, 3], 'from the first sample written')
})

t.test('a short line still plays: prebuffering waits at most prebufferSamples of time', async (t) => {
  const b = small()
  b.write(ramp(100))
  t.equal(read(b).real, 0)
  t.equal(read(b).real, 0, '256 samples of waiting done')
  const { out, real } = read(b)
  t.equal(real, 100, 'then it plays what it has')
  t.same(Array.from(out.slice(98, 101)), [99, 100, 0], 'and silence after it')
})

t.test('steady state: writes of 20 ms frames and reads of quanta keep every sample, no underrun', async (t) => {
  const rate = 48_000
  const b = new JitterBuffer(jitterBufferOptions(rate))
  const frame = (rate * 20) / 1000
  let written = 0
  let played = 0
  let next = 1
  // 2 s in real time: a frame every 20 ms, a quantum every 128 samples.
  for (let sample = 0; sample < rate * 2; sample += QUANTUM) {
    while (written * frame <= sample + (rate * 60) / 1000) {
      b.write(ramp(frame, written * frame + 1))
      written++
    }
    const { out, real } = read(b)
    for (let i = 0; i < real; i++) {
      if (out[i] !== next) return t.fail(`sample ${next} came out as ${out[i]}`)
      next++
    }
    played += real
  }
  t.equal(b.underruns, 0)
  t.equal(b.droppedSamples, 0)
  t.ok(played > rate * 1.9, `played ${played} samples`)
  t.ok(b.bufferedSamples <= (rate * 80) / 1000, `holding ${b.bufferedSamples} samples`)
})

t.test('underrun: running dry mid-stream is counted when audio returns within the gap limit, then prebuffers again', async (t) => {
  const b = small()
  b.write(ramp(300))
  read(b)
  read(b)
  const dry = read(b)
  t.equal(dry.real, 300 - 2 * QUANTUM, 'the last 44 samples')
  t.equal(b.state, 'starved')
  t.equal(read(b).real, 0, 'a gap the listener hears')
  b.write(ramp(100, 1000))
  t.equal(b.underruns, 1)
  t.equal(b.state, 'prebuffering', 'waits for the prebuffer before resuming')
  t.equal(read(b).real, 0)
})

t.test('a silence longer than the gap limit is the agent not speaking: no underrun', async (t) => {
  const b = small()
  b.write(ramp(300))
  for (let i = 0; i < 3; i++) read(b)
  for (let i = 0; i < 4; i++) read(b) // 4 × 128 = 512 = the gap limit
  t.equal(b.state, 'idle')
  b.write(ramp(300))
  t.equal(b.underruns, 0)
  t.equal(b.state, 'prebuffering')
})

t.test('flush: drops everything at once (a barge-in), counts no underrun, and new audio starts clean', async (t) => {
  const b = small()
  b.write(ramp(800))
  read(b)
  t.equal(b.state, 'playing')
  b.flush()
  t.equal(b.bufferedSamples, 0)
  t.equal(b.state, 'idle')
  const after = read(b)
  t.equal(after.real, 0)
  t.ok(
    after.out.every((v) => v === 0),
    'not one sample of the flushed audio',
  )
  b.write(ramp(300, 5000))
  t.equal(b.underruns, 0)
  read(b)
  t.same(Array.from(read(b).out.slice(0, 2)), [5128, 5129], 'the next line plays from its own start')
})

t.test('bounded: a full buffer drops its oldest samples and counts them', async (t) => {
  const b = small()
  b.write(ramp(1000))
  b.write(ramp(100, 1001))
  t.equal(b.bufferedSamples, 1024, 'never more than capacitySamples')
  t.equal(b.droppedSamples, 76)
  read(b)
  read(b)
  t.same(Array.from(read(b).out.slice(0, 1)), [77 + 256], 'the oldest 76 went first')
  const held = b.bufferedSamples
  b.write(ramp(5000, 1))
  t.equal(b.bufferedSamples, 1024)
  t.equal(b.droppedSamples, 76 + held + (5000 - 1024), 'a write larger than the buffer drops all it held and its own oldest part')
  t.same(Array.from(read(b).out.slice(0, 1)), [5000 - 1024 + 1], 'what is left is the newest 1024 samples')
})

t.test('options are checked up front', async (t) => {
  t.throws(() => new JitterBuffer({ prebufferSamples: 10, capacitySamples: 0, gapLimitSamples: 0 }), RangeError)
  t.throws(() => new JitterBuffer({ prebufferSamples: 2000, capacitySamples: 1024, gapLimitSamples: 0 }), RangeError)
  t.throws(() => new JitterBuffer({ prebufferSamples: 1.5, capacitySamples: 1024, gapLimitSamples: 0 }), RangeError)
})
