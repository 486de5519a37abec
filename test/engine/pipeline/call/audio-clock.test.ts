import t from 'tap'
import { CallerAudioClock } from '../../../../engine/pipeline/call/audio-clock.js'

t.test('audio instants are placed by the latest frame, whenever they are asked about', async (t) => {
  const c = new CallerAudioClock()
  // 20 ms frames (320 samples) arriving every 20 ms from t = 1000: the first covers 0–20 ms of audio.
  for (let i = 0; i < 3; i++) c.frame(320, 1000 + i * 20)
  t.equal(c.wallAt(0), 980, 'the first sample was spoken a frame before its frame arrived')
  t.equal(c.wallAt(50), 1030)
  // A VAD window ending at 64 ms completes with the fourth frame (audio to 80 ms, arriving at
  // 1060); its result comes back later still. The edge stays where the caller spoke it.
  c.frame(320, 1060)
  t.equal(c.wallAt(64), 1044, 'not 1060, when its window completed')
  c.frame(320, 1080)
  t.equal(c.wallAt(64), 1044, 'nor later, when its result came back')
  t.equal(c.wallAt(50), 1030)
})

t.test('frames of any length count by their samples; a burst is placed by its last frame', async (t) => {
  const c = new CallerAudioClock()
  c.frame(160, 500) // 10 ms
  c.frame(480, 530) // 30 ms more
  t.equal(c.wallAt(40), 530)
  t.equal(c.wallAt(10), 500)
  // Two frames arriving together (network jitter): the caller's clock is the latest arrival.
  c.frame(320, 580)
  c.frame(320, 580)
  t.equal(c.wallAt(80), 580)
  t.equal(c.wallAt(60), 560)
})
