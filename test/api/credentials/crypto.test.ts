import { randomBytes } from 'node:crypto'
import t from 'tap'
import { CredentialCipher, CredentialDecryptError } from '../../../api/credentials/crypto.js'
import { FULL_MASK, maskSecret } from '../../../api/credentials/service.js'

const aad = (org: string, provider: string) => Buffer.from(JSON.stringify([org, provider]))
const text = (b: Buffer) => b.toString('utf8')

t.test('seal then open gives the plaintext back, under a fresh 12-byte IV each time', async (t) => {
  const cipher = new CredentialCipher(randomBytes(32))
  const plain = Buffer.from('{"api_key":"sk-round-trip"}')
  const one = cipher.seal(plain, aad('o1', 'openai'))
  const two = cipher.seal(plain, aad('o1', 'openai'))
  t.equal(text(cipher.open(one, aad('o1', 'openai'))), '{"api_key":"sk-round-trip"}')
  t.equal(one.sealed.length, 12 + 16 + plain.length, 'iv + tag + ciphertext, nothing else')
  t.not(one.sealed.subarray(0, 12).toString('hex'), two.sealed.subarray(0, 12).toString('hex'), 'IVs differ')
  t.not(one.sealed.toString('hex'), two.sealed.toString('hex'), 'so do the sealed values')
  t.notOk(one.sealed.includes(Buffer.from('sk-round-trip')), 'the plaintext is not in the sealed bytes')
})

t.test('the additional data must match: another organization or provider does not open it', async (t) => {
  const cipher = new CredentialCipher(randomBytes(32))
  const s = cipher.seal(Buffer.from('secret'), aad('o1', 'openai'))
  for (const [org, provider] of [
    ['o2', 'openai'],
    ['o1', 'deepgram'],
    ['', ''],
  ]) {
    t.throws(() => cipher.open(s, aad(org!, provider!)), CredentialDecryptError, `${org}/${provider}`)
  }
  t.throws(() => cipher.open(s, Buffer.alloc(0)), { message: /authentication failed/ })
})

t.test('every bit of the sealed value is authenticated', async (t) => {
  const cipher = new CredentialCipher(randomBytes(32))
  const s = cipher.seal(Buffer.from('a secret of some length'), aad('o', 'p'))
  let opened = 0
  for (let i = 0; i < s.sealed.length; i++) {
    const bad = Buffer.from(s.sealed)
    bad[i]! ^= 1 << (i % 8)
    try {
      cipher.open({ ...s, sealed: bad }, aad('o', 'p'))
      opened++
    } catch (err) {
      if (!(err instanceof CredentialDecryptError)) throw err
    }
  }
  t.equal(opened, 0, `none of ${s.sealed.length} single-bit changes opens`)
  t.throws(() => cipher.open({ ...s, sealed: s.sealed.subarray(0, 27) }, aad('o', 'p')), { message: /truncated/ })
})

t.test('key ids name the key without revealing it; a value sealed with another key is refused by id', async (t) => {
  const k1 = randomBytes(32)
  const k2 = randomBytes(32)
  const a = new CredentialCipher(k1)
  t.match(a.keyId, /^k1-[0-9a-f]{12}$/)
  t.equal(new CredentialCipher(Buffer.from(k1)).keyId, a.keyId, 'stable for the same key')
  t.not(new CredentialCipher(k2).keyId, a.keyId, 'different for another key')
  t.notOk(a.keyId.includes(k1.toString('hex').slice(0, 12)), 'not a prefix of the key')
  const s = a.seal(Buffer.from('x'), aad('o', 'p'))
  t.throws(() => new CredentialCipher(k2).open(s, aad('o', 'p')), { message: new RegExp(`sealed with key ${a.keyId}, which is not configured`) })
  // A forged key id naming the other key still cannot open it.
  const b = new CredentialCipher(k2)
  t.throws(() => b.open({ ...s, keyId: b.keyId }, aad('o', 'p')), CredentialDecryptError)
})

t.test('rotation: the first key seals, every listed key opens what it sealed', async (t) => {
  const oldKey = randomBytes(32)
  const newKey = randomBytes(48) // longer material is accepted; HKDF derives the AES key
  const before = new CredentialCipher(oldKey).seal(Buffer.from('old'), aad('o', 'p'))
  const ring = new CredentialCipher([newKey, oldKey])
  t.equal(ring.keyId, new CredentialCipher(newKey).keyId)
  t.equal(text(ring.open(before, aad('o', 'p'))), 'old')
  const after = ring.seal(Buffer.from('new'), aad('o', 'p'))
  t.equal(after.keyId, ring.keyId)
  t.throws(() => new CredentialCipher(oldKey).open(after, aad('o', 'p')), CredentialDecryptError)
})

t.test('constructor refuses keys that are too short, or none', async (t) => {
  t.throws(() => new CredentialCipher(randomBytes(16)), /at least 32 bytes/)
  t.throws(() => new CredentialCipher([]), /at least one/)
})

t.test('masking: last 4 characters from 12 on, nothing below', async (t) => {
  t.equal(maskSecret(''), FULL_MASK)
  t.equal(maskSecret('12345678901'), FULL_MASK)
  t.equal(maskSecret('123456789012'), '••••9012')
  t.equal(maskSecret('sk-' + 'x'.repeat(200) + 'TAIL'), '••••TAIL', 'the length of a long secret is not shown')
  t.equal(maskSecret('key-with-emoji-🔑🔑🔑🔑'), '••••🔑🔑🔑🔑', 'counted in characters, not UTF-16 units')
})
