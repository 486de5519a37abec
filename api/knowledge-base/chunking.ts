/**
 * Cuts a document's text into overlapping chunks, the unit that search ranks and returns.
 *
 * About 1,000 characters (~200 words, ~250 LLM tokens) per chunk: small enough that a hit is about
 * one thing and that top_k of them fit a prompt, large enough to carry a paragraph's context.
 * Consecutive chunks share about 150 characters, so a sentence cut at a boundary is whole in one of
 * them. A chunk ends at the last paragraph break, else sentence end, else space found in the second
 * half of its window; only a run of 500+ characters without a space is cut mid-word.
 */
export interface ChunkingOptions {
  /** Longest chunk, in characters (UTF-16 code units). */
  maxChars: number
  /** Characters the next chunk repeats from the end of this one (at most half of maxChars). */
  overlapChars: number
}

export const DEFAULT_CHUNKING: ChunkingOptions = { maxChars: 1000, overlapChars: 150 }

export interface Chunk {
  index: number
  text: string
  /** Offsets of the chunk in the text it was cut from: [start, end). */
  start: number
  end: number
}

const SENTENCE_END = /[.!?…:;](?=\s)/g

/** The best cut in text[from, to): after a paragraph break, a sentence end or a space; else `to`. */
function cutPoint(text: string, from: number, to: number): number {
  const window = text.slice(from, to)
  const paragraph = window.lastIndexOf('\n\n')
  if (paragraph >= 0) return from + paragraph + 2
  let sentence = -1
  for (const m of window.matchAll(SENTENCE_END)) sentence = m.index + 1
  if (sentence >= 0) return from + sentence
  const space = Math.max(window.lastIndexOf(' '), window.lastIndexOf('\n'))
  return space >= 0 ? from + space + 1 : to
}

/** The first word start at or after `at` (a chunk never begins mid-word when it can help it). */
function wordStart(text: string, at: number, limit: number): number {
  if (at === 0 || /\s/.test(text[at - 1]!)) return at
  for (let i = at; i < limit; i++) if (/\s/.test(text[i]!)) return i + 1
  return at
}

export function chunkText(text: string, options: Partial<ChunkingOptions> = {}): Chunk[] {
  const { maxChars, overlapChars } = { ...DEFAULT_CHUNKING, ...options }
  if (!(maxChars >= 2) || !(overlapChars >= 0) || overlapChars > maxChars / 2) throw new RangeError('need maxChars ≥ 2 and 0 ≤ overlapChars ≤ maxChars / 2')
  const chunks: Chunk[] = []
  let start = 0
  while (start < text.length) {
    let end = Math.min(start + maxChars, text.length)
    if (end < text.length) end = cutPoint(text, start + Math.floor(maxChars / 2), end)
    const piece = text.slice(start, end)
    const lead = piece.length - piece.trimStart().length
    const body = piece.trim()
    if (body) chunks.push({ index: chunks.length, text: body, start: start + lead, end: start + lead + body.length })
    if (end >= text.length) break
    // Step back by the overlap to a word start, but always move forward.
    const back = wordStart(text, Math.max(end - overlapChars, start + 1), end)
    start = back > start ? back : end
  }
  return chunks
}
