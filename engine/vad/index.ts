import { EnergyVadModel, type EnergyVadOptions } from './energy.js'
import { defaultModelPath, SileroModel } from './silero.js'
import type { VadModel } from './types.js'

export { VAD_WINDOW_MS, VAD_WINDOW_SAMPLES, vadWindowSamples, type VadModel, type VadStream } from './types.js'
export { SileroModel, defaultModelPath, DEFAULT_SILENCE_GATE_DBFS } from './silero.js'
export { EnergyVad, EnergyVadModel, DEFAULT_ENERGY_VAD, type EnergyVadOptions } from './energy.js'
export {
  SpeechDetector,
  Windower,
  DEFAULT_SPEECH_DETECTOR,
  type SpeechDetectorOptions,
  type SpeechEvent,
  type SpeechState,
  type TimedWindow,
} from './detector.js'

export interface VadLogger {
  warn(obj: object, msg: string): void
}

export interface LoadVadOptions {
  modelPath?: string
  /** Silero's silence gate in dBFS; null runs the model on every window (silero.ts says why). */
  silenceGateDbfs?: number | null
  logger?: VadLogger
  energy?: Partial<EnergyVadOptions>
}

/** Silero when its model loads; otherwise the energy detector, so calls still work (less well). */
export async function loadVad(options: LoadVadOptions = {}): Promise<VadModel> {
  let modelPath = options.modelPath
  try {
    modelPath ??= defaultModelPath()
    return await SileroModel.load(modelPath, options.silenceGateDbfs === undefined ? {} : { silenceGateDbfs: options.silenceGateDbfs })
  } catch (err) {
    options.logger?.warn(
      { err: err instanceof Error ? err.message : String(err), modelPath },
      'Silero VAD model could not be loaded; falling back to the energy VAD',
    )
    return new EnergyVadModel(options.energy)
  }
}
export { BoundaryRefiner, DEFAULT_REFINER, type RefinerOptions } from './refine.js'
