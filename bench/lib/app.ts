import { createLogger, loadConfig, loadSecrets, systemClock } from '../../core/index.js'
import { createApp, listen } from '../../api/index.js'
import { migrate, openDatabase } from '../../db/index.js'

/**
 * The real app as `npm start` builds it (bin/ozan.ts): config from the environment (the bench
 * sets OZAN_DATA_DIR to a temp dir, OZAN_LOG_LEVEL, port 0), pino to stdout (the bench points
 * stdout at a file), SQLite file in WAL mode, the system clock; listening. `close()` undoes it.
 */
export async function startBenchApp() {
  const config = loadConfig()
  const logger = createLogger(config.logLevel)
  const db = openDatabase(config.databaseFile)
  migrate(db)
  const app = createApp({ db, config, secrets: loadSecrets(config), logger, clock: systemClock })
  const server = await listen(app, config.host, config.port, logger)
  const close = async () => {
    await server.close(1000)
    await app.close()
    db.close()
    logger.flush()
  }
  return { config, logger, app, server, close }
}
