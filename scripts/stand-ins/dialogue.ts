/**
 * The script `npm run stand-ins` plays: caller lines, which the transcription stand-ins give as
 * the transcript of each stretch of caller speech (they recognize nothing), and the chat
 * stand-in's reply to each. Pure: parsing, rotation and lookup; no I/O.
 */

/** One caller line and the agent's scripted answer to it; null: the chat stand-in echoes it. */
export interface Turn {
  caller: string
  reply: string | null
}

/** Said plainly in the replies themselves, so nobody mistakes them for a model's. */
export const DEFAULT_DIALOGUE: readonly Turn[] = [
  {
    caller: 'Hello, is this the stand-in line?',
    reply: 'Yes. I am a scripted stand-in, not a language model, but your voice went through the whole pipeline to reach me.',
  },
  {
    caller: 'Can you book a table for two tomorrow at seven?',
    reply: 'This reply is scripted, so nothing is booked. Each time you speak, the transcription stand-in hears the next line of its script.',
  },
  {
    caller: 'My name is Alex.',
    reply: 'Nice to meet you, Alex. That name came from the script, not from your voice.',
  },
  {
    caller: 'That is all, thank you.',
    reply: 'You are welcome. Hang up whenever you like, or keep talking: the script starts again.',
  },
]

/** Longest line accepted from a script: Deepgram Aura's text limit, so a reply can always be spoken. */
export const MAX_LINE_CHARS = 2000

export class DialogueError extends Error {
  override name = 'DialogueError'
}

/**
 * A script file: `caller: …` lines, each optionally followed by one `agent: …` line (its reply);
 * blank lines and lines starting with `#` are skipped. Throws DialogueError naming the line.
 */
export function parseDialogue(text: string): Turn[] {
  const turns: Turn[] = []
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim()
    if (!line || line.startsWith('#')) continue
    const m = /^(caller|agent)\s*:\s*(.*)$/i.exec(line)
    const where = `line ${i + 1}`
    if (!m) throw new DialogueError(`${where}: expected "caller: …" or "agent: …"`)
    const [, who, said] = m as unknown as [string, string, string]
    if (!said) throw new DialogueError(`${where}: the ${who.toLowerCase()} line is empty`)
    if (said.length > MAX_LINE_CHARS) throw new DialogueError(`${where}: longer than ${MAX_LINE_CHARS} characters`)
    const last = turns.at(-1)
    if (who.toLowerCase() === 'caller') turns.push({ caller: said, reply: null })
    else if (!last) throw new DialogueError(`${where}: an agent line before any caller line`)
    else if (last.reply !== null) throw new DialogueError(`${where}: a second agent line for one caller line`)
    else last.reply = said
  }
  if (!turns.length) throw new DialogueError('no "caller: …" line')
  return turns
}

/** Caller lines given on the command line: no scripted replies, so the chat stand-in echoes them. */
export function callerTurns(lines: readonly string[]): Turn[] {
  return lines.map((caller) => ({ caller, reply: null }))
}

/** Case, punctuation and spacing aside, so a transcript that went through the engine still matches its line. */
export function normalize(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
}

export class Dialogue {
  private readonly replies = new Map<string, string>()
  private readonly counts = new WeakMap<object, number>()

  constructor(readonly turns: readonly Turn[]) {
    if (!turns.length) throw new DialogueError('a dialogue needs at least one caller line')
    for (const t of turns) if (t.reply !== null && !this.replies.has(normalize(t.caller))) this.replies.set(normalize(t.caller), t.reply)
  }

  /**
   * The next caller line for `conversation` (a call's transcription session): its first stretch
   * of speech gets line 1, then line 2 …, round and round. Each conversation counts on its own.
   */
  nextLine(conversation: object): string {
    const n = this.counts.get(conversation) ?? 0
    this.counts.set(conversation, n + 1)
    return this.turns[n % this.turns.length]!.caller
  }

  /**
   * The scripted reply to what the caller said, or null when it is no caller line with a reply
   * (then the chat stand-in echoes it). Looked up by text, not by order: a voice agent sends
   * speculative requests on partial transcripts and drops them, which would skip a queued reply.
   */
  replyTo(userText: string): string | null {
    return this.replies.get(normalize(userText)) ?? null
  }
}
