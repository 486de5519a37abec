/**
 * What a `dtmf` node may press: the sixteen DTMF keys (RFC 4733 events 0-15), at most
 * MAX_DTMF_KEYS at a time. A rendered template is forgiving about how people write numbers
 * ("+90 (555) 111-22-33" presses 905551112233): spaces, dashes, dots, parentheses and a leading +
 * are dropped; anything else makes the keys invalid rather than pressing a guess.
 */
export const MAX_DTMF_KEYS = 32

const SEPARATORS = /[\s\-.()]/g

/** The keys to press, upper-cased, or null when `text` holds something no key stands for. */
export function dtmfKeys(text: string): string | null {
  const keys = text.replace(SEPARATORS, '').replace(/^\+/, '').toUpperCase()
  return /^[0-9*#A-D]+$/.test(keys) && keys.length <= MAX_DTMF_KEYS ? keys : null
}

/** Why `text` cannot be pressed, for a graph problem or a runtime warning. */
export function dtmfProblem(text: string): string {
  return `"${text.slice(0, 40)}" is not up to ${MAX_DTMF_KEYS} DTMF keys (0-9, *, #, A-D; spaces, dashes, dots, parentheses and a leading + are ignored)`
}
