import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto'

const IV_BYTES = 12
const TAG_BYTES = 16
/** Key-id prefix: the format of `sealed` and of the additional data. A new format gets k2. */
const FORMAT = 'k1'

/** A sealed value could not be opened: altered, moved to another row, or sealed with another key. */
export class CredentialDecryptError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CredentialDecryptError'
  }
}

export interface Sealed {
  keyId: string
  /** iv (12 bytes) || tag (16 bytes) || ciphertext. */
  sealed: Buffer
}

interface Key {
  id: string
  aes: Buffer
}

function deriveKey(material: Buffer): Key {
  if (material.length < 32) throw new Error('the credential encryption key must be at least 32 bytes')
  // HKDF gives exactly 32 bytes whatever the configured length, and keeps this key apart from any
  // other use of the same material. The id is a keyed fingerprint: it names the key, reveals nothing.
  const aes = Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), 'ozan credentials aes-256-gcm', 32))
  const id = `${FORMAT}-${createHmac('sha256', material).update('ozan credential key id').digest('hex').slice(0, 12)}`
  return { id, aes }
}

/**
 * AES-256-GCM for stored credentials. The first key seals; every key listed opens what it sealed,
 * found by the key id stored beside each value, so a rotation can add the new key in front and
 * re-seal rows at leisure.
 */
export class CredentialCipher {
  private readonly keys: Key[]

  constructor(keys: Buffer | readonly Buffer[]) {
    const list = Buffer.isBuffer(keys) ? [keys] : [...keys]
    if (list.length === 0) throw new Error('at least one credential encryption key is needed')
    this.keys = list.map(deriveKey)
  }

  /** The id of the key new values are sealed with. */
  get keyId(): string {
    return this.keys[0]!.id
  }

  /** Seals `plaintext` under a fresh random IV; `aad` must be given again, identical, to open it. */
  seal(plaintext: Buffer, aad: Buffer): Sealed {
    const key = this.keys[0]!
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', key.aes, iv, { authTagLength: TAG_BYTES })
    cipher.setAAD(aad)
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()])
    return { keyId: key.id, sealed: Buffer.concat([iv, cipher.getAuthTag(), body]) }
  }

  /** Opens a sealed value or throws CredentialDecryptError; never returns unauthenticated bytes. */
  open(s: Sealed, aad: Buffer): Buffer {
    const key = this.keys.find((k) => k.id === s.keyId)
    if (!key) throw new CredentialDecryptError(`sealed with key ${s.keyId}, which is not configured (configured: ${this.keys.map((k) => k.id).join(', ')})`)
    if (s.sealed.length < IV_BYTES + TAG_BYTES) throw new CredentialDecryptError('the sealed value is truncated')
    const decipher = createDecipheriv('aes-256-gcm', key.aes, s.sealed.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES })
    decipher.setAAD(aad)
    decipher.setAuthTag(s.sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
    try {
      return Buffer.concat([decipher.update(s.sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()])
    } catch {
      throw new CredentialDecryptError('authentication failed: the value was altered, or belongs to another organization or provider')
    }
  }
}
