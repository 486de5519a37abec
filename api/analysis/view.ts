/**
 * How a session's analysis reads: the `analysis` field of the session and call details, and the
 * data of `session.analysis.completed` (docs/analysis.md, docs/webhooks.md).
 */
import { z } from 'zod'
import type { AnalysisJobRow, SessionRow } from '../../db/index.js'
import { analysisRequested } from '../../engine/graph-runtime/index.js'
import type { AnalysisResult } from './prompt.js'
import { analysisOf } from './agent-config.js'

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

const SuccessEvaluation = z
  .object({
    rubric: z.enum(['pass_fail', 'score_1_5']),
    success: z.boolean().nullable().describe('pass_fail: whether the criteria were met; null under score_1_5.'),
    score: z.number().int().min(1).max(5).nullable().describe('score_1_5: 1 (not met) to 5 (fully met); null under pass_fail.'),
    reason: z.string(),
  })
  .meta({ id: 'SuccessEvaluation' })

const AnalysisError = z.object({ code: z.string(), message: z.string() })

export const SessionAnalysis = z
  .object({
    status: z
      .enum(['not_requested', 'pending', 'running', 'completed', 'failed', 'skipped'])
      .describe(
        "not_requested: the agent's config has no analysis; pending: queued (or the session is still live); running; completed; failed (after its retries, see error); skipped: nothing was said.",
      ),
    summary: z.string().nullable(),
    success_evaluation: SuccessEvaluation.nullable(),
    structured_data: z.record(z.string(), z.unknown()).nullable().describe("The data extracted, valid against the config's structured_data schema."),
    error: AnalysisError.nullable().describe('Why the analysis failed or was skipped; while pending after a failed attempt, why that attempt failed.'),
    attempts: z.number().int().min(0),
    model: z.string().nullable(),
    completed_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'SessionAnalysis', description: 'Post-call analysis of a session or call (docs/analysis.md).' })

export type SessionAnalysisT = z.output<typeof SessionAnalysis>

type StoredResult = AnalysisResult & { model: string }

const EMPTY = { summary: null, success_evaluation: null, structured_data: null, error: null, attempts: 0, model: null, completed_at: null }

/** The `analysis` field of a session: its job when there is one, else whether one will come. */
export function analysisView(session: Pick<SessionRow, 'status' | 'config'>, job: AnalysisJobRow | undefined): SessionAnalysisT {
  if (!job) {
    // A live session of an agent asking for analysis gets its job when it ends.
    const live = session.status === 'active' || session.status === 'pending'
    return { ...EMPTY, status: live && analysisRequested(analysisOf(session)) ? 'pending' : 'not_requested' }
  }
  return jobView(job)
}

/** What a job holds: its state and, once completed, its result. */
function jobView(job: AnalysisJobRow): SessionAnalysisT {
  const result = job.result === null ? null : (JSON.parse(job.result) as StoredResult)
  return {
    status: job.status,
    summary: result?.summary ?? null,
    success_evaluation: result?.success_evaluation ?? null,
    structured_data: result?.structured_data ?? null,
    error: job.error_code === null || job.status === 'completed' ? null : { code: job.error_code, message: job.error_message ?? '' },
    attempts: job.attempts,
    model: result?.model ?? null,
    completed_at: iso(job.finished_at),
  }
}

/** The data of `session.analysis.completed`, sent once per job when it completed, failed or was skipped. */
export function analysisEvent(job: AnalysisJobRow, session: Pick<SessionRow, 'workflow_id' | 'workflow_version' | 'channel'> | null) {
  const view = jobView(job)
  return {
    session_uuid: job.session_id,
    workflow_uuid: session?.workflow_id ?? null,
    version: session?.workflow_version ?? null,
    channel: session?.channel ?? null,
    status: view.status,
    summary: view.summary,
    success_evaluation: view.success_evaluation,
    structured_data: view.structured_data,
    error: view.error,
  }
}
