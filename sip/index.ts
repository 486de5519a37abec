// The SIP user agent's public surface. Today: the RFC 3261 message layer (sip/message/).
export * from './message/index.js'
