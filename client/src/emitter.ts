/** A tiny typed event emitter: `on` returns its own unsubscribe; a listener that throws cannot break the call. */
export class Emitter<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<(payload: never) => void>>()

  on<K extends keyof Events>(event: K, listener: (payload: Events[K]) => void): () => void {
    let set = this.listeners.get(event)
    if (!set) this.listeners.set(event, (set = new Set()))
    set.add(listener as (payload: never) => void)
    return () => this.off(event, listener)
  }

  off<K extends keyof Events>(event: K, listener: (payload: Events[K]) => void): void {
    this.listeners.get(event)?.delete(listener as (payload: never) => void)
  }

  protected emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        ;(listener as (payload: Events[K]) => void)(payload)
      } catch (err) {
        // Reported as uncaught (the page's own bug), after the library has finished its step.
        setTimeout(() => {
          throw err
        })
      }
    }
  }
}
