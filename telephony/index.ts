// Telephony's public surface (issue #21): the SIP service of phone calls, trunk address shapes,
// the media of a call.
export { isHost, parseCidr, parseHostPort, sourceList } from './addresses.js'
export type { PhoneCallStart } from './calls/types.js'
export type { DialProgress, DialRequest } from './outbound/dial.js'
export { InlineMediaIo, type MediaIo, openCallMedia, RtpPortPool, WorkerMediaIo } from './media/index.js'
export type { CallMedia, PhoneSignals, PhoneTransport } from './media/types.js'
export { defaultPublicAddress, type TelephonyConfig, type TelephonyDeps, TelephonyService } from './service.js'
