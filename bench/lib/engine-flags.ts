/**
 * The V8 flags the engine process runs with: `npm start` and `npm run start:engine` pass them
 * (package.json, checked by test/bench/engine-flags.test.ts), and the voice bench's engine gets the
 * same ones.
 *
 * Why: after a quiet spell V8's memory reducer shrinks the old generation's limit to just above
 * the live heap (~40 MB), so once calls pick up, a full mark-compact ran every 0.5–1 s with 10–30 ms
 * pauses, and every call's audio stalled with it (bench: 25 calls after the 4-minute latency phase,
 * engine loop lag p99 23–35 ms, jitter p99 28–63 ms). Without the reducer and with a 128 MB initial
 * old space: one full GC in the 10 s window, lag p99 3.3 ms, jitter p99 4.9 ms, engine CPU 51 → 44%.
 * The cost is memory the engine keeps instead of returning while idle (~100 MB of RSS).
 */
export const ENGINE_NODE_FLAGS = ['--no-memory-reducer', '--initial-old-space-size=128'] as const
