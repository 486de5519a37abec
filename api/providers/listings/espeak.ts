/**
 * The voices espeak-ng has installed on this machine, from `espeak-ng --voices`. Ids follow the
 * engine's rule (engine/pipeline/providers/tts/espeak-voices.ts: the Language column, lower case),
 * so every id listed here is one the engine's espeak voice whitelist accepts.
 */
import { execFile } from 'node:child_process'
import type { ProviderResourceT } from '../schema.js'
import { ListingError } from './fetch-json.js'
import { MAX_LISTED_ITEMS } from './remote.js'

/** Parses the `--voices` table: `Pty Language Age/Gender VoiceName File Other Languages`. */
export function parseEspeakVoices(out: string): ProviderResourceT[] {
  const seen = new Map<string, ProviderResourceT>()
  for (const line of out.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/)
    const language = cols[1]
    if (cols.length < 5 || !language || !/^[a-z0-9][a-z0-9-]*$/i.test(language)) continue
    const id = language.toLowerCase()
    if (!seen.has(id)) seen.set(id, { id, name: (cols[3] ?? id).replace(/_/g, ' ').trim() || id, languages: [language] })
    if (seen.size >= MAX_LISTED_ITEMS) break
  }
  return [...seen.values()]
}

/** Runs `<binary> --voices`; a missing binary is not_installed, a slow one timeout. */
export function listEspeakVoices(binary: string, timeoutMs: number): Promise<ProviderResourceT[]> {
  return new Promise((resolve, reject) => {
    execFile(binary, ['--voices'], { timeout: timeoutMs, maxBuffer: 1024 * 1024 }, (err, stdout) => {
      if (!err) return resolve(parseEspeakVoices(stdout))
      const e = err as NodeJS.ErrnoException & { killed?: boolean }
      if (e.code === 'ENOENT') reject(new ListingError('not_installed', `${binary} is not installed.`))
      else if (e.killed) reject(new ListingError('timeout', `${binary} --voices did not finish in time.`))
      else reject(new ListingError('upstream_error', `${binary} --voices failed.`))
    })
  })
}
