import t from 'tap'
import { speechSpanMs } from '../../../../../engine/pipeline/providers/stand-ins/index.js'
import { concat } from '../../../../helpers/speech.js'

/** `ms` of a 440 Hz tone (loud to the Deepgram stand-in) or of silence, at 16 kHz. */
const tone = (ms: number, amp: number) =>
  Int16Array.from({ length: (ms * 16000) / 1000 }, (_, i) => Math.round(amp * Math.sin((2 * Math.PI * 440 * i) / 16000)))

t.test('the speech span, as the STT stand-in finds it', async (t) => {
  // 100 ms quiet, 100 ms loud (samples 1600–3200), 55 ms of a faint tail (below RMS 0.02).
  const pcm = concat(tone(100, 0), tone(100, 8000), tone(55, 200))
  t.equal(speechSpanMs(pcm), 100)
  t.equal(speechSpanMs(concat(tone(30, 8000), tone(100, 0), tone(20, 8000))), 150, 'from the first loud block to the last, pauses included')
  t.equal(speechSpanMs(tone(200, 0)), 0, 'silence has no span')
})
