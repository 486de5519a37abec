import { ConfigError, createLogger, loadConfig, loadSecrets, systemClock } from '../core/index.js'
import { migrate, MigrationError, openDatabase } from '../db/index.js'

/**
 * `npm start`: the shell (REST API) and the call engine in one process, on the embedded default
 * (SQLite under OZAN_DATA_DIR, no keys needed). `ozan api` / `ozan engine` (npm run start:api,
 * start:engine) run one of them; see docs/architecture.md for what the in-process bus then limits.
 * `ozan engine` builds the services alone: no Koa app, no API port.
 */
type Role = 'all' | 'api' | 'engine'

/** Beyond OZAN_SHUTDOWN_TIMEOUT_MS, for the engine's recordings, mail flush and database close. */
const SHUTDOWN_GRACE_MS = 5_000

async function main(): Promise<void> {
  const arg = process.argv[2] ?? 'all'
  // `ozan mcp`: an MCP server on stdio bridged to a running server's /mcp with OZAN_API_KEY
  // (docs/mcp.md). It opens no database and writes nothing to stdout but the protocol.
  // The bridge loads only mcp/ (the API's modules take seconds of CPU to load, on every launch of
  // an MCP client), so the rest is imported below it.
  if (arg === 'mcp') return (await import('../mcp/index.js')).runStdioBridgeFromEnv()
  const { createApp, createServices, listen, reportAbandonedCalls, startEngine, startTelephony } = await import('../api/index.js')
  if (arg !== 'all' && arg !== 'api' && arg !== 'engine') {
    console.error(`ozan: unknown command "${arg}" (use: all, api, engine, mcp)`)
    process.exit(64) // EX_USAGE
  }
  const role: Role = arg
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
  const deps = { db, config, secrets, logger, clock: systemClock }
  const app = role === 'engine' ? null : createApp(deps)
  const { services, close: closeServices } = app ?? createServices(deps)
  const now = systemClock.now()
  // No live call survives a restart: web sessions a crash left active are marked failed. Only a
  // process that runs calls may say so (an API process starting beside a live engine must not).
  if (role !== 'api') {
    const abandoned = services.repos.sessions.abandonLive(now)
    if (abandoned.length) logger.warn({ sessions: abandoned.length }, 'live sessions left active by the last run marked failed')
    reportAbandonedCalls(services.repos, services.bus, abandoned)
  }
  const expired = services.repos.sessions.expirePending(now)
  if (expired) logger.info({ sessions: expired }, 'calls never connected before their token expired marked failed')
  const server = app ? await listen(app, config.host, config.port, logger) : null
  let engine = null
  if (role !== 'api') {
    try {
      engine = await startEngine({ services, config, logger })
    } catch (err) {
      console.error(`ozan: the call engine cannot listen on ${config.engineHost}:${config.enginePort}: ${(err as Error).message}`)
      await server?.close(0)
      await closeServices()
      db.close()
      process.exit(1)
    }
  }
  // Phone calls: the SIP listener beside the engine. A port that cannot be bound (another SIP
  // server on 5060) leaves the platform up without phone calls, and says so.
  let telephony = null
  if (engine) {
    try {
      telephony = await startTelephony({ services, config, engine, logger })
    } catch (err) {
      logger.error({ err: (err as Error).message, host: config.sip.host, port: config.sip.port }, 'SIP listener not started: phone calls are off')
      console.error(
        `ozan: the SIP listener cannot listen on ${config.sip.host}:${config.sip.port} (${(err as Error).message}); phone calls are off (set OZAN_SIP_PORT, or OZAN_SIP=off)`,
      )
    }
  }
  logger.info({ role, port: server?.port ?? null, data_dir: config.dataDir }, 'ozan is up')
  const lines = ['', role === 'all' ? 'Ozan is running.' : `Ozan is running (${role} only).`]
  if (server) {
    // With OZAN_PORT=0 the OS picks the port; show the one actually bound.
    const base = config.port === 0 ? config.publicUrl.replace(/:0$/, `:${server.port}`) : config.publicUrl
    lines.push(
      `  Call page: ${base}/call (talk to an agent from the browser)`,
      `  API:       ${base}/api/v1`,
      `  OpenAPI:   ${base}/api/v1/openapi.json`,
      `  Reference: ${base}/docs`,
    )
  }
  if (engine) lines.push(`  Engine:    ${services.webCalls.wsUrl()} (${engine.kind})`)
  if (telephony)
    lines.push(
      `  SIP:       sip:${telephony.publicAddress}:${telephony.port} (${config.sip.transports.join(', ')}; RTP ${config.sip.rtpPortMin}-${config.sip.rtpPortMax})`,
    )
  lines.push(`  Data:      ${config.databaseFile}`, '', '')
  process.stdout.write(lines.join('\n'))

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'shutting down')
    // A backstop: should a step below hang (a recording, the mail flush), the process still exits
    // rather than linger under a supervisor that already sent SIGTERM.
    setTimeout(() => {
      logger.error({ signal }, 'shutdown did not finish in time; exiting')
      process.exit(1)
    }, config.shutdownTimeoutMs + SHUTDOWN_GRACE_MS).unref()
    // Both at once: the API stops accepting new connections at once (answering what is in flight
    // with Connection: close) while live calls end with server_shutdown and are recorded.
    // Live calls end with server_shutdown (phone calls hang up with BYE as they do), then the SIP
    // listener closes.
    await Promise.all([engine?.close().then(() => telephony?.close()), server?.close(config.shutdownTimeoutMs)])
    await closeServices()
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
