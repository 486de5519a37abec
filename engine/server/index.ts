export {
  createSocketServer,
  locateUwsBinary,
  DEFAULT_SOCKET_OPTIONS,
  type EngineSocketServer,
  type SocketKind,
  type SocketServerOptions,
  type Conn,
  type SendResult,
  type ConnectionHandler,
  type UpgradeRequest,
  type Authorization,
} from './socket.js'
export * from './protocol.js'
export { AudioWriter, DEFAULT_AUDIO_WRITER, type AudioWriterOptions } from './audio-writer.js'
export { ClientChannel, type ChannelHandlers } from './client-channel.js'
export { createWebCallGate, type WebCall, type WebCallContext, type WebCallGateOptions } from './web-call-gate.js'
export { WebSocketTransport } from './web-socket-transport.js'
