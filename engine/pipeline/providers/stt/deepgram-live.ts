/**
 * Deepgram live transcription through `@deepgram/sdk` v5 (`listen.v1.connect`, the `/v1/listen`
 * WebSocket). One socket per SttStream; the SDK's reconnection is turned off because a silent
 * reconnect mid-utterance would lose audio the caller believes was heard: failures surface as an
 * `error` event and the pipeline decides (retry, fail over).
 */
import { baseUrlHost, requireApiKey, requirePositive } from '../client-checks.js'
import { providerConnections, type ProviderConnections } from '../connections.js'
import { DeepgramClient } from '@deepgram/sdk'
import type { DestinationRefusedError } from '../../../../core/index.js'
import { isSpeechRate, pcmView } from '../../../audio/index.js'
import { closeError, connectError, isResults, refusedError, resultsToEvent } from './deepgram-wire.js'
import { sttEventChannel } from './event-queue.js'
import { ProviderError } from '../errors.js'
import type { SttEvent, SttOpenOptions, SttProvider, SttStream } from './types.js'

export interface DeepgramLiveOptions {
  apiKey: string
  /** `wss://api.deepgram.com`, or a self-hosted / stand-in origin such as ws://127.0.0.1:8080. */
  baseUrl: string
  model: string
  /** Silence (ms) after which Deepgram marks a final speech_final; false turns endpointing off. */
  endpointingMs: number | false
  smartFormat: boolean
  punctuate: boolean
  /** Deepgram closes a socket after 10 s without audio; a KeepAlive goes out after this much quiet. */
  keepAliveMs: number
  connectTimeoutMs: number
  /** After endUtterance (or close), how long a final may take before the stream fails with stt_timeout. */
  finalTimeoutMs: number
  /** Audio held while connecting, and the most allowed to sit in the socket's send buffer. */
  maxQueuedMs: number
  /**
   * Whose destination baseUrl is: an organization's pool guards each socket's connection
   * (connections.ts); the default, the process's pool, is the operator's and trusted.
   */
  connections?: ProviderConnections
}

export const DEFAULT_DEEPGRAM_LIVE_OPTIONS = {
  baseUrl: 'wss://api.deepgram.com',
  model: 'nova-3',
  endpointingMs: 300,
  smartFormat: true,
  punctuate: true,
  keepAliveMs: 4_000,
  connectTimeoutMs: 5_000,
  finalTimeoutMs: 3_000,
  maxQueuedMs: 5_000,
} as const satisfies Omit<DeepgramLiveOptions, 'apiKey'>

type DgSocket = Awaited<ReturnType<DeepgramClient['listen']['v1']['connect']>>

export class DeepgramLiveStt implements SttProvider {
  readonly name = 'deepgram'
  readonly streaming = true
  readonly options: Readonly<Omit<DeepgramLiveOptions, 'apiKey'>>
  private readonly apiKey: string
  private readonly host: string
  private readonly client: DeepgramClient
  private readonly connections: ProviderConnections

  constructor(options: Partial<DeepgramLiveOptions> & { apiKey: string }) {
    const { apiKey, ...rest } = { ...DEFAULT_DEEPGRAM_LIVE_OPTIONS, ...options }
    requireApiKey('DeepgramLiveStt', apiKey)
    const host = baseUrlHost('DeepgramLiveStt', rest.baseUrl, ['ws:', 'wss:'])
    requirePositive('DeepgramLiveStt', rest, ['keepAliveMs', 'connectTimeoutMs', 'finalTimeoutMs', 'maxQueuedMs'])
    this.options = rest
    this.apiKey = apiKey
    this.host = host
    this.connections = rest.connections ?? providerConnections
    this.client = new DeepgramClient({ apiKey, baseUrl: rest.baseUrl, maxRetries: 0, logging: { silent: true } })
  }

  open(o: SttOpenOptions): SttStream {
    if (!isSpeechRate(o.sampleRate)) throw new RangeError(`DeepgramLiveStt: sampleRate must be 8000 or 16000, got ${o.sampleRate}`)
    return new DeepgramLiveStream(this.client, this.options, this.host, this.apiKey, o, this.connections)
  }
}

type State = 'connecting' | 'open' | 'closing' | 'ended'

class DeepgramLiveStream implements SttStream {
  private readonly queue = sttEventChannel()
  readonly events: AsyncIterable<SttEvent> = this.queue
  private state: State = 'connecting'
  private socket: DgSocket | null = null
  /** Frames pushed before the socket opened; oldest dropped beyond maxQueuedMs (the newest audio decides endpointing). */
  private pending: Int16Array[] = []
  private pendingSamples = 0
  private finalizeWanted = false
  private lastSentAt = Date.now()
  private keepAlive: NodeJS.Timeout | undefined
  private finalTimer: NodeJS.Timeout | undefined
  private closeTimer: NodeJS.Timeout | undefined
  private readonly done: Promise<void>
  private resolveDone!: () => void
  /** The outbound guard refused the destination (the SDK passes on only the message). */
  private refused: DestinationRefusedError | null = null
  /** Frames dropped because the socket could not keep up (see maxQueuedMs). */
  droppedFrames = 0

  constructor(
    client: DeepgramClient,
    private readonly options: Readonly<Omit<DeepgramLiveOptions, 'apiKey'>>,
    private readonly host: string,
    private readonly apiKey: string,
    private readonly open: SttOpenOptions,
    private readonly connections: ProviderConnections,
  ) {
    this.done = new Promise((r) => (this.resolveDone = r))
    const onAbort = () => this.end(null, true)
    if (open.signal.aborted) {
      this.end(null, true)
      return
    }
    open.signal.addEventListener('abort', onAbort, { once: true })
    void this.done.then(() => open.signal.removeEventListener('abort', onAbort))
    this.connect(client).catch((err: unknown) =>
      this.end(this.refused ? refusedError(this.refused, host) : connectError(err instanceof Error ? err.message : String(err), host, apiKey)),
    )
  }

  private async connect(client: DeepgramClient): Promise<void> {
    const o = this.options
    const socket = await client.listen.v1.connect({
      model: o.model,
      language: this.open.language,
      encoding: 'linear16',
      sample_rate: this.open.sampleRate,
      channels: 1,
      interim_results: 'true',
      endpointing: o.endpointingMs,
      smart_format: String(o.smartFormat),
      punctuate: String(o.punctuate),
      reconnectAttempts: 0,
      shouldReconnect: () => false,
      connectionTimeoutInSeconds: o.connectTimeoutMs / 1000,
      abortSignal: this.open.signal,
      agent: this.connections.webSocketAgent(new URL(o.baseUrl).protocol, (err) => (this.refused = err)),
    })
    if (this.state === 'ended') return
    this.socket = socket
    // The SDK reports a refused upgrade as close(1000) followed at once by the error; a close
    // decision waits one turn of the event loop so the error can name the cause.
    let socketError: string | null = null
    socket.on('open', () => this.onOpen())
    socket.on('message', (m) => this.onMessage(m))
    socket.on('error', (e) => (socketError = e.message))
    socket.on('close', (e) => setImmediate(() => this.onClose(e.code, e.reason ?? '', socketError)))
    socket.connect()
  }

  push(pcm: Int16Array): void {
    if (this.state === 'connecting') {
      this.pending.push(pcm)
      this.pendingSamples += pcm.length
      const max = (this.options.maxQueuedMs * this.open.sampleRate) / 1000
      while (this.pendingSamples > max && this.pending.length > 1) {
        this.pendingSamples -= this.pending.shift()!.length
        this.droppedFrames++
      }
      return
    }
    if (this.state !== 'open' || !this.socket) return
    // Past maxQueuedMs of unsent audio the network is not keeping up; newer frames are dropped
    // rather than queued without bound (the audio is late for a live turn anyway).
    if (this.socket.socket.bufferedAmount > (this.options.maxQueuedMs * this.open.sampleRate * 2) / 1000) {
      this.droppedFrames++
      return
    }
    // A view, no copy: the ws client masks into a copy of its own, and frames are never changed.
    this.send(() => this.socket!.sendMedia(pcmView(pcm)))
  }

  endUtterance(): void {
    if (this.state === 'connecting') this.finalizeWanted = true
    else if (this.state === 'open') this.send(() => this.socket!.sendFinalize({ type: 'Finalize' }))
    else return
    this.armFinalTimer()
  }

  async close(): Promise<void> {
    if (this.state === 'connecting') this.end(null)
    else if (this.state === 'open') {
      // CloseStream asks Deepgram to flush its last finals and Metadata, then it closes with 1000.
      this.state = 'closing'
      this.send(() => this.socket!.sendCloseStream({ type: 'CloseStream' }))
      this.closeTimer = setTimeout(
        () => this.end(new ProviderError('stt', 'stt_timeout', `Deepgram at ${this.host} did not finish the stream in time`, { retryable: true })),
        this.options.finalTimeoutMs,
      )
    }
    return this.done
  }

  private onOpen(): void {
    if (this.state !== 'connecting') return
    this.state = 'open'
    const frames = this.pending
    this.pending = []
    this.pendingSamples = 0
    for (const f of frames) this.push(f)
    if (this.finalizeWanted) this.send(() => this.socket!.sendFinalize({ type: 'Finalize' }))
    this.keepAlive = setInterval(
      () => {
        if (this.state === 'open' && Date.now() - this.lastSentAt >= this.options.keepAliveMs)
          this.send(() => this.socket!.sendKeepAlive({ type: 'KeepAlive' }))
      },
      Math.max(50, this.options.keepAliveMs / 4),
    )
  }

  private onMessage(m: unknown): void {
    if (this.state === 'ended' || !isResults(m)) return
    if (m.is_final && (m.from_finalize || m.speech_final)) clearTimeout(this.finalTimer)
    const event = resultsToEvent(m)
    if (event) this.queue.offer(event)
  }

  private onClose(code: number, reason: string, error: string | null): void {
    if (this.state === 'ended') return
    if (this.refused) return this.end(refusedError(this.refused, this.host))
    if (error !== null)
      return this.end(this.state === 'connecting' ? connectError(error, this.host, this.apiKey) : closeError(1006, error, this.host, this.apiKey))
    if (this.state === 'closing' && code === 1000) return this.end(null)
    this.end(closeError(code, reason, this.host, this.apiKey))
  }

  private armFinalTimer(): void {
    clearTimeout(this.finalTimer)
    this.finalTimer = setTimeout(
      () =>
        this.end(
          new ProviderError('stt', 'stt_timeout', `Deepgram at ${this.host} sent no final within ${this.options.finalTimeoutMs} ms of the end of speech`, {
            retryable: true,
          }),
        ),
      this.options.finalTimeoutMs,
    )
  }

  private send(write: () => void): void {
    try {
      write()
      this.lastSentAt = Date.now()
    } catch {
      // The socket left OPEN between our check and the write; its close event reports why.
    }
  }

  /** The one way out: error (if any) last, events end, timers and socket released. */
  private end(error: ProviderError<'stt'> | null, aborted = false): void {
    if (this.state === 'ended') return
    this.state = 'ended'
    clearInterval(this.keepAlive)
    clearTimeout(this.finalTimer)
    clearTimeout(this.closeTimer)
    this.pending = []
    if (error && !aborted) this.queue.offer({ type: 'error', error })
    this.queue.close()
    try {
      this.socket?.close()
    } catch {
      // Already closed.
    }
    this.resolveDone()
  }
}
