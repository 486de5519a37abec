/** How a stored session reads in API answers (the shapes schema.ts names): a list row, the detail, an event. */
import type { SessionEventRow, SessionRow } from '../../db/index.js'
import type { RuntimeState } from '../../engine/graph-runtime/index.js'
import type { SessionAnalysisT } from '../analysis/index.js'

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

export function sessionSummary(r: SessionRow) {
  return {
    id: r.id,
    workflow_id: r.workflow_id,
    version: r.workflow_version,
    channel: r.channel,
    status: r.status,
    disposition: r.disposition,
    turn_count: r.turn_count,
    started_at: iso(r.started_at)!,
    ended_at: iso(r.ended_at),
  }
}

/** The summary, plus where the runtime stands, what it heard and said, and its post-call analysis. */
export function sessionDetail(r: SessionRow, analysis: SessionAnalysisT) {
  const state = JSON.parse(r.state) as RuntimeState
  return {
    ...sessionSummary(r),
    node_id: state.nodeId,
    variables: state.variables,
    transcript: state.history,
    usage: { prompt_tokens: r.prompt_tokens, completion_tokens: r.completion_tokens },
    error_code: r.error_code,
    analysis,
  }
}

export function sessionEvent(e: SessionEventRow) {
  return { seq: e.seq, kind: e.kind, data: JSON.parse(e.data) as Record<string, unknown>, created_at: iso(e.created_at)! }
}
