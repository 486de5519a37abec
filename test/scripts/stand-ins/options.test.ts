import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { DEFAULT_STAND_IN_OPTIONS, parseOptions, USAGE, type Parsed } from '../../../scripts/stand-ins/options.js'

const run = (p: Parsed) => {
  if (p.kind !== 'run') throw new Error(`expected run, got ${JSON.stringify(p)}`)
  return p.options
}
const usage = (p: Parsed) => (p.kind === 'usage' ? p.message : `not a usage error: ${p.kind}`)

t.test('no flags: the documented fixed ports, keys, the default dialogue, nothing configured', async (t) => {
  t.same(run(parseOptions([], {})), {
    openaiPort: 8090,
    deepgramPort: 8091,
    openaiKey: DEFAULT_STAND_IN_OPTIONS.openaiKey,
    deepgramKey: DEFAULT_STAND_IN_OPTIONS.deepgramKey,
    dialogue: { kind: 'default' },
    apiUrl: 'http://localhost:8080',
    configure: null,
  })
})

t.test('ports come from the environment, and a flag overrides it; 0 means any free port', async (t) => {
  const o = run(parseOptions(['--deepgram-port', '0'], { STAND_INS_OPENAI_PORT: '9001', STAND_INS_DEEPGRAM_PORT: '9002' }))
  t.equal(o.openaiPort, 9001)
  t.equal(o.deepgramPort, 0)
})

t.test('dialogue, keys and API URL flags', async (t) => {
  t.same(run(parseOptions(['--caller', 'one', '--caller', 'two'], {})).dialogue, { kind: 'lines', lines: ['one', 'two'] })
  t.same(run(parseOptions(['--script', 'talk.txt'], {})).dialogue, { kind: 'file', path: 'talk.txt' })
  const o = run(parseOptions(['--openai-key', 'sk-mine', '--deepgram-key', 'dg-mine', '--api-url', 'http://127.0.0.1:9999/'], {}))
  t.same([o.openaiKey, o.deepgramKey, o.apiUrl], ['sk-mine', 'dg-mine', 'http://127.0.0.1:9999'])
})

t.test('--configure takes the API key from --api-key, else OZAN_API_KEY', async (t) => {
  t.same(run(parseOptions(['--configure', '--api-key', 'ozan_flag'], { OZAN_API_KEY: 'ozan_env' })).configure, { apiKey: 'ozan_flag' })
  t.same(run(parseOptions(['--configure'], { OZAN_API_KEY: 'ozan_env' })).configure, { apiKey: 'ozan_env' })
})

t.test('bad flags are usage errors that say what is wrong, and never echo an API key', async (t) => {
  t.match(usage(parseOptions(['--bogus'], {})), /Unknown option '--bogus'/)
  t.match(usage(parseOptions(['extra'], {})), /Unexpected argument 'extra'/)
  t.match(usage(parseOptions(['--openai-port'], {})), /argument missing/)
  t.match(usage(parseOptions(['--openai-port', '70000'], {})), /--openai-port must be a port number/)
  t.match(usage(parseOptions(['--deepgram-port', 'x1'], {})), /--deepgram-port must be a port number/)
  t.match(usage(parseOptions([], { STAND_INS_OPENAI_PORT: '-1' })), /STAND_INS_OPENAI_PORT must be a port number/)
  t.match(usage(parseOptions(['--openai-port', '9000', '--deepgram-port', '9000'], {})), /different ports/)
  t.match(usage(parseOptions(['--script', 'a', '--caller', 'b'], {})), /--script or --caller, not both/)
  t.match(usage(parseOptions(['--caller', ' '], {})), /non-empty line/)
  t.match(usage(parseOptions(['--api-key', 'ozan_secret_1'], {})), /only used with --configure/)
  t.match(usage(parseOptions(['--configure'], {})), /needs an API key/)
  t.match(usage(parseOptions(['--api-url', 'ftp://x'], {})), /http or https URL/)
  const spaced = usage(parseOptions(['--configure', '--api-key', 'ozan secret 2'], {}))
  t.match(spaced, /printable characters without spaces/)
  t.notMatch(spaced, /secret 2/, 'the key is not in the message')
})

t.test('-h and --help ask for the usage text', async (t) => {
  t.equal(parseOptions(['-h'], {}).kind, 'help')
  t.equal(parseOptions(['--help', '--bogus-after'], {}).kind, 'usage', 'an unknown flag is still an error')
})

t.test('docs/stand-ins.md documents every flag of the usage text, with its default', async (t) => {
  const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../../../docs/stand-ins.md'), 'utf8')
  const flags = [...USAGE.matchAll(/^ {2}(?:-h, )?(--[a-z-]+)/gm)].map((m) => m[1]!).filter((f) => f !== '--help')
  t.equal(flags.length, 9)
  for (const flag of flags) t.match(doc, `| \`${flag}`, flag)
  for (const value of [
    DEFAULT_STAND_IN_OPTIONS.openaiPort,
    DEFAULT_STAND_IN_OPTIONS.deepgramPort,
    DEFAULT_STAND_IN_OPTIONS.openaiKey,
    DEFAULT_STAND_IN_OPTIONS.deepgramKey,
  ])
    t.match(doc, `| \`${value}\` |`, `default ${value}`)
  t.match(doc, '`STAND_INS_OPENAI_PORT`')
  t.match(doc, '`STAND_INS_DEEPGRAM_PORT`')
})
