import { hash, verify } from '@node-rs/argon2'

/** OWASP Password Storage Cheat Sheet: argon2id, m = 19 MiB, t = 2, p = 1. */
const OPTIONS = { algorithm: 2 /* Algorithm.Argon2id (a const enum) */, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS)
}

// A real hash of a random password: checking against it when the email is unknown costs the
// same as a real check, so login timing does not reveal which emails have accounts.
let dummy: Promise<string> | null = null

export async function verifyPassword(storedHash: string | null, password: string): Promise<boolean> {
  if (storedHash === null) {
    dummy ??= hashPassword(`dummy-${Math.random()}`)
    await verify(await dummy, password).catch(() => false)
    return false
  }
  return verify(storedHash, password).catch(() => false)
}
