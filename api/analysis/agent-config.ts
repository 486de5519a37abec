import type { SessionRow } from '../../db/index.js'
import { AgentConfig, type AnalysisConfig } from '../../engine/graph-runtime/index.js'

/**
 * A session's own agent config (the snapshot it ran with), or undefined when the stored config no
 * longer parses: such a session is not analysed, and its analysis reads `not_requested`.
 */
export function sessionConfig(row: Pick<SessionRow, 'config'>): AgentConfig | undefined {
  try {
    const parsed = AgentConfig.safeParse(JSON.parse(row.config))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/** The analysis block of a session's agent config. */
export function analysisOf(row: Pick<SessionRow, 'config'>): AnalysisConfig | undefined {
  return sessionConfig(row)?.analysis
}
