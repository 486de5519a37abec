/**
 * The caller's audio path, an adapter around the controller: transport audio (any rate) →
 * resample to the path's rate → VAD (windows, the detector, edges refined on the signal) and STT →
 * speech edge, transcript and failure frames. It decides nothing: it reports what was heard.
 *
 * Rate: 16 kHz, or 8 kHz when the transport's audio is 8 kHz (a phone line): Silero and the STT
 * take the line's audio as it is, with no resampler in between (types.ts in engine/vad says why).
 *
 * Time: VAD edges are stamped in audio time; an edge reaches the controller as `at` = the moment
 * the model's verdict came back minus the detector's own latency (`confirmedAt - at`), and as
 * `edgeAt` = the edge refined on the signal and placed on the caller's clock (CallerAudioClock).
 *
 * Bounds: at most `maxVadBacklog` VAD windows wait for inference; beyond that windows are dropped
 * (and counted, and the first drop recorded). The STT stream bounds what it holds itself.
 */
import { HalfbandUpsampler, Resampler, type SpeechRate } from '../../audio/index.js'
import { BoundaryRefiner, SpeechDetector, type SpeechDetectorOptions, type VadModel, type VadStream, Windower } from '../../vad/index.js'
import { failureFrame, type ControllerFrame } from '../frames.js'
import type { PlayoutClock } from '../playout-clock.js'
import type { SttProvider, SttStream } from '../providers/stt/types.js'
import { CallerAudioClock } from './audio-clock.js'

export interface AudioInputDeps {
  vad: VadModel
  stt: SttProvider
  language: string
  clock: PlayoutClock
  /** The rate the path runs at (default 16 kHz); audio at another rate is resampled to it. */
  sampleRate?: SpeechRate
  detector?: Partial<SpeechDetectorOptions>
  /** VAD windows (32 ms) waiting for inference before new ones are dropped (default 64 ≈ 2 s). */
  maxVadBacklog?: number
  /** The call's signal: aborting it ends the STT stream. */
  signal: AbortSignal
  report(frame: ControllerFrame): void
  /** Recorded once, on the first dropped VAD window. */
  onOverload(backlog: number): void
}

export class AudioInput {
  /** The caller muted their microphone: their audio counts as silence (turn timing and STT go on). */
  muted = false
  readonly sampleRate: SpeechRate
  private readonly windower: Windower
  private readonly detector: SpeechDetector
  /** Moves the VAD's late edges onto the signal's level (engine/vad/refine.ts). */
  private readonly refiner: BoundaryRefiner
  private readonly audioClock: CallerAudioClock
  private resampler: Resampler | HalfbandUpsampler | null = null
  private vad: VadStream | null = null
  private stt: SttStream | null = null
  private vadChain: Promise<void> = Promise.resolve()
  private backlog = 0
  private dropped = 0
  private closed = false
  /** Samples sent to STT (at sampleRate): what the provider bills (metering, api/billing). */
  private sttSamples = 0

  constructor(private readonly deps: AudioInputDeps) {
    this.sampleRate = deps.sampleRate ?? 16000
    this.windower = new Windower(0, this.sampleRate)
    this.refiner = new BoundaryRefiner({}, this.sampleRate)
    this.audioClock = new CallerAudioClock(this.sampleRate)
    this.detector = new SpeechDetector({ reportPauses: true, ...deps.detector })
  }

  /** Caller audio sent to STT so far, in milliseconds. */
  get sttAudioMs(): number {
    return Math.round(this.sttSamples / (this.sampleRate / 1000))
  }

  /** VAD windows dropped because inference fell behind. */
  get droppedWindows(): number {
    return this.dropped
  }

  open(): void {
    if (this.vad || this.closed) return
    this.vad = this.deps.vad.stream(this.sampleRate)
    this.stt = this.deps.stt.open({ language: this.deps.language, signal: this.deps.signal, sampleRate: this.sampleRate })
    void this.readTranscripts(this.stt)
  }

  /** One frame of caller audio, mono PCM16 at `sampleRate`. */
  push(input: Int16Array, sampleRate: number = this.sampleRate): void {
    if (this.closed || !this.vad) return
    const atRate = sampleRate === this.sampleRate ? input : this.resample(input, sampleRate)
    const pcm = this.muted ? new Int16Array(atRate.length) : atRate
    if (pcm.length === 0) return
    const arrivedAt = this.deps.clock.now()
    this.audioClock.frame(pcm.length, arrivedAt)
    if (this.stt) {
      this.stt.push(pcm)
      this.sttSamples += pcm.length
    }
    const vad = this.vad
    const maxBacklog = this.deps.maxVadBacklog ?? 64
    // Each window is the windower's one array, refilled after this visit: the refiner and the
    // VAD read it before they return (VadStream.process).
    this.windower.cut(pcm, (w) => {
      this.refiner.push(w)
      if (this.backlog >= maxBacklog) {
        if (this.dropped++ === 0) this.deps.onOverload(this.backlog)
        return
      }
      this.backlog++
      const p = vad.process(w.samples)
      const endMs = w.endMs
      this.vadChain = this.vadChain.then(() =>
        p.then(
          (probability) => {
            this.backlog--
            this.onProbability(probability, endMs, arrivedAt)
          },
          (err: unknown) => {
            this.backlog--
            if (this.closed) return
            const { message } = failureFrame('vad', err, 'vad_failed')
            this.deps.report({ type: 'failure', category: 'vad', code: 'vad_failed', message: `voice activity detection failed: ${message}`, retryable: false })
          },
        ),
      )
    })
  }

  /** A streaming STT finalizes what it holds now (the caller paused long enough). */
  finalize(): void {
    this.stt?.endUtterance()
  }

  close(): void {
    this.closed = true
    this.vad?.reset()
  }

  private resample(input: Int16Array, sampleRate: number): Int16Array {
    if (!this.resampler || this.resampler.fromRate !== sampleRate) {
      // 8 kHz (a phone line's audio from a transport that does not announce it) goes up by the
      // telephone half-band filter: flat to 3.4 kHz, a third of the general resampler's taps.
      this.resampler = sampleRate === 8000 && this.sampleRate === 16000 ? new HalfbandUpsampler() : new Resampler(sampleRate, this.sampleRate)
    }
    return this.resampler.push(input)
  }

  private onProbability(probability: number, endMs: number, heardAt: number): void {
    if (this.closed) return
    const now = this.deps.clock.now()
    for (const e of this.detector.process(probability, endMs)) {
      // Two clocks for one edge. Turn-taking and barge-in keep the VAD's own edge: the end it places
      // late (by its fall time) balances the late onset of the words after a pause, which it also
      // needs a window or two to see; timing the silence from the true end would end turns inside
      // ordinary pauses. What is recorded and measured (voice-to-voice), and speculation's clock,
      // use the edge as placed on the signal, the true one, on the caller's clock.
      const at = now - (e.confirmedAt - e.at)
      const starts = e.type === 'speech_start' || e.type === 'speech_resume'
      const edgeAt = this.audioClock.wallAt(starts ? this.refiner.refineStart(e.at) : this.refiner.refineEnd(e.at))
      if (e.type === 'speech_start') this.deps.report({ type: 'speech_start', at, edgeAt, heardAt })
      else if (e.type === 'speech_resume') this.deps.report({ type: 'speech_resume', at })
      else this.deps.report({ type: e.type, at, edgeAt })
      if (this.closed) return
    }
  }

  private async readTranscripts(stream: SttStream): Promise<void> {
    try {
      for await (const ev of stream.events) {
        if (this.closed) return
        if (ev.type === 'error') return this.deps.report(failureFrame('stt', ev.error, 'stt_failed'))
        this.deps.report({ type: 'transcript', text: ev.text, final: ev.type === 'final', at: this.deps.clock.now() })
      }
      if (!this.closed)
        this.deps.report({ type: 'failure', category: 'stt', code: 'stt_failed', message: 'the transcription stream ended unexpectedly', retryable: false })
    } catch (err) {
      if (!this.closed) this.deps.report(failureFrame('stt', err, 'internal_error'))
    }
  }
}
