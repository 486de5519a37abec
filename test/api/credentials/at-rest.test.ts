import fs from 'node:fs'
import { randomBytes } from 'node:crypto'
import t, { type Test } from 'tap'
import { CredentialDecryptError } from '../../../api/credentials/crypto.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'

// The issue: "A test proves the database file never contains a stored secret in plaintext", and
// the AAD "binds organization and provider": a sealed value moved or altered never opens.

const CREDENTIALS = '/api/v1/credentials'
const secretOf = (label: string) => `${label}-${randomBytes(18).toString('hex')}`

/** Every encoding a careless implementation might leave a secret in, at each base64 alignment. */
function encodings(secret: string): string[] {
  const out = [secret, Buffer.from(secret).toString('hex'), Buffer.from(secret, 'utf16le').toString('latin1')]
  for (const pad of [0, 1, 2]) {
    // The secret's bytes behind `pad` other bytes: drop the base64 characters the padding touches.
    const b64 = Buffer.concat([Buffer.alloc(pad), Buffer.from(secret)]).toString('base64')
    const core = b64.slice(Math.ceil((pad * 4) / 3), -4)
    out.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'))
  }
  return out
}

/** The bytes of the database and its write-ahead log, as latin1 text so any byte sequence can be searched. */
function databaseBytes(a: TestApp): string {
  const file = a.db.name
  return [file, `${file}-wal`]
    .filter((f) => fs.existsSync(f))
    .map((f) => fs.readFileSync(f).toString('latin1'))
    .join('\n')
}

async function storeSome(t: Test, a: TestApp, owner: Actor) {
  const values = {
    openai: secretOf('sk-openai'),
    openaiReplaced: secretOf('sk-openai-old'),
    slack: secretOf('xoxb-slack'),
    hubspot: secretOf('pat-hubspot'),
  }
  const put = async (body: unknown) => t.equal((await a.request('PUT', CREDENTIALS, { token: owner.token, body })).status, 200)
  await put({ provider: 'openai', fields: { api_key: values.openaiReplaced } })
  await put({ provider: 'openai', fields: { api_key: values.openai, organization: 'org-plain-marker-7f3a9c' } })
  await put({ provider: 'slack', fields: { bot_token: values.slack } })
  await put({ provider: 'hubspot', fields: { access_token: values.hubspot } })
  return values
}

t.test('the database file and its WAL never hold a stored secret in plaintext or a plain encoding', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const values = await storeSome(t, a, owner)
  // Flagged as likely to leak: a 422 that carried a secret, and the lists that show them masked.
  t.equal(
    (await a.request('PUT', CREDENTIALS, { token: owner.token, body: { provider: 'slack', fields: { bot_token: values.slack, extra: values.slack } } })).status,
    422,
  )
  t.equal((await a.request('GET', CREDENTIALS, { token: owner.token })).status, 200)
  a.services.requestLogs.flush()

  const check = (when: string) => {
    const bytes = databaseBytes(a)
    t.ok(bytes.length > 4096, `${when}: read the database (${bytes.length} bytes)`)
    // The search itself works: the plain field and the masked hint's source are findable.
    t.ok(bytes.includes('org-plain-marker-7f3a9c'), `${when}: a plain field is found in the same bytes`)
    for (const [name, secret] of Object.entries(values)) {
      const found = encodings(secret).filter((e) => bytes.includes(e))
      t.same(found, [], `${when}: ${name} is in no encoding`)
    }
  }
  check('before a checkpoint')
  a.db.pragma('wal_checkpoint(TRUNCATE)')
  check('after a checkpoint')
  t.same(
    a.services.credentials.reveal(owner.organizationId, 'openai'),
    { api_key: values.openai, organization: 'org-plain-marker-7f3a9c' },
    'yet they are all recoverable',
  )
  t.same(a.services.credentials.reveal(owner.organizationId, 'hubspot'), { access_token: values.hubspot })
})

t.test('the search does find a secret that is stored in plaintext', async (t) => {
  // Guards the test above against passing vacuously: a plain field holding a secret-shaped value
  // is found in each encoding the encoder knows.
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const plainSecret = secretOf('plain')
  const res = await a.request('PUT', CREDENTIALS, {
    token: owner.token,
    body: { provider: 'openai', fields: { api_key: secretOf('k'), organization: plainSecret } },
  })
  t.equal(res.status, 200)
  a.db.pragma('wal_checkpoint(TRUNCATE)')
  t.ok(databaseBytes(a).includes(encodings(plainSecret)[0]!), 'found as is')
  a.db.prepare('UPDATE credentials SET plain_fields = ?').run(Buffer.from(plainSecret).toString('base64'))
  a.db.pragma('wal_checkpoint(TRUNCATE)')
  t.ok(
    encodings(plainSecret)
      .slice(3)
      .some((e) => databaseBytes(a).includes(e)),
    'found in base64',
  )
})

t.test('an altered or moved sealed value never opens: reveal throws, the list shows it unreadable', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const other = await newOwner(a)
  const secret = secretOf('sk-tamper')
  const put = () =>
    a.request('PUT', CREDENTIALS, { token: owner.token, body: { provider: 'openai', fields: { api_key: secret, base_url: 'https://api.openai.com/v1' } } })
  t.equal((await put()).status, 200)
  const original = a.db.prepare('SELECT * FROM credentials').get() as Record<string, unknown> & { sealed: Buffer }
  const reset = () =>
    a.db
      .prepare('UPDATE credentials SET organization_id = ?, provider = ?, plain_fields = ?, key_id = ?, sealed = ?')
      .run(original.organization_id, original.provider, original.plain_fields, original.key_id, original.sealed)

  const cases: [string, () => void, string, string][] = [
    [
      'a flipped ciphertext byte',
      () => {
        const bad = Buffer.from(original.sealed)
        bad[bad.length - 1]! ^= 0x01
        a.db.prepare('UPDATE credentials SET sealed = ?').run(bad)
      },
      owner.organizationId,
      'openai',
    ],
    [
      'a flipped IV byte',
      () => {
        const bad = Buffer.from(original.sealed)
        bad[0]! ^= 0x80
        a.db.prepare('UPDATE credentials SET sealed = ?').run(bad)
      },
      owner.organizationId,
      'openai',
    ],
    ['a truncated value', () => a.db.prepare('UPDATE credentials SET sealed = ?').run(original.sealed.subarray(0, 20)), owner.organizationId, 'openai'],
    [
      'the row moved to another organization',
      () => a.db.prepare('UPDATE credentials SET organization_id = ?').run(other.organizationId),
      other.organizationId,
      'openai',
    ],
    ['the row moved to another provider', () => a.db.prepare("UPDATE credentials SET provider = 'deepgram'").run(), owner.organizationId, 'deepgram'],
    [
      'its base_url pointed elsewhere',
      () => a.db.prepare('UPDATE credentials SET plain_fields = ?').run(JSON.stringify({ base_url: 'https://attacker.example/v1' })),
      owner.organizationId,
      'openai',
    ],
    ['its plain fields garbled', () => a.db.prepare("UPDATE credentials SET plain_fields = '{not json'").run(), owner.organizationId, 'openai'],
    ['another key id', () => a.db.prepare("UPDATE credentials SET key_id = 'k1-000000000000'").run(), owner.organizationId, 'openai'],
  ]
  for (const [label, tamper, org, provider] of cases) {
    tamper()
    t.throws(() => a.services.credentials.reveal(org, provider), CredentialDecryptError, `${label}: reveal throws`)
    t.throws(
      () => a.services.credentials.reveal(org, provider),
      { message: new RegExp(`stored ${provider} credential cannot be decrypted`) },
      `${label}: the error names what to do`,
    )
    const token = org === owner.organizationId ? owner.token : other.token
    const list = await a.request('GET', CREDENTIALS, { token })
    t.equal(list.status, 200, `${label}: the list still answers`)
    t.match(list.body, [{ provider, readable: false, fields: { api_key: '••••••••' } }], `${label}: shown unreadable, fully masked`)
    reset()
    t.same(
      a.services.credentials.reveal(owner.organizationId, 'openai'),
      { api_key: secret, base_url: 'https://api.openai.com/v1' },
      `${label}: restored, it opens again`,
    )
  }
  t.ok(
    a.logs.some((l) => l.includes('stored credential cannot be decrypted')),
    'unreadable rows are logged',
  )

  // Storing it again heals it, with a fresh IV each time.
  t.equal((await put()).status, 200)
  const again = a.db.prepare('SELECT sealed FROM credentials').get() as { sealed: Buffer }
  t.not(again.sealed.subarray(0, 12).toString('hex'), original.sealed.subarray(0, 12).toString('hex'), 'a new IV per write')
  t.not(again.sealed.toString('hex'), original.sealed.toString('hex'))
})

t.test('no stored secret reaches a log line, at the most verbose level', async (t) => {
  const a = await startTestApp({ env: { OZAN_LOG_LEVEL: 'trace' } })
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const values = await storeSome(t, a, owner)
  await a.request('PUT', CREDENTIALS, { token: owner.token, body: { provider: 'hubspot', fields: { access_token: values.hubspot, oops: values.hubspot } } })
  await a.request('GET', CREDENTIALS, { token: owner.token })
  a.db.prepare("UPDATE credentials SET sealed = zeroblob(40) WHERE provider = 'slack'").run()
  await a.request('GET', CREDENTIALS, { token: owner.token }) // logs the unreadable row
  t.throws(() => a.services.credentials.reveal(owner.organizationId, 'slack'))
  await a.request('DELETE', `${CREDENTIALS}/hubspot`, { token: owner.token })
  t.ok(a.logs.filter((l) => l.includes('"msg":"request"')).length >= 8, 'the requests were logged')
  t.ok(
    a.logs.some((l) => l.includes('cannot be decrypted')),
    'the unreadable row was logged',
  )
  for (const [name, secret] of Object.entries(values)) {
    t.same(
      a.logs.filter((l) => encodings(secret).some((e) => l.includes(e))),
      [],
      `${name} is in no log line`,
    )
  }
})
