// The SIP user agent's public surface (sip/README.md): each RFC layer in its own folder.
export * from './auth/index.js'
export * from './dialog/index.js'
export * from './message/index.js'
export * from './rtp/index.js'
export * from './sdp/index.js'
export * from './transaction/index.js'
export * from './transport/index.js'
