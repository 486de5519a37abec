/**
 * The events side of an SttStream: a bounded channel read by one async iterator, which a provider's
 * socket or request callbacks feed without ever waiting. When `capacity` events wait unread, the
 * oldest waiting partial is dropped: a later partial or the final supersedes it. Finals and errors
 * are never dropped (each is a whole utterance of the user; the channel can exceed capacity only by
 * those), so a slow consumer loses only interim text. A consumer's `break` means nobody reads any
 * more: the channel stops queueing.
 */
import { Channel } from '../../channel.js'
import type { SttEvent } from './types.js'

export const DEFAULT_EVENT_CAPACITY = 256

/** Feed it with offer() (never waits), end it with close(); `dropped` counts the partials dropped. */
export function sttEventChannel(capacity = DEFAULT_EVENT_CAPACITY): Channel<SttEvent> {
  return new Channel<SttEvent>({ capacity, overflow: 'drop-oldest', droppable: (e) => e.type === 'partial', name: 'SttStream.events' })
}
