/**
 * The engine's one internal audio format: 16-bit signed little-endian PCM, mono, 16 kHz, held as
 * Int16Array. Client audio arrives in it (docs/protocol.md), the VAD and STT read it, TTS output is
 * converted into it, and it is what the client receives. Frames of 20 ms pace the playout.
 */
export const SAMPLE_RATE = 16_000
export const FRAME_MS = 20
export const FRAME_SAMPLES = (SAMPLE_RATE * FRAME_MS) / 1000

/** Milliseconds of audio in `samples` samples at SAMPLE_RATE. */
export const samplesToMs = (samples: number): number => (samples * 1000) / SAMPLE_RATE
