/**
 * One browser voice call over the web-call protocol v1 (docs/protocol.md): the microphone to the
 * engine as 20 ms PCM16 frames, the agent's audio to the speakers, the engine's events as typed
 * events. The microphone is opened before the socket, so a refused microphone never uses up the
 * single-use token. Every way a call can end goes through `finish`, which emits `error` (when it
 * failed) and then `ended` exactly once, and releases the microphone and the AudioContext.
 */
import { AudioGraph } from './audio-graph.js'
import { CallerAudioQueue } from './caller-audio-queue.js'
import { type CallError, CONNECTION_FAILED, closeError } from './close-codes.js'
import { Emitter } from './emitter.js'
import { listInputDevices, openMicrophone, releaseMicrophone, WebCallError } from './microphone.js'
import { PROTOCOL_RATE_HZ } from './pcm16.js'
import { parseServerEvent } from './server-events.js'
import type { CallStatus, WebCallEvents, WebCallOptions, WebCallStats } from './types.js'
import type { PlaybackReport } from './worklet/messages.js'

/** Bounds that keep every path of a call from hanging. */
export const WEB_CALL_TIMEOUTS = {
  /** Socket opening to the engine's `hello`; past it the call fails with `connection_failed`. */
  helloMs: 15_000,
  /** `stop()` → the engine's `ended` and close; past it the library closes the socket itself. */
  stopMs: 2_000,
} as const

interface Finish {
  reason: string
  closeCode: number | null
  error?: CallError
}

export class WebCall extends Emitter<WebCallEvents> {
  /** The microphones the page may pick from (labels are empty until the microphone was granted once). */
  static listInputDevices(): Promise<MediaDeviceInfo[]> {
    return listInputDevices()
  }

  private statusNow: CallStatus = 'idle'
  private callIdNow: string | null = null
  private inputDeviceId: string | undefined
  private micMutedNow = false
  private assistantMutedNow = false
  private graph: AudioGraph | null = null
  private mic: MediaStream | null = null
  private socket: WebSocket | null = null
  private readonly queue = new CallerAudioQueue()
  private opened = false
  private admitted = false
  private stopping = false
  private over = false
  /** The engine's `ended` reason, which the close that follows it reports. */
  private serverReason: string | null = null
  private timer: ReturnType<typeof setTimeout> | undefined
  private starting: Promise<void> | null = null
  private settleStart: { resolve(): void; reject(err: WebCallError): void } | null = null
  private readonly done: Promise<void>
  private markDone!: () => void
  private callerLevel = 0
  private readonly counters: WebCallStats = {
    framesSent: 0,
    callerFramesDropped: 0,
    agentBytesReceived: 0,
    playbackUnderruns: 0,
    playbackOverflowMs: 0,
    playbackBufferedMs: 0,
  }

  constructor(private readonly options: WebCallOptions) {
    super()
    if (typeof options?.token !== 'string' || options.token === '') throw new TypeError('WebCall: token is required')
    if (typeof options.wsUrl !== 'string' || !/^wss?:\/\//i.test(options.wsUrl)) throw new TypeError('WebCall: wsUrl must be a ws:// or wss:// URL')
    this.inputDeviceId = options.inputDeviceId
    this.done = new Promise((resolve) => (this.markDone = resolve))
  }

  get status(): CallStatus {
    return this.statusNow
  }

  /** The call's id in the REST API once the engine admitted it. */
  get callId(): string | null {
    return this.callIdNow
  }

  get micMuted(): boolean {
    return this.micMutedNow
  }

  get assistantMuted(): boolean {
    return this.assistantMutedNow
  }

  get stats(): WebCallStats {
    return { ...this.counters, callerFramesDropped: this.queue.dropped }
  }

  get audioContext(): AudioContext | null {
    return this.graph?.context ?? null
  }

  /** What the caller hears (after the assistant-mute gain): connect an AnalyserNode to draw it. */
  get outputNode(): AudioNode | null {
    return this.graph?.output ?? null
  }

  /**
   * Opens the microphone, then the socket. Resolves once the engine admitted the call (or when
   * `stop()` ended it first); rejects with a WebCallError when it could not start, which is also
   * emitted as `error` before `ended`. Call it from a user gesture (a click): browsers only start
   * audio then. Calling it again returns the same promise.
   */
  start(): Promise<void> {
    this.starting ??= this.run()
    return this.starting
  }

  /** Stops sending the microphone and tells the engine (`mute`), which treats the caller as silent. */
  setMicMuted(muted: boolean): void {
    if (muted === this.micMutedNow) return
    this.micMutedNow = muted
    // Audio captured before the mute must not reach the engine after it.
    if (muted) this.queue.clear()
    if (this.admitted) this.sendJson({ type: 'mute', muted })
  }

  /** Silences the agent's voice here only; transcripts go on and the engine is not told. */
  setAssistantMuted(muted: boolean): void {
    this.assistantMutedNow = muted
    this.graph?.setMuted(muted)
  }

  /** Switches microphones mid-call (or picks one before `start`); rejects with a WebCallError and keeps the current one. */
  async setInputDevice(deviceId: string): Promise<void> {
    this.inputDeviceId = deviceId
    if (!this.graph || !this.mic || this.over) return
    let stream: MediaStream
    try {
      stream = await openMicrophone(deviceId)
    } catch (err) {
      const e = err as WebCallError
      this.emit('error', { code: e.code, message: e.message })
      throw e
    }
    if (this.over || !this.graph) return releaseMicrophone(stream)
    const old = this.mic
    this.graph.attachMicrophone(stream)
    this.mic = stream
    releaseMicrophone(old)
  }

  /**
   * Hangs up: sends `stop`, waits (at most WEB_CALL_TIMEOUTS.stopMs) for the engine's `ended` and
   * close, then releases the microphone and closes the AudioContext. Resolves when all that is
   * done; calling it again, or after the call ended, returns the same promise.
   */
  stop(): Promise<void> {
    if (this.over) return this.done
    if (this.stopping) return this.done
    this.stopping = true
    if (this.admitted && this.socket?.readyState === WebSocket.OPEN) {
      this.sendJson({ type: 'stop' })
      this.arm(WEB_CALL_TIMEOUTS.stopMs, () => this.finish({ reason: this.serverReason ?? 'client_stop', closeCode: null }))
    } else this.finish({ reason: 'client_stop', closeCode: null })
    return this.done
  }

  private async run(): Promise<void> {
    this.setStatus('connecting')
    try {
      const graph = await AudioGraph.create({
        frame: (pcm) => this.onFrame(pcm),
        callerLevel: (level) => void (this.callerLevel = level),
        report: (r) => this.onReport(r),
      })
      if (this.over) return void (await graph.close())
      this.graph = graph
      graph.setMuted(this.assistantMutedNow)
      const mic = await openMicrophone(this.inputDeviceId)
      if (this.over) return releaseMicrophone(mic)
      this.mic = mic
      graph.attachMicrophone(mic)
    } catch (err) {
      const e = err instanceof WebCallError ? err : new WebCallError('audio_failed', String(err))
      if (!this.over) this.finish({ reason: e.code, closeCode: null, error: { code: e.code, message: e.message } })
      throw e
    }
    return new Promise<void>((resolve, reject) => {
      this.settleStart = { resolve, reject }
      this.connect()
    })
  }

  private connect(): void {
    let socket: WebSocket
    try {
      socket = new WebSocket(this.options.wsUrl)
    } catch {
      return this.finish({ reason: CONNECTION_FAILED.code, closeCode: null, error: CONNECTION_FAILED })
    }
    this.socket = socket
    socket.binaryType = 'arraybuffer'
    socket.onopen = () => void (this.opened = true)
    socket.onmessage = (e: MessageEvent<string | ArrayBuffer>) => (typeof e.data === 'string' ? this.onText(e.data) : this.onAudio(e.data))
    socket.onclose = (e) => this.onClose(e.code, e.reason)
    // The browser tells nothing more on `error`; a `close` always follows it.
    socket.onerror = null
    this.arm(WEB_CALL_TIMEOUTS.helloMs, () => {
      const error = { code: CONNECTION_FAILED.code, message: `The voice server did not admit the call within ${WEB_CALL_TIMEOUTS.helloMs / 1000} s.` }
      this.finish({ reason: error.code, closeCode: null, error })
    })
  }

  private onText(text: string): void {
    const event = parseServerEvent(text)
    if (!event || this.over) return
    switch (event.type) {
      case 'hello':
        if (event.encoding !== 'pcm_s16le' || event.sampleRateHz !== PROTOCOL_RATE_HZ || event.channels !== 1) {
          const error = {
            code: 'unsupported_audio_format',
            message: `The voice server sends ${event.encoding} at ${event.sampleRateHz} Hz, which this library cannot play.`,
          }
          return this.finish({ reason: error.code, closeCode: null, error })
        }
        this.admitted = true
        this.callIdNow = event.callId
        clearTimeout(this.timer)
        if (this.micMutedNow) this.sendJson({ type: 'mute', muted: true })
        this.emit('connected', { callId: event.callId })
        this.settleStart?.resolve()
        this.settleStart = null
        return
      case 'status':
        return this.setStatus(event.status)
      case 'transcript':
        return this.emit('transcript', event.transcript)
      case 'metrics':
        return this.emit('metrics', event.metrics)
      case 'error':
        return this.emit('error', event.error)
      case 'clear':
        this.graph?.clear()
        return this.emit('clear', {})
      case 'transfer':
        return this.emit('transfer', { target: event.target })
      case 'ended':
        this.serverReason = event.reason
        // The close follows at once; should it not, the call still ends.
        this.arm(WEB_CALL_TIMEOUTS.stopMs, () => this.finish({ reason: event.reason, closeCode: null }))
        return
      case 'pong':
        return
    }
  }

  private onAudio(pcm: ArrayBuffer): void {
    this.counters.agentBytesReceived += pcm.byteLength
    if (this.admitted && !this.over) this.graph?.play(pcm)
  }

  private onFrame(pcm: ArrayBuffer): void {
    const socket = this.socket
    if (!this.admitted || this.micMutedNow || this.stopping || this.over || socket?.readyState !== WebSocket.OPEN) return
    for (const frame of this.queue.push(pcm, socket.bufferedAmount)) {
      socket.send(frame)
      this.counters.framesSent++
    }
  }

  private onReport(r: PlaybackReport): void {
    const rateHz = this.graph?.context.sampleRate ?? 48_000
    this.counters.playbackUnderruns = r.underruns
    this.counters.playbackOverflowMs = (r.droppedSamples * 1000) / rateHz
    this.counters.playbackBufferedMs = (r.bufferedSamples * 1000) / rateHz
    if (!this.over) this.emit('volume', { caller: this.callerLevel, agent: r.level })
  }

  private onClose(code: number, reason: string): void {
    if (this.over) return
    // A hang-up we asked for is no failure, whatever code the close carries.
    const error = this.stopping && this.opened ? null : closeError(code, reason, this.opened)
    this.finish({ reason: this.serverReason ?? error?.code ?? 'normal', closeCode: this.opened ? code : null, ...(error && { error }) })
  }

  private finish(f: Finish): void {
    if (this.over) return
    this.over = true
    clearTimeout(this.timer)
    this.queue.clear()
    const socket = this.socket
    if (socket) {
      socket.onopen = socket.onmessage = socket.onclose = null
      if (socket.readyState === WebSocket.CONNECTING || socket.readyState === WebSocket.OPEN) socket.close(1000)
    }
    releaseMicrophone(this.mic)
    this.mic = null
    const closing = this.graph?.close() ?? Promise.resolve()
    if (f.error) this.emit('error', f.error)
    this.setStatus('ended')
    this.emit('ended', { reason: f.reason, closeCode: f.closeCode })
    if (f.error) this.settleStart?.reject(new WebCallError(f.error.code, f.error.message))
    else this.settleStart?.resolve()
    this.settleStart = null
    void closing.then(this.markDone)
  }

  private setStatus(status: CallStatus): void {
    if (status === this.statusNow || this.statusNow === 'ended') return
    this.statusNow = status
    this.emit('status', status)
  }

  private sendJson(message: { type: 'mute'; muted: boolean } | { type: 'stop' }): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message))
  }

  private arm(ms: number, fire: () => void): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(fire, ms)
  }
}
