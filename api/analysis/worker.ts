/**
 * The post-call analysis worker. It listens for `session.completed` (text sessions, calls, and
 * calls a crash left live alike), queues a job for each session whose agent asked for an analysis
 * (a row: the call never waits on it, and a restart loses nothing), and works the queue with
 * bounded concurrency: one LLM request per attempt, retries with exponential backoff up to
 * maxAttempts, then `failed` with the reason. A job a crash left `running` is pending again at the
 * next start. Each job's end is stored and `session.analysis.completed` published in one
 * transaction, so the event leaves through the webhook outbox exactly once.
 */
import type { Clock, DomainEvent, EventBus, Logger } from '../../core/index.js'
import type { AnalysisJobRow, Repos, SessionRow } from '../../db/index.js'
import { analysisRequested } from '../../engine/graph-runtime/index.js'
import { DEFAULT_OPENAI_LLM_OPTIONS, isProviderError } from '../../engine/pipeline/providers/llm/index.js'
import { analysisOf, sessionConfig } from './agent-config.js'
import type { AnalysisLlmFor } from './llm.js'
import { type AnalysisResult, buildRequest, checkAnswer, type TranscriptLine } from './prompt.js'
import { QueuePump } from '../queue/index.js'
import { analysisEvent } from './view.js'

export interface AnalysisWorkerOptions {
  /** Jobs run at once (each is one LLM request at a time). */
  concurrency: number
  /** Attempts in all, the first included; then the job is failed. */
  maxAttempts: number
  /** Backoff before retry n: a random wait in [b·2^(n-1)/2, b·2^(n-1)], at most retryMaxMs. */
  retryBaseMs: number
  retryMaxMs: number
  /** How often the queue is looked at when nothing woke the worker (retries come due this way). */
  pollMs: number
}

export const DEFAULT_ANALYSIS_OPTIONS: AnalysisWorkerOptions = { concurrency: 2, maxAttempts: 4, retryBaseMs: 5000, retryMaxMs: 5 * 60_000, pollMs: 1000 }

export interface AnalysisWorkerDeps {
  repos: Repos
  bus: EventBus
  clock: Clock
  logger: Logger
  llmFor: AnalysisLlmFor
  /** Prices and debits a finished analysis's tokens (api/billing; a no-op with billing off). */
  meter?: { settleAnalysis(row: SessionRow, usage: { prompt_tokens: number; completion_tokens: number }): unknown }
  options?: Partial<AnalysisWorkerOptions>
}

type JobEnd =
  | { status: 'completed'; result: AnalysisResult & { model: string; usage: { prompt_tokens: number; completion_tokens: number } } }
  | { status: 'failed' | 'skipped'; error: { code: string; message: string } }
  | { status: 'retry'; error: { code: string; message: string }; retryAfterMs?: number }

export class AnalysisWorker {
  readonly options: AnalysisWorkerOptions
  private readonly pump: QueuePump
  private unsubscribe: (() => void) | null = null

  constructor(private readonly deps: AnalysisWorkerDeps) {
    this.options = { ...DEFAULT_ANALYSIS_OPTIONS, ...deps.options }
    const o = this.options
    if (!(o.concurrency >= 1 && o.maxAttempts >= 1 && o.retryBaseMs >= 0 && o.retryMaxMs >= o.retryBaseMs && o.pollMs >= 10))
      throw new Error(`AnalysisWorker: invalid options ${JSON.stringify(o)}`)
    this.pump = new QueuePump(() => this.pass(), o.pollMs)
  }

  /** Queues analyses of sessions that end from now on, resumes interrupted jobs and starts working. */
  start(): void {
    this.unsubscribe = this.deps.bus.subscribe((event) => this.onEvent(event))
    const resumed = this.deps.repos.analysis.resumeRunning(this.deps.clock.now())
    if (resumed) this.deps.logger.warn({ jobs: resumed }, 'analysis jobs left running by the last run are pending again')
    this.pump.start()
  }

  /** Looks at the queue soon (coalesced): after an enqueue, a finished job, or a clock move in tests. */
  wake(): void {
    this.pump.wake()
  }

  /** Resolves once no job is in flight (tests; a job may be due again later). */
  settled(): Promise<void> {
    return this.pump.settled()
  }

  /** Stops taking jobs and aborts those in flight; they stay `running` and resume at the next start. */
  async close(): Promise<void> {
    this.unsubscribe?.()
    await this.pump.close()
  }

  private onEvent(event: DomainEvent): void {
    if (event.type !== 'session.completed' || event.environmentId === null) return
    const id = event.data['session_uuid']
    if (typeof id !== 'string') return
    const row = this.deps.repos.sessions.get({ organizationId: event.organizationId, environmentId: event.environmentId }, id)
    if (!row || !analysisRequested(analysisOf(row))) return
    const job = { session_id: row.id, organization_id: row.organization_id, environment_id: row.environment_id }
    if (this.deps.repos.analysis.enqueue(job, this.deps.clock.now())) this.wake()
  }

  private pass(): void {
    const free = this.options.concurrency - this.pump.running
    if (free <= 0 || this.pump.stopped) return
    const now = this.deps.clock.now()
    for (const job of this.deps.repos.analysis.due(now, free)) {
      if (!this.deps.repos.analysis.claim(job.session_id, now)) continue
      this.pump.track(this.run({ ...job, attempts: job.attempts + 1 }), (err) =>
        this.deps.logger.error({ err, session_id: job.session_id }, 'analysis job failed unexpectedly'),
      )
    }
  }

  private async run(job: AnalysisJobRow): Promise<void> {
    let end: JobEnd
    try {
      end = await this.attempt(job)
    } catch (err) {
      // A bug, not the provider: the job ends failed rather than staying `running` until a restart.
      this.deps.logger.error({ err, session_id: job.session_id }, 'analysis attempt threw')
      end = { status: 'failed', error: { code: 'internal_error', message: 'The analysis failed unexpectedly.' } }
    }
    if (this.pump.signal.aborted) return
    const now = this.deps.clock.now()
    const { repos } = this.deps
    if (end.status === 'retry' && job.attempts < this.options.maxAttempts) {
      repos.analysis.retryAt(job.session_id, now + this.backoff(job.attempts, end.retryAfterMs), end.error, now)
      this.deps.logger.warn({ session_id: job.session_id, attempt: job.attempts, code: end.error.code }, 'analysis attempt failed; retrying later')
      return
    }
    const final = end.status === 'retry' ? { status: 'failed' as const, error: end.error } : end
    const stored =
      final.status === 'completed'
        ? { status: final.status, result: JSON.stringify(final.result), error: null }
        : { status: final.status, result: null, error: final.error }
    repos.transaction(() => {
      if (!repos.analysis.finish(job.session_id, stored, now)) return
      const row = repos.sessions.get({ organizationId: job.organization_id, environmentId: job.environment_id }, job.session_id)
      const finished = repos.analysis.get(job.session_id)!
      if (row && final.status === 'completed') this.deps.meter?.settleAnalysis(row, final.result.usage)
      // In the transaction: the webhook outbox writes its rows inside publish(), so the job's end and its event commit together.
      this.deps.bus.publish({
        type: 'session.analysis.completed',
        organizationId: job.organization_id,
        environmentId: job.environment_id,
        occurredAt: now,
        data: analysisEvent(finished, row ?? null),
      })
    })
  }

  /** One attempt: what it ended with, never a throw for the provider's or the model's failures. */
  private async attempt(job: AnalysisJobRow): Promise<JobEnd> {
    const row = this.deps.repos.sessions.get({ organizationId: job.organization_id, environmentId: job.environment_id }, job.session_id)
    if (!row) return { status: 'failed', error: { code: 'session_not_found', message: 'The session no longer exists.' } }
    const agent = sessionConfig(row)
    const analysis = agent?.analysis
    if (!agent || !analysisRequested(analysis))
      return { status: 'failed', error: { code: 'agent_invalid', message: "The session's agent config no longer asks for an analysis." } }
    const transcript = transcriptOf(this.deps.repos, row.id)
    if (!transcript.length)
      return { status: 'skipped', error: { code: 'empty_transcript', message: 'Nothing was said in the session: there is nothing to analyse.' } }
    const llm = this.deps.llmFor(job.organization_id)
    if (!llm)
      return {
        status: 'failed',
        error: { code: 'provider_not_configured', message: 'No LLM is configured: store an "openai" credential, or set OZAN_OPENAI_API_KEY.' },
      }
    const model = analysis.model ?? agent.llm.model ?? DEFAULT_OPENAI_LLM_OPTIONS.model
    try {
      const answer = await llm.complete({ ...buildRequest(analysis, transcript), model, maxTokens: analysis.max_tokens }, this.pump.signal)
      const checked = checkAnswer(analysis, answer.content)
      // A model's answer that breaks the schema may be right the next time: retried like a provider failure.
      if (!checked.ok) return { status: 'retry', error: { code: 'invalid_output', message: `The model's answer was refused: ${checked.message}.` } }
      return { status: 'completed', result: { ...checked.result, model: answer.model, usage: answer.usage } }
    } catch (err) {
      if (this.pump.signal.aborted) return { status: 'retry', error: { code: 'interrupted', message: 'The server stopped during the attempt.' } }
      if (!isProviderError(err, 'llm')) throw err
      const error = { code: err.code, message: err.message }
      return err.retryable ? { status: 'retry', error, ...(err.retryAfterMs !== undefined && { retryAfterMs: err.retryAfterMs }) } : { status: 'failed', error }
    }
  }

  private backoff(attempt: number, retryAfterMs: number | undefined): number {
    const { retryBaseMs, retryMaxMs } = this.options
    if (retryAfterMs !== undefined) return Math.min(retryMaxMs, Math.max(retryAfterMs, retryBaseMs))
    const ceiling = Math.min(retryMaxMs, retryBaseMs * 2 ** (attempt - 1))
    return Math.round(ceiling / 2 + Math.random() * (ceiling / 2))
  }
}

/** What was said, as the call detail shows it: the stored user and agent lines, in order. */
function transcriptOf(repos: Repos, sessionId: string): TranscriptLine[] {
  const lines: TranscriptLine[] = []
  for (const e of repos.sessions.events(sessionId)) {
    if (e.kind !== 'user_message' && e.kind !== 'agent_message') continue
    const text = (JSON.parse(e.data) as { text?: unknown }).text
    if (typeof text === 'string' && text.trim()) lines.push({ role: e.kind === 'user_message' ? 'user' : 'assistant', text })
  }
  return lines
}
