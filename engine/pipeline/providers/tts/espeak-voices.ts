/**
 * The voices espeak-ng has installed, as `espeak-ng --voices` lists them. A requested voice must be
 * one of these: the name goes on the command line, so the whitelist is also what keeps a voice
 * like `--foo` from becoming an option.
 */
import { execFile } from 'node:child_process'

/** Parses the `--voices` table: `Pty Language Age/Gender VoiceName File Other Languages`. */
export function parseVoiceList(out: string): Set<string> {
  const voices = new Set<string>()
  for (const line of out.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/)
    // Language is the identifier `-v` takes (`en-us`, `tr`); the file path (`gmw/en-US`) is not offered.
    const language = cols[1]
    if (cols.length >= 5 && language && /^[a-z0-9][a-z0-9-]*$/i.test(language)) voices.add(language.toLowerCase())
  }
  return voices
}

/** Lists the voices once per binary and remembers the answer; a failed listing is retried next time. */
export class EspeakVoices {
  private list: Promise<Set<string>> | null = null

  constructor(
    private readonly binary: string,
    private readonly timeoutMs: number,
  ) {}

  get(): Promise<Set<string>> {
    this.list ??= new Promise<Set<string>>((resolve, reject) => {
      execFile(this.binary, ['--voices'], { timeout: this.timeoutMs, maxBuffer: 1024 * 1024 }, (err, stdout) => {
        if (err) reject(err)
        else resolve(parseVoiceList(stdout))
      })
    })
    this.list.catch(() => (this.list = null))
    return this.list
  }
}
