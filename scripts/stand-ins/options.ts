/**
 * `npm run stand-ins` flags and environment, parsed without side effects: a bad flag is a usage
 * error (exit 2) with a message, never a stack trace.
 */
import { parseArgs } from 'node:util'

export const DEFAULT_STAND_IN_OPTIONS = {
  /** OpenAI: chat completions, embeddings, speech, transcriptions. Next to Ozan's 8080 and 8081. */
  openaiPort: 8090,
  /** Deepgram: live transcription and Aura speech. */
  deepgramPort: 8091,
  /** The keys the stand-ins accept: not secrets, they guard nothing but a fake. */
  openaiKey: 'sk-ozan-stand-in',
  deepgramKey: 'ozan-stand-in-deepgram',
  apiUrl: 'http://localhost:8080',
} as const

export const USAGE = `Usage: npm run stand-ins -- [options]

Starts local stand-ins for OpenAI and Deepgram on 127.0.0.1. They are fakes with SCRIPTED
replies, not real providers: they recognize no speech and understand nothing.

Options:
  --openai-port <port>    OpenAI stand-in port (env STAND_INS_OPENAI_PORT; default ${DEFAULT_STAND_IN_OPTIONS.openaiPort}; 0: any free port)
  --deepgram-port <port>  Deepgram stand-in port (env STAND_INS_DEEPGRAM_PORT; default ${DEFAULT_STAND_IN_OPTIONS.deepgramPort}; 0: any free port)
  --openai-key <key>      key the OpenAI stand-in accepts (default ${DEFAULT_STAND_IN_OPTIONS.openaiKey})
  --deepgram-key <key>    key the Deepgram stand-in accepts (default ${DEFAULT_STAND_IN_OPTIONS.deepgramKey})
  --script <file>         the dialogue: "caller: …" lines, each optionally followed by an "agent: …" reply
  --caller <line>         a caller line (repeat for more); replaces the default dialogue, replies echo it
  --configure             store the organization's deepgram and openai credentials through the API
  --api-key <key>         API key for --configure (else env OZAN_API_KEY); used for that request only
  --api-url <url>         Ozan's URL, for --configure and the printed commands (default ${DEFAULT_STAND_IN_OPTIONS.apiUrl})
  -h, --help              this text

Docs: docs/stand-ins.md`

export type DialogueSource = { kind: 'default' } | { kind: 'lines'; lines: string[] } | { kind: 'file'; path: string }

export interface StandInsOptions {
  openaiPort: number
  deepgramPort: number
  openaiKey: string
  deepgramKey: string
  dialogue: DialogueSource
  apiUrl: string
  /** Set with --configure: the key for the PUT /credentials requests (never printed). */
  configure: { apiKey: string } | null
}

export type Parsed = { kind: 'run'; options: StandInsOptions } | { kind: 'help' } | { kind: 'usage'; message: string }

const FLAGS = {
  'openai-port': { type: 'string' },
  'deepgram-port': { type: 'string' },
  'openai-key': { type: 'string' },
  'deepgram-key': { type: 'string' },
  script: { type: 'string' },
  caller: { type: 'string', multiple: true },
  configure: { type: 'boolean' },
  'api-key': { type: 'string' },
  'api-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

class UsageError extends Error {}

function port(value: string, what: string): number {
  const n = Number(value)
  if (!/^\d+$/.test(value) || n > 65_535) throw new UsageError(`${what} must be a port number (0 to 65535), not "${value}"`)
  return n
}

// A key travels in an HTTP header: no spaces or control characters.
function key(value: string, what: string): string {
  if (!/^[\x21-\x7e]{1,256}$/.test(value)) throw new UsageError(`${what} must be 1 to 256 printable characters without spaces`)
  return value
}

function httpUrl(value: string): string {
  let url: URL | null = null
  try {
    url = new URL(value)
  } catch {
    // Reported below.
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new UsageError(`--api-url must be an http or https URL, not "${value}"`)
  return value.replace(/\/+$/, '')
}

/** The flags (argv without node and the script) and environment, or what is wrong with them. */
export function parseOptions(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Parsed {
  try {
    const { values: v } = parseArgs({ args: [...argv], options: FLAGS, strict: true, allowPositionals: false })
    if (v.help) return { kind: 'help' }
    if (v.script !== undefined && v.caller !== undefined) throw new UsageError('use --script or --caller, not both')
    if (v['api-key'] !== undefined && !v.configure) throw new UsageError('--api-key is only used with --configure')
    const envPort = (name: string) => (env[name] ? port(env[name], name) : undefined)
    const openaiPort = v['openai-port'] !== undefined ? port(v['openai-port'], '--openai-port') : envPort('STAND_INS_OPENAI_PORT')
    const deepgramPort = v['deepgram-port'] !== undefined ? port(v['deepgram-port'], '--deepgram-port') : envPort('STAND_INS_DEEPGRAM_PORT')
    const options: StandInsOptions = {
      openaiPort: openaiPort ?? DEFAULT_STAND_IN_OPTIONS.openaiPort,
      deepgramPort: deepgramPort ?? DEFAULT_STAND_IN_OPTIONS.deepgramPort,
      openaiKey: key(v['openai-key'] ?? DEFAULT_STAND_IN_OPTIONS.openaiKey, '--openai-key'),
      deepgramKey: key(v['deepgram-key'] ?? DEFAULT_STAND_IN_OPTIONS.deepgramKey, '--deepgram-key'),
      dialogue: v.script !== undefined ? { kind: 'file', path: v.script } : v.caller ? { kind: 'lines', lines: v.caller } : { kind: 'default' },
      apiUrl: httpUrl(v['api-url'] ?? DEFAULT_STAND_IN_OPTIONS.apiUrl),
      configure: null,
    }
    if (options.openaiPort !== 0 && options.openaiPort === options.deepgramPort) throw new UsageError('the two stand-ins need different ports')
    if (v.caller?.some((line) => !line.trim())) throw new UsageError('--caller needs a non-empty line')
    if (v.configure) {
      const apiKey = v['api-key'] ?? env.OZAN_API_KEY
      if (!apiKey) throw new UsageError('--configure needs an API key: --api-key <key>, or OZAN_API_KEY in the environment')
      options.configure = { apiKey: key(apiKey, 'the API key') }
    }
    return { kind: 'run', options }
  } catch (err) {
    // parseArgs throws TypeErrors with ERR_PARSE_ARGS_* codes whose messages name the flag.
    const parseError = err instanceof TypeError && String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')
    if (err instanceof UsageError || parseError) return { kind: 'usage', message: (err as Error).message }
    throw err
  }
}
