import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { loadConfig, loadSecrets } from '../../core/index.js'

t.test('secrets are generated once into the data dir with mode 0600', async (t) => {
  const dir = t.testdir({})
  const config = loadConfig({ OZAN_DATA_DIR: dir })
  const first = loadSecrets(config)
  const file = path.join(dir, 'secrets.json')
  t.equal(fs.statSync(file).mode & 0o777, 0o600)
  t.equal(first.tokenSigningKey.length, 32)
  t.equal(first.credentialEncryptionKey.length, 32)
  t.not(first.tokenSigningKey.toString('hex'), first.credentialEncryptionKey.toString('hex'))
  const again = loadSecrets(config)
  t.same(again.tokenSigningKey, first.tokenSigningKey, 'kept across restarts')
  t.same(again.credentialEncryptionKey, first.credentialEncryptionKey)
})

t.test('loose permissions on an existing file are tightened', async (t) => {
  const dir = t.testdir({})
  const config = loadConfig({ OZAN_DATA_DIR: dir })
  loadSecrets(config)
  const file = path.join(dir, 'secrets.json')
  fs.chmodSync(file, 0o644)
  loadSecrets(config)
  t.equal(fs.statSync(file).mode & 0o777, 0o600)
})

t.test('variables override the stored keys', async (t) => {
  const dir = t.testdir({})
  const key = randomBytes(32).toString('base64')
  const s = loadSecrets(loadConfig({ OZAN_DATA_DIR: dir, OZAN_TOKEN_SIGNING_KEY: key }))
  t.equal(s.tokenSigningKey.toString('base64'), key)
})

t.test('a corrupt secrets file stops start-up with a clear message', async (t) => {
  const dir = t.testdir({ 'secrets.json': '{not json' })
  t.throws(() => loadSecrets(loadConfig({ OZAN_DATA_DIR: dir })), /secrets\.json is not valid JSON/)
})
