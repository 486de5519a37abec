/**
 * A barge-in cut the last reply: the caller heard only `heard` (a prefix of what the reply's lines
 * say, spaces aside). The history keeps just those words, in place, so the model knows what was
 * said; a reply whose turn was aborted left no lines, so the heard words are added.
 */
export function keepHeard(history: { role: 'user' | 'assistant'; text: string }[], heard: string): void {
  let from = history.length
  while (from > 0 && history[from - 1]!.role === 'assistant') from--
  const norm = (t: string) => t.replace(/\s+/g, ' ').trim()
  let rest = norm(heard)
  const kept: typeof history = []
  for (const line of history.slice(from)) {
    if (!rest) break
    const text = norm(line.text)
    if (rest.startsWith(text)) {
      kept.push(line)
      rest = rest.slice(text.length).trim()
    } else {
      kept.push({ role: 'assistant', text: rest })
      rest = ''
    }
  }
  if (rest) kept.push({ role: 'assistant', text: rest })
  history.splice(from, history.length - from, ...kept)
}
