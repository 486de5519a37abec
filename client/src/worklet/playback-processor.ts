/**
 * Agent audio → the speakers, on the audio thread: PCM16 at 16 kHz as it arrives from the socket,
 * upsampled to the context's rate into the jitter buffer, read one render quantum at a time. The
 * protocol's `clear` empties the buffer and the resampler's history at once, so not one more
 * sample of the interrupted reply is rendered after the quantum in progress.
 */
import { JitterBuffer, jitterBufferOptions } from '../jitter-buffer.js'
import { LEVEL_WINDOW_MS, LevelMeter } from '../level-meter.js'
import { PROTOCOL_RATE_HZ, pcm16ToFloat } from '../pcm16.js'
import { Resampler } from '../resampler.js'
import { PLAYBACK_PROCESSOR, type PlaybackCommand, type PlaybackReport } from './messages.js'

class PlaybackProcessor extends AudioWorkletProcessor {
  private readonly rateHz = Math.round(sampleRate)
  private readonly resampler = new Resampler(PROTOCOL_RATE_HZ, this.rateHz)
  private readonly buffer = new JitterBuffer(jitterBufferOptions(this.rateHz))
  private readonly meter = new LevelMeter(Math.round((this.rateHz * LEVEL_WINDOW_MS) / 1000))
  private upsampled = new Float32Array(0)

  constructor() {
    super()
    this.port.onmessage = (e: MessageEvent<PlaybackCommand>) => this.command(e.data)
  }

  process(_inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const channels = outputs[0]
    if (!channels || channels.length === 0) return true
    const out = channels[0]!
    this.buffer.read(out)
    for (let c = 1; c < channels.length; c++) channels[c]!.set(out)
    const level = this.meter.push(out)
    if (level !== null) {
      const b = this.buffer
      const report: PlaybackReport = {
        type: 'report',
        level,
        underruns: b.underruns,
        droppedSamples: b.droppedSamples,
        bufferedSamples: b.bufferedSamples,
        playedSamples: b.playedSamples,
      }
      this.port.postMessage(report)
    }
    return true
  }

  private command(c: PlaybackCommand): void {
    if (c.type === 'clear') {
      this.buffer.flush()
      this.resampler.reset()
      return
    }
    const samples = pcm16ToFloat(c.pcm)
    const max = this.resampler.maxOutput(samples.length)
    if (this.upsampled.length < max) this.upsampled = new Float32Array(max)
    const n = this.resampler.process(samples, this.upsampled)
    this.buffer.write(this.upsampled.subarray(0, n))
  }
}

registerProcessor(PLAYBACK_PROCESSOR, PlaybackProcessor)
