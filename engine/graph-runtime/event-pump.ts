/**
 * Runs `body`, which reports events through `emit`, and yields them in order as they come: the
 * bridge between the runtime's step functions (plain async code that calls `emit`) and the event
 * stream its callers iterate. The queue is unbounded on purpose: a turn emits at most a few events
 * per step, and the runtime caps a turn's steps (MAX_STEPS_PER_TURN).
 *
 * `events` returns what `body` threw (null when it finished); `settled` resolves once `body` has
 * finished either way, so a caller can wait for it to stop touching shared state.
 */
export function pumpEvents<E>(body: (emit: (event: E) => void) => Promise<void>): { events: AsyncGenerator<E, unknown>; settled: Promise<void> } {
  const queue: E[] = []
  let wake: (() => void) | null = null
  let done = false
  let failure: unknown = null
  const emit = (event: E) => {
    queue.push(event)
    wake?.()
  }
  const settled = body(emit)
    .catch((err: unknown) => {
      failure = err
    })
    .finally(() => {
      done = true
      wake?.()
    })
  async function* events(): AsyncGenerator<E, unknown> {
    for (;;) {
      while (queue.length) yield queue.shift()!
      if (done) return failure
      await new Promise<void>((r) => (wake = r))
      wake = null
    }
  }
  return { events: events(), settled }
}
