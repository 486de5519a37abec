import { createLogger, loadConfig, loadSecrets, systemClock } from '../../core/index.js'
import { createApp, listen } from '../../api/index.js'
import { migrate, openDatabase } from '../../db/index.js'
import { announceReady, serveParent } from './ipc.js'

/**
 * The real app as `npm start` builds it (bin/ozan.ts): config from the environment (the bench
 * sets OZAN_DATA_DIR to a temp dir, OZAN_LOG_LEVEL, port 0), pino to stdout (the bench points
 * stdout at a file), SQLite file in WAL mode, the system clock. Run as a forked child of a bench.
 */
const config = loadConfig()
const logger = createLogger(config.logLevel)
const db = openDatabase(config.databaseFile)
migrate(db)
const app = createApp({ db, config, secrets: loadSecrets(config), logger, clock: systemClock })
const server = await listen(app, config.host, config.port, logger)
announceReady(server.port)
serveParent(async () => {
  await server.close(1000)
  await app.close()
  db.close()
  logger.flush()
})
