export { CallSession, type CallLimits, type CallSessionDeps } from './call-session.js'
export { MemoryRecorder, type CallRecorder, type CallEndReason, type TurnMetricsRecord } from './recorder.js'
export { Generation, FixedLine, type ReplySource } from './generation.js'
export { BoundedQueue } from './queue.js'
