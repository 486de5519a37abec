/**
 * Local TTS through espeak-ng: no key, no network, the default voice of a fresh install.
 *
 * The text goes on stdin, never argv, so no text can become an option; the voice does go on argv and
 * must therefore be one espeak-ng lists as installed. `--stdout` writes a streamed WAV (22.05 kHz)
 * clause by clause, so chunks are resampled and yielded as the pipe delivers them: the first one
 * comes after the first clause is synthesized (tens of ms), not after the whole text.
 */
import { requirePositive } from '../client-checks.js'
import { spawn } from 'node:child_process'
import { EspeakVoices } from './espeak-voices.js'
import { decodeSliced, wavDecoder } from './pcm-stream.js'
import { ProviderError } from '../errors.js'
import { checkText, type SynthesizeOptions, type TtsProvider } from './types.js'

export interface EspeakOptions {
  /** Path or name of the espeak-ng executable. */
  binary: string
  /** Used when neither a voice nor a language with a known voice is given. */
  defaultVoice: string
  /** espeak-ng's `-s`: words per minute (80–450). */
  rateWpm: number
  maxTextChars: number
  /** Until the first audio bytes (also bounds the `--voices` listing). */
  timeoutMs: number
  /** Between two reads of the pipe once audio flows. */
  idleTimeoutMs: number
}

export const DEFAULT_ESPEAK_OPTIONS: EspeakOptions = {
  binary: 'espeak-ng',
  defaultVoice: 'en-us',
  rateWpm: 175,
  maxTextChars: 2000,
  timeoutMs: 5_000,
  idleTimeoutMs: 5_000,
}

/** Languages whose bare tag does not name the voice we want (`en` alone is British in espeak-ng). */
const LANGUAGE_VOICES: Record<string, string> = { en: 'en-us', tr: 'tr' }

const MISSING = 'espeak-ng is not installed or not on PATH (Debian/Ubuntu package: espeak-ng; `apt-get install espeak-ng`)'

export class EspeakTts implements TtsProvider {
  readonly name = 'espeak'
  readonly options: Readonly<EspeakOptions>
  private readonly voices: EspeakVoices

  constructor(options: Partial<EspeakOptions> = {}) {
    const o = { ...DEFAULT_ESPEAK_OPTIONS, ...options }
    if (!Number.isInteger(o.rateWpm) || o.rateWpm < 80 || o.rateWpm > 450) throw new RangeError('EspeakTts: rateWpm must be an integer in 80–450')
    requirePositive('EspeakTts', o, ['maxTextChars', 'timeoutMs', 'idleTimeoutMs'])
    this.options = o
    this.voices = new EspeakVoices(o.binary, o.timeoutMs)
  }

  /** The voice for a request: explicit voice, else the language's, else the default; always an installed one. */
  async resolveVoice(o: { voice?: string; language?: string }): Promise<string> {
    let installed: Set<string>
    try {
      installed = await this.voices.get()
    } catch (err) {
      throw spawnError(err)
    }
    if (o.voice) {
      const v = o.voice.toLowerCase()
      if (!installed.has(v)) throw new ProviderError('tts', 'tts_failed', `espeak-ng has no voice "${o.voice.slice(0, 40)}"`, { retryable: false })
      return v
    }
    if (o.language) {
      const tag = o.language.toLowerCase()
      const primary = tag.split('-')[0]!
      const v = [LANGUAGE_VOICES[tag], tag, LANGUAGE_VOICES[primary], primary].find((c) => c !== undefined && installed.has(c))
      if (!v) throw new ProviderError('tts', 'tts_failed', `espeak-ng has no voice for language "${o.language.slice(0, 20)}"`, { retryable: false })
      return v
    }
    return this.options.defaultVoice
  }

  async *synthesize(text: string, o: SynthesizeOptions): AsyncGenerator<Int16Array> {
    const { signal } = o
    signal.throwIfAborted()
    checkText('espeak-ng', text, this.options.maxTextChars)
    if (!text.trim()) return
    const voice = await this.resolveVoice(o)
    signal.throwIfAborted()
    const child = spawn(this.options.binary, ['--stdout', '-b', '1', '-v', voice, '-s', String(this.options.rateWpm)], { stdio: ['pipe', 'pipe', 'pipe'] })
    // 'close' comes after the exit and the pipes closing: once it fired the process is reaped.
    const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
      child.once('error', (error) => resolve({ code: null, error }))
      child.once('close', (code) => resolve({ code }))
    })
    let stderr = ''
    child.stderr.on('data', (c: Buffer) => void (stderr = (stderr + c.toString('utf8')).slice(-500)))
    // The process may die before reading everything; its exit status tells why, not EPIPE.
    child.stdin.on('error', () => {})
    child.stdin.end(text, 'utf8')

    const kill = () => child.kill('SIGKILL')
    signal.addEventListener('abort', kill, { once: true })
    let timedOut: 'first' | 'idle' | null = null
    let timer: NodeJS.Timeout | undefined
    const arm = (phase: 'first' | 'idle', ms: number) => {
      clearTimeout(timer)
      timer = setTimeout(() => {
        timedOut = phase
        kill()
      }, ms)
    }
    const decoder = wavDecoder(o.sampleRate)
    try {
      arm('first', this.options.timeoutMs)
      for await (const bytes of child.stdout as AsyncIterable<Buffer>) {
        for await (const out of decodeSliced(decoder, bytes)) {
          clearTimeout(timer)
          yield out
        }
        arm('idle', this.options.idleTimeoutMs)
      }
      const { code, error } = await exited
      signal.throwIfAborted()
      if (timedOut) throw timeoutError(timedOut, this.options)
      if (error) throw spawnError(error)
      if (code !== 0)
        throw new ProviderError('tts', 'tts_failed', `espeak-ng exited with status ${code}: ${stderr.trim() || 'no message'}`, { retryable: false })
      const tail = decoder.end()
      if (tail.length) yield tail
    } catch (err) {
      signal.throwIfAborted()
      if (timedOut) throw timeoutError(timedOut, this.options)
      if (err instanceof ProviderError) throw err
      const { error } = await exitAfter(child, exited)
      if (error) throw spawnError(error)
      throw new ProviderError('tts', 'tts_failed', `espeak-ng produced unreadable audio: ${(err as Error).message}`, { retryable: false })
    } finally {
      clearTimeout(timer)
      signal.removeEventListener('abort', kill)
      // Whatever ended the synthesis (abort, a consumer's early return, an error), the process is
      // killed and waited for, so none outlives its request and none is left a zombie.
      await exitAfter(child, exited)
    }
  }
}

function exitAfter(child: ReturnType<typeof spawn>, exited: Promise<{ code: number | null; error?: Error }>) {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  return exited
}

function spawnError(err: unknown): ProviderError<'tts'> {
  const code = (err as { code?: unknown }).code
  if (code === 'ENOENT') return new ProviderError('tts', 'tts_unavailable', MISSING, { retryable: false })
  if (code === 'EACCES') return new ProviderError('tts', 'tts_unavailable', 'espeak-ng is not executable (permission denied)', { retryable: false })
  if ((err as { killed?: boolean }).killed) return new ProviderError('tts', 'tts_timeout', 'espeak-ng did not list its voices in time', { retryable: true })
  return new ProviderError('tts', 'tts_unavailable', `espeak-ng could not be run: ${(err as Error).message ?? String(err)}`, { retryable: true })
}

function timeoutError(phase: 'first' | 'idle', o: EspeakOptions): ProviderError<'tts'> {
  return phase === 'first'
    ? new ProviderError('tts', 'tts_timeout', `espeak-ng produced no audio within ${o.timeoutMs} ms`, { retryable: true })
    : new ProviderError('tts', 'tts_timeout', `espeak-ng stopped producing audio for ${o.idleTimeoutMs} ms`, { retryable: true })
}
