/**
 * The call engine's public face: `createEngine` composes it from its dependencies (engine.ts); the
 * call itself (controller, adapters, transports) is in pipeline/call, re-exported here for whoever
 * runs calls over another transport.
 */
export { createEngine, turnStrategy, CallRefused, type Engine, type EngineDeps, type PreparedCall } from './engine.js'
export {
  CallSession,
  CallController,
  MemoryTransport,
  MemoryRecorder,
  type CallSessionDeps,
  type CallTransport,
  type TransportInput,
  type CallRecorder,
  type CallEndReason,
  type CallLimits,
  type Command,
  type CallerEvent,
} from './pipeline/call/index.js'
export type { Frame, ControllerFrame, FailureCategory } from './pipeline/frames.js'
export type { LiveCalls } from './calls/index.js'
