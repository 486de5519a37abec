/**
 * Microphone → protocol frames, on the audio thread: the context's rate resampled to 16 kHz
 * through the anti-alias filter, cut into 20 ms PCM16 frames that are transferred to the main
 * thread (which decides whether to send them), and the input's level ten times a second.
 */
import { LEVEL_WINDOW_MS, LevelMeter } from '../level-meter.js'
import { FrameAssembler, PROTOCOL_RATE_HZ } from '../pcm16.js'
import { Resampler } from '../resampler.js'
import { CAPTURE_PROCESSOR, type CaptureMessage } from './messages.js'

class CaptureProcessor extends AudioWorkletProcessor {
  private readonly resampler = new Resampler(Math.round(sampleRate), PROTOCOL_RATE_HZ)
  private readonly frames = new FrameAssembler()
  private readonly meter = new LevelMeter(Math.round((sampleRate * LEVEL_WINDOW_MS) / 1000))
  private mono = new Float32Array(128)
  private resampled = new Float32Array(this.resampler.maxOutput(128))

  process(inputs: Float32Array[][]): boolean {
    const channels = inputs[0]
    // No input yet (or the source was swapped out): keep the processor alive.
    if (!channels || channels.length === 0) return true
    const n = channels[0]!.length
    if (this.mono.length < n) {
      this.mono = new Float32Array(n)
      this.resampled = new Float32Array(this.resampler.maxOutput(n))
    }
    const mono = this.mono.subarray(0, n)
    // A stereo input is averaged rather than losing one side.
    if (channels.length === 1) mono.set(channels[0]!)
    else {
      mono.fill(0)
      for (const ch of channels) for (let i = 0; i < n; i++) mono[i]! += ch[i]! / channels.length
    }
    const level = this.meter.push(mono)
    if (level !== null) this.post({ type: 'level', level })
    const count = this.resampler.process(mono, this.resampled)
    // Transferred, not copied: each frame is a fresh buffer the worklet lets go of.
    for (const pcm of this.frames.push(this.resampled, count)) this.post({ type: 'frame', pcm }, [pcm])
    return true
  }

  private post(message: CaptureMessage, transfer: Transferable[] = []): void {
    this.port.postMessage(message, transfer)
  }
}

registerProcessor(CAPTURE_PROCESSOR, CaptureProcessor)
