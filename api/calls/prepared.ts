import type { PreparedCall } from '../../engine/index.js'
import type { GraphRuntime } from '../../engine/graph-runtime/index.js'
import { ApiError } from '../http/errors.js'
import { callSpeech, type VoiceProviders } from '../sessions/voice-providers.js'
import type { SessionCallRecorder } from './session-recorder.js'

/**
 * The call the engine runs, once its record opens: the recorder follows the runtime's state, and
 * a row that is no longer waiting (a pending call failed or taken meanwhile) refuses it.
 */
export function openPrepared(
  o: { agent: PreparedCall['agent']; runtime: GraphRuntime; voice: VoiceProviders; recorder: SessionCallRecorder },
  noLongerWaiting: string,
): PreparedCall {
  const { agent, runtime, voice, recorder } = o
  recorder.stateFrom(() => runtime.state)
  if (!recorder.open()) throw new ApiError('session_ended', noLongerWaiting)
  return { agent, runtime, ...callSpeech(voice), recorder }
}
