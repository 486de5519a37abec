import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The RFC 4475 torture messages under test/fixtures/sip/rfc4475/, as exact bytes. */
const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/sip/rfc4475')

export function torture(name: string): Buffer {
  return readFileSync(path.join(DIR, `${name}.dat`))
}

export const TORTURE_NAMES: readonly string[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.dat'))
  .map((f) => f.slice(0, -4))
  .sort()

/** §3.1.1: messages every element must accept. */
export const VALID = [
  'wsinv',
  'intmeth',
  'esc01',
  'escnull',
  'esc02',
  'lwsdisp',
  'longreq',
  'dblreq',
  'semiuri',
  'transports',
  'mpart01',
  'unreason',
  'noreason',
]

/** §3.1.2: messages that are malformed. */
export const INVALID = [
  'badinv01',
  'clerr',
  'ncl',
  'scalar02',
  'scalarlg',
  'quotbal',
  'ltgtruri',
  'lwsruri',
  'lwsstart',
  'trws',
  'escruri',
  'baddate',
  'regbadct',
  'badaspec',
  'baddn',
  'badvers',
  'mismatch01',
  'mismatch02',
  'bigcode',
]
