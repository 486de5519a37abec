export { loadConfig, ConfigError, CONFIG_VARIABLES, type Config } from './config.js'
export { loadSecrets, type Secrets } from './secrets.js'
export { createLogger, type Logger } from './logger.js'
export { systemClock, ManualClock, type Clock } from './clock.js'
export { InProcessBus, type EventBus, type DomainEvent, type EventListener } from './bus.js'
export {
  addressRefusal,
  allAllowed,
  allowList,
  assertPublicUrl,
  checkHost,
  destinationRefusal,
  DestinationRefusedError,
  embeddedIpv4,
  ownAddresses,
  pinnedLookup,
  systemResolve,
  type CheckedUrl,
  type GuardOptions,
  type RefusalReason,
  type ResolvedAddress,
  type ResolveHost,
} from './net/ssrf.js'
export { guardedAgent } from './net/guarded-agent.js'
