/**
 * The call's Web Audio graph, a thin adapter over the worklets:
 *   microphone → MediaStreamSource → capture worklet (16 kHz frames, level) → the main thread
 *   the main thread → playback worklet (jitter buffer, upsampling) → GainNode (assistant mute) → speakers
 * The worklets' code is bundled into the library as a string and loaded from a Blob URL, so the
 * library stays one file (a page's CSP must allow `blob:` scripts for that).
 */
import { WebCallError } from './microphone.js'
import { CAPTURE_PROCESSOR, type CaptureMessage, PLAYBACK_PROCESSOR, type PlaybackCommand, type PlaybackReport } from './worklet/messages.js'

/** Replaced at build time (scripts/build-client.ts) by the bundled worklet module's source. */
declare const __OZAN_WORKLET_SOURCE__: string

export interface AudioGraphHandlers {
  /** A 20 ms PCM16LE frame of the microphone at 16 kHz. */
  frame(pcm: ArrayBuffer): void
  callerLevel(level: number): void
  report(report: PlaybackReport): void
}

/** How long `resume()` may take before the graph is used anyway (it resumes on the next user gesture). */
const RESUME_WAIT_MS = 1000

export class AudioGraph {
  private source: MediaStreamAudioSourceNode | null = null

  private constructor(
    readonly context: AudioContext,
    private readonly capture: AudioWorkletNode,
    private readonly playback: AudioWorkletNode,
    readonly output: GainNode,
  ) {}

  static async create(handlers: AudioGraphHandlers): Promise<AudioGraph> {
    if (typeof AudioContext === 'undefined' || typeof AudioWorkletNode === 'undefined') {
      throw new WebCallError('unsupported_browser', 'This browser has no AudioWorklet (Chrome 66+, Firefox 76+ and Safari 14.1+ do).')
    }
    const context = new AudioContext({ latencyHint: 'interactive' })
    try {
      const url = URL.createObjectURL(new Blob([__OZAN_WORKLET_SOURCE__], { type: 'text/javascript' }))
      try {
        await context.audioWorklet.addModule(url)
      } finally {
        URL.revokeObjectURL(url)
      }
      // numberOfOutputs 0: the capture node is a sink, pulled by the graph without reaching the speakers.
      const capture = new AudioWorkletNode(context, CAPTURE_PROCESSOR, { numberOfInputs: 1, numberOfOutputs: 0, channelCount: 1, channelCountMode: 'explicit' })
      const playback = new AudioWorkletNode(context, PLAYBACK_PROCESSOR, { numberOfInputs: 0, numberOfOutputs: 1, outputChannelCount: [1] })
      const output = context.createGain()
      playback.connect(output).connect(context.destination)
      capture.port.onmessage = (e: MessageEvent<CaptureMessage>) => (e.data.type === 'frame' ? handlers.frame(e.data.pcm) : handlers.callerLevel(e.data.level))
      playback.port.onmessage = (e: MessageEvent<PlaybackReport>) => handlers.report(e.data)
      if (context.state !== 'running') {
        // Autoplay rules: a context made outside a user gesture starts suspended.
        await Promise.race([context.resume(), new Promise((resolve) => setTimeout(resolve, RESUME_WAIT_MS))])
      }
      return new AudioGraph(context, capture, playback, output)
    } catch (err) {
      void context.close().catch(() => undefined)
      if (err instanceof WebCallError) throw err
      throw new WebCallError('audio_failed', `The browser's audio could not be started${err instanceof Error ? `: ${err.message}` : '.'}`)
    }
  }

  /** Feeds the capture worklet from `stream`, replacing the previous microphone. */
  attachMicrophone(stream: MediaStream): void {
    const next = this.context.createMediaStreamSource(stream)
    next.connect(this.capture)
    this.source?.disconnect()
    this.source = next
  }

  /** Agent audio (PCM16LE 16 kHz) to play; the buffer is transferred. */
  play(pcm: ArrayBuffer): void {
    this.command({ type: 'audio', pcm }, [pcm])
  }

  /** Drops the agent audio not yet played (barge-in). */
  clear(): void {
    this.command({ type: 'clear' })
  }

  setMuted(muted: boolean): void {
    // setValueAtTime rather than .value: takes effect at the next quantum whatever automation ran before.
    this.output.gain.setValueAtTime(muted ? 0 : 1, this.context.currentTime)
  }

  async close(): Promise<void> {
    this.source?.disconnect()
    this.source = null
    this.capture.port.onmessage = null
    this.playback.port.onmessage = null
    this.capture.disconnect()
    this.playback.disconnect()
    if (this.context.state !== 'closed') await this.context.close().catch(() => undefined)
  }

  private command(c: PlaybackCommand, transfer: Transferable[] = []): void {
    this.playback.port.postMessage(c, transfer)
  }
}
