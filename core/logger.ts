import { pino, type Logger, type DestinationStream } from 'pino'

export type { Logger }

/**
 * Paths redacted from every log line. Request logging only ever records method, path and status,
 * but any object that reaches a log call passes through this list as a second line of defence.
 */
const REDACT = [
  'password',
  'new_password',
  'token',
  'refresh_token',
  'access_token',
  'key',
  'secret',
  'authorization',
  '*.password',
  '*.token',
  '*.refresh_token',
  '*.access_token',
  '*.secret',
  '*.key',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
]

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: { service: 'ozan' }, redact: { paths: REDACT, censor: '[redacted]' } }
  return destination ? pino(options, destination) : pino(options)
}
