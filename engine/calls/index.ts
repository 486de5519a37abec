export {
  WebCallTokens,
  WebCallTokenError,
  DEFAULT_ENGINE_AUDIENCE,
  MAX_WEB_CALL_TTL_S,
  MAX_VARIABLES_BYTES,
  type WebCallClaims,
  type MintRequest,
  type TokenRefusal,
  type WebCallTokensOptions,
} from './web-token.js'
export { InProcessLiveCalls, type LiveCalls } from './live-calls.js'
export { InProcessCallControlBus, type CallControl, type CallControlBus } from './control-bus.js'
