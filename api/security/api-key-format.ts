import { randomBytes } from 'node:crypto'
import { randomToken, sha256Hex } from './random.js'

/**
 * `ozk_<lookup>_<secret>`: a recognisable prefix (secret scanners can match it), a 16-hex-digit
 * lookup id that finds the row without scanning, and 256 random bits. Only SHA-256 of the whole
 * key is stored.
 */
const PREFIX = 'ozk_'
const FORMAT = /^ozk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/

export interface NewApiKey {
  key: string
  lookup: string
  hash: string
  /** What listings show: enough to recognise a key, useless to use it. */
  displayPrefix: string
}

export function generateApiKey(): NewApiKey {
  const lookup = randomBytes(8).toString('hex')
  const key = `${PREFIX}${lookup}_${randomToken(32)}`
  return { key, lookup, hash: sha256Hex(key), displayPrefix: `${PREFIX}${lookup}` }
}

export function parseApiKey(key: string): { lookup: string } | null {
  const m = FORMAT.exec(key)
  return m ? { lookup: m[1]! } : null
}

export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(PREFIX)
}

export function displayPrefix(lookup: string): string {
  return `${PREFIX}${lookup}`
}
