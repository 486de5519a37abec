import { boundaryAt } from './text/boundary.js'
import { speakable } from './text/speakable.js'

export interface PhraseChunkerOptions {
  /** The reply's first phrase may end at a clause mark (, ; : —) once it has this many words. */
  minFirstWords: number
  /** Any later phrase may end at a clause mark once it is longer than this (characters). */
  maxPhraseChars: number
}

export const DEFAULT_PHRASE_CHUNKER: PhraseChunkerOptions = { minFirstWords: 3, maxPhraseChars: 120 }

const WORD = /[\p{L}\p{N}]+/gu

/**
 * Cuts a streamed LLM reply into phrases for TTS. The first phrase goes out at its first clause
 * boundary (TTS starts sooner, which is most of the perceived latency); later ones at sentence
 * ends, so the voice keeps natural prosody. Boundaries never fall inside numbers, dates, times,
 * abbreviations, initials, URLs or e-mail addresses (text/boundary.ts). Deltas may split anywhere:
 * an undecidable tail is held until the next push or flush, so any split of a reply yields the
 * same phrases as one push. Phrases come out trimmed and without markdown (text/speakable.ts).
 */
export class PhraseChunker {
  private readonly options: PhraseChunkerOptions
  private buf = ''
  private emitted = 0

  constructor(options: Partial<PhraseChunkerOptions> = {}) {
    this.options = { ...DEFAULT_PHRASE_CHUNKER, ...options }
    for (const [name, value] of Object.entries(this.options))
      if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} must be an integer ≥ 0, got ${value}`)
  }

  /** Adds a delta; returns the phrases it completed. */
  push(delta: string): string[] {
    this.buf += delta
    return this.drain(false)
  }

  /** End of the reply: returns the remaining phrases and readies the chunker for the next reply. */
  flush(): string[] {
    const out = this.drain(true)
    this.take(this.buf.length, out)
    this.emitted = 0
    return out
  }

  /** Barge-in: forget the unspoken rest of the reply. */
  reset(): void {
    this.buf = ''
    this.emitted = 0
  }

  private drain(eof: boolean): string[] {
    const out: string[] = []
    let i = 0
    while (i < this.buf.length) {
      const at = boundaryAt(this.buf, i, eof, this.clauseOk(i))
      if (at === 'more') break
      if (at === 'no') i++
      else {
        this.take(at, out)
        i = 0
      }
    }
    return out
  }

  private clauseOk(i: number): boolean {
    const phrase = this.buf.slice(0, i)
    if (phrase.trim().length > this.options.maxPhraseChars) return true
    return this.emitted === 0 && (phrase.match(WORD)?.length ?? 0) >= this.options.minFirstWords
  }

  private take(end: number, out: string[]): void {
    const phrase = speakable(this.buf.slice(0, end))
    this.buf = this.buf.slice(end)
    if (!phrase) return
    out.push(phrase)
    this.emitted++
  }
}
