import { ConfigError, loadConfig, systemClock } from '../core/index.js'
import { createRepos, migrate, openDatabase } from '../db/index.js'
import { loadPlans, PlansFileError, runPlansCommand } from '../api/entitlements/index.js'

/**
 * `npx tsx bin/ozan-plans.ts <command>`: the operator puts organizations on plans
 * (docs/entitlements.md). It reads the same environment as the server (OZAN_DATA_DIR,
 * OZAN_PLANS_FILE) and may run while the server does: SQLite serialises the writes.
 */
function main(): number {
  let config
  let catalog
  try {
    config = loadConfig()
    catalog = loadPlans(config.plansFile)
  } catch (err) {
    if (err instanceof ConfigError || err instanceof PlansFileError) {
      console.error(`ozan-plans: ${err.message}`)
      return 78 // EX_CONFIG
    }
    throw err
  }
  const db = openDatabase(config.databaseFile)
  try {
    migrate(db)
    const result = runPlansCommand(process.argv.slice(2), { repos: createRepos(db), catalog, clock: systemClock })
    ;(result.code === 0 ? console.log : console.error)(result.out)
    return result.code
  } finally {
    db.close()
  }
}

process.exitCode = main()
