import fs from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Config } from './config.js'

export interface Secrets {
  tokenSigningKey: Buffer
  credentialEncryptionKey: Buffer
}

const FILE = 'secrets.json'

/**
 * The embedded default needs two keys. They are generated once into `<dataDir>/secrets.json`
 * (mode 0600) so tokens and encrypted credentials survive restarts; variables override them.
 * Nothing here is ever logged.
 */
export function loadSecrets(config: Config): Secrets {
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 })
  const file = path.join(config.dataDir, FILE)
  let stored: Record<string, string> = {}
  if (fs.existsSync(file)) {
    try {
      stored = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>
    } catch {
      throw new Error(`${file} is not valid JSON; restore it or remove it to generate new keys`)
    }
  }
  let changed = false
  const take = (name: string): string => {
    const have = stored[name]
    if (have && Buffer.from(have, 'base64').length >= 32) return have
    changed = true
    return (stored[name] = randomBytes(32).toString('base64'))
  }
  const token = take('token_signing_key')
  const credential = take('credential_encryption_key')
  if (changed) fs.writeFileSync(file, JSON.stringify(stored, null, 2) + '\n', { mode: 0o600 })
  fs.chmodSync(file, 0o600)
  return {
    tokenSigningKey: Buffer.from(config.tokenSigningKey ?? token, 'base64'),
    credentialEncryptionKey: Buffer.from(config.credentialEncryptionKey ?? credential, 'base64'),
  }
}
