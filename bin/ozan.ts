import { ConfigError, createLogger, loadConfig, loadSecrets, systemClock } from '../core/index.js'
import { migrate, MigrationError, openDatabase } from '../db/index.js'
import { createApp, listen, startEngine } from '../api/index.js'

/** `npm start`: the shell on the embedded default (SQLite under OZAN_DATA_DIR, no keys needed). */
async function main(): Promise<void> {
  let config
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`ozan: ${err.message}`)
      process.exit(78) // EX_CONFIG
    }
    throw err
  }
  const logger = createLogger(config.logLevel)
  const secrets = loadSecrets(config)
  const db = openDatabase(config.databaseFile)
  try {
    const applied = migrate(db)
    if (applied.length) logger.info({ applied }, 'migrations applied')
  } catch (err) {
    if (err instanceof MigrationError) {
      console.error(`ozan: ${err.message}`)
      db.close()
      process.exit(1)
    }
    throw err
  }
  const app = createApp({ db, config, secrets, logger, clock: systemClock })
  // No live call survives a restart: web sessions a crash left active are marked failed.
  const abandoned = app.services.repos.sessions.abandonLive(systemClock.now())
  if (abandoned) logger.warn({ sessions: abandoned }, 'live sessions left active by the last run marked failed')
  const server = await listen(app, config.host, config.port, logger)
  let engine
  try {
    engine = await startEngine({ services: app.services, config, logger })
  } catch (err) {
    console.error(`ozan: the call engine cannot listen on ${config.engineHost}:${config.enginePort}: ${(err as Error).message}`)
    await server.close(0)
    await app.close()
    db.close()
    process.exit(1)
  }
  // With OZAN_PORT=0 the OS picks the port; show the one actually bound.
  const base = config.port === 0 ? config.publicUrl.replace(/:0$/, `:${server.port}`) : config.publicUrl
  logger.info({ port: server.port, data_dir: config.dataDir }, 'ozan is up')
  process.stdout.write(
    `\nOzan is running.\n  API:       ${base}/api/v1\n  OpenAPI:   ${base}/api/v1/openapi.json\n  Reference: ${base}/docs\n  Engine:    ${app.services.webCalls.wsUrl()} (${engine.kind})\n  Data:      ${config.databaseFile}\n\n`,
  )

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'shutting down')
    // Live calls end first (server_shutdown, recorded), then the API drains.
    await engine.close()
    await server.close(config.shutdownTimeoutMs)
    await app.close()
    db.close()
    logger.info('stopped')
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

main().catch((err: unknown) => {
  console.error('ozan: failed to start:', err instanceof Error ? err.message : err)
  process.exit(1)
})
