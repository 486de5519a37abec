import t from 'tap'
import path from 'node:path'
import { ConfigError, loadConfig } from '../../core/index.js'

t.test('defaults need no variables', async (t) => {
  const c = loadConfig({})
  t.equal(c.port, 8080)
  t.equal(c.dataDir, path.resolve('./data'))
  t.equal(c.databaseFile, path.join(path.resolve('./data'), 'ozan.db'))
  t.equal(c.bodyLimitBytes, 1024 * 1024)
  t.equal(c.accessTokenTtlS, 900)
  t.equal(c.publicUrl, 'http://localhost:8080')
  t.equal(c.smtpUrl, null)
})

t.test('variables override defaults', async (t) => {
  const c = loadConfig({ OZAN_PORT: '9000', OZAN_PUBLIC_URL: 'https://voice.example.com/', OZAN_TRUST_PROXY: 'true' })
  t.equal(c.port, 9000)
  t.equal(c.publicUrl, 'https://voice.example.com', 'trailing slash dropped')
  t.equal(c.trustProxy, true)
})

t.test('an invalid variable stops with a message naming it', async (t) => {
  const err = t.throws(() => loadConfig({ OZAN_PORT: 'eighty', OZAN_LOG_LEVEL: 'loud' })) as ConfigError
  t.type(err, ConfigError)
  t.match(err.message, /OZAN_PORT/)
  t.match(err.message, /OZAN_LOG_LEVEL/)
  t.equal(err.problems.length, 2, 'every bad variable is reported at once')
})

t.test('out-of-range numbers are refused', async (t) => {
  t.throws(() => loadConfig({ OZAN_PORT: '70000' }), /OZAN_PORT/)
  t.throws(() => loadConfig({ OZAN_BODY_LIMIT_BYTES: '10' }), /OZAN_BODY_LIMIT_BYTES/)
})

t.test('a bad secret is named but its value is never echoed', async (t) => {
  const value = 'too-short-secret-value'
  const err = t.throws(() => loadConfig({ OZAN_TOKEN_SIGNING_KEY: value })) as Error
  t.match(err.message, /OZAN_TOKEN_SIGNING_KEY/)
  t.notMatch(err.message, value)
})

t.test('an empty variable counts as unset', async (t) => {
  t.equal(loadConfig({ OZAN_PORT: '' }).port, 8080)
})

t.test('the call engine: defaults, overrides and ranges', async (t) => {
  const d = loadConfig({ OZAN_HOST: '127.0.0.1' })
  t.match(d, {
    engineHost: '127.0.0.1',
    enginePort: 8081,
    engineSocket: 'auto',
    vadSilenceGateDbfs: -70,
    enginePublicUrl: null,
    webCallTokenTtlS: 300,
    maxLiveCallsPerOrg: 10,
  })
  const c = loadConfig({
    OZAN_ENGINE_HOST: '0.0.0.0',
    OZAN_ENGINE_PORT: '0',
    OZAN_ENGINE_SOCKET: 'ws',
    OZAN_ENGINE_PUBLIC_URL: 'wss://calls.example.com/',
    OZAN_WEB_CALL_TOKEN_TTL_S: '60',
    OZAN_MAX_LIVE_CALLS_PER_ORG: '1',
    OZAN_VAD_SILENCE_GATE_DBFS: '-55',
  })
  t.equal(c.vadSilenceGateDbfs, -55)
  t.equal(loadConfig({ OZAN_VAD_SILENCE_GATE_DBFS: 'off' }).vadSilenceGateDbfs, null, 'off: every window runs the model')
  t.match(c, {
    engineHost: '0.0.0.0',
    enginePort: 0,
    engineSocket: 'ws',
    enginePublicUrl: 'wss://calls.example.com',
    webCallTokenTtlS: 60,
    maxLiveCallsPerOrg: 1,
  })
  for (const [name, value] of [
    ['OZAN_WEB_CALL_TOKEN_TTL_S', '301'],
    ['OZAN_MAX_LIVE_CALLS_PER_ORG', '0'],
    ['OZAN_ENGINE_SOCKET', 'tcp'],
    ['OZAN_ENGINE_PUBLIC_URL', 'http://x.example'],
    ['OZAN_VAD_SILENCE_GATE_DBFS', '-10'],
    ['OZAN_VAD_SILENCE_GATE_DBFS', 'loud'],
    ['OZAN_VAD_SILENCE_GATE_DBFS', '-60.5'],
  ] as const) {
    t.throws(() => loadConfig({ [name]: value }), new RegExp(name))
  }
})
