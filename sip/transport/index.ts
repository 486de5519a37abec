// Socket adapters of the SIP user agent: UDP and TCP listeners with per-source limits.
export type { ListenerStats, MessageHandler } from './inbound.js'
export { SipListener, type SipListenerOptions } from './listener.js'
export { type Admission, DEFAULT_SOURCE_LIMITS, SourceLimiter, type SourceLimits } from './source-limiter.js'
export { DEFAULT_TCP_LIMITS, type TcpLimits, TcpSipListener, type TcpListenerOptions } from './tcp.js'
export { UdpSipListener, type UdpListenerOptions } from './udp.js'
