export { SAMPLE_RATE, FRAME_MS, FRAME_SAMPLES, samplesToMs } from './format.js'
export { pcmFromBytes, pcmToBytes, pcmTransient, pcmView, toFloat32, rms } from './pcm.js'
export { parseWav, encodeWav, downmix, WavError, type Wav, type WavErrorCode } from './wav.js'
export { Resampler, resample } from './resample.js'
