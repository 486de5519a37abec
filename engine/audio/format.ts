/**
 * The engine's one internal audio format: 16-bit signed little-endian PCM, mono, 16 kHz, held as
 * Int16Array. Client audio arrives in it (docs/protocol.md), the VAD and STT read it, TTS output is
 * converted into it, and it is what the client receives. Frames of 20 ms pace the playout.
 */
export const SAMPLE_RATE = 16_000
/**
 * The rates a call's audio path (VAD and STT) runs at: the engine's 16 kHz, and a phone line's own
 * 8 kHz, taken as the line carries it (engine/vad/types.ts says why).
 */
export type SpeechRate = 8000 | 16000
export const isSpeechRate = (rate: number): rate is SpeechRate => rate === 8000 || rate === 16000
export const FRAME_MS = 20
export const FRAME_SAMPLES = (SAMPLE_RATE * FRAME_MS) / 1000

/** Milliseconds of audio in `samples` samples at SAMPLE_RATE. */
export const samplesToMs = (samples: number): number => (samples * 1000) / SAMPLE_RATE
