// Where a call's RTP meets the network (issue #21): the media worker (default) or the main thread's sockets.
export { ByteRing } from './byte-ring.js'
export { Doorbell } from './doorbell.js'
export { InlineMediaIo } from './inline-io.js'
export { POLL_MS } from './protocol.js'
export { SendSchedule, SLOT_BYTES } from './send-schedule.js'
export type { Channel, EndpointHandlers, MediaEndpoint, MediaIo } from './types.js'
export { DEFAULT_WORKER_MEDIA_IO, WorkerMediaIo, type WorkerMediaIoOptions } from './worker-io.js'
