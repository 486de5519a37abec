export { loadConfig, ConfigError, CONFIG_VARIABLES, type Config } from './config.js'
export { loadSecrets, type Secrets } from './secrets.js'
export { createLogger, type Logger } from './logger.js'
export { systemClock, ManualClock, type Clock } from './clock.js'
