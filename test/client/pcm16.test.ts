import t from 'tap'
import { FRAME_BYTES, FrameAssembler, floatToInt16, pcm16ToFloat } from '../../client/src/pcm16.js'
import { LevelMeter, levelFromRms } from '../../client/src/level-meter.js'

// The protocol's frames and the volume levels (client/src/pcm16.ts, level-meter.ts).

t.test('640-byte frames from any block sizes, little-endian, clipped', async (t) => {
  const a = new FrameAssembler()
  const samples = Float32Array.from({ length: 1000 }, (_, i) => (i % 2 ? 0.5 : -2))
  const frames = [...a.push(samples.subarray(0, 46)), ...a.push(samples.subarray(46, 700)), ...a.push(samples.subarray(700), 260)]
  t.equal(frames.length, 3, '960 samples in blocks of 46, 654 and 260 make three whole 320-sample frames')
  t.ok(frames.every((f) => f.byteLength === FRAME_BYTES))
  const view = new DataView(frames[0]!)
  t.equal(view.getInt16(0, true), -32768, '−2 clips to −32768')
  t.equal(view.getInt16(2, true), 16384)
  t.equal(floatToInt16(1), 32767)
  t.equal(pcm16ToFloat(frames[1]!)[1], 0.5, 'and back')
})

t.test('levels: 0 at −60 dBFS and below, 1 at full scale, one per window', async (t) => {
  t.equal(levelFromRms(0), 0)
  t.equal(levelFromRms(0.001), 0)
  t.equal(levelFromRms(1), 1)
  t.ok(Math.abs(levelFromRms(0.1) - 2 / 3) < 1e-9, '−20 dBFS is two thirds up')
  const m = new LevelMeter(100)
  t.equal(m.push(new Float32Array(99).fill(0.1)), null)
  t.ok(Math.abs(m.push(new Float32Array(1).fill(0.1))! - 2 / 3) < 1e-6)
  t.throws(() => new LevelMeter(0), RangeError)
})
