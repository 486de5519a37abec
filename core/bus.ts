/**
 * Domain events (`member.invited`, `workflow.published`, `session.completed`, …) leave the service
 * that caused them through this bus. In one process it is a synchronous fan-out; a Redis-backed
 * bus with the same interface joins shell and engine processes later. Webhook delivery subscribes.
 */
export interface DomainEvent {
  type: string
  organizationId: string
  environmentId: string | null
  data: Record<string, unknown>
  occurredAt: number
}

export type EventListener = (event: DomainEvent) => void

export interface EventBus {
  publish(event: DomainEvent): void
  /** Returns a function that removes the listener. */
  subscribe(listener: EventListener): () => void
}

export class InProcessBus implements EventBus {
  private readonly listeners = new Set<EventListener>()

  constructor(private readonly onListenerError: (err: unknown, event: DomainEvent) => void = () => {}) {}

  publish(event: DomainEvent): void {
    // A failing listener must not fail the request that published, nor starve the others.
    for (const listener of this.listeners) {
      try {
        listener(event)
      } catch (err) {
        this.onListenerError(err, event)
      }
    }
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}
