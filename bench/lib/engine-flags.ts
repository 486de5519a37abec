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
 *
 * 512 MB, not 128 (2026-11-28): the limit stays at this floor while the live heap is under it, and
 * V8 starts marking when the heap nears it. At 175 phone calls (live heap ~80 MB after a full GC,
 * ~1 MB/s promoted) a 128 MB floor meant a full GC every 6–10 s; its ~100 ms of marking on the
 * engine's one core held every call's audio back for that long, which alone fails a step. At 512
 * MB only external-memory pressure (64 MB of ArrayBuffers since the last one) starts one: every
 * 25–33 s (sip-calls, --trace-incremental-marking). RSS at 175 calls was the same (~400 MB).
 * The cost is memory the engine keeps instead of returning while idle: garbage up to the floor
 * under a long load, collected by the next full GC.
 */
export const ENGINE_NODE_FLAGS = ['--no-memory-reducer', '--initial-old-space-size=512'] as const
