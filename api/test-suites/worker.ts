/**
 * The test-run worker. A run's cases are rows (test_run_cases) queued when the run starts; the
 * worker claims them oldest first and runs at most `concurrency` at once, across every run of the
 * server. A case a stop or a crash left running is pending again at the next start and runs from
 * its beginning, until it has had `maxAttempts`; then it is an error (interrupted), so a restart
 * resumes or fails a run, never loses it. A run ends with its last case (repo: finishCase).
 */
import type { Clock, Logger } from '../../core/index.js'
import type { Repos, TestRunCaseRow, TestRunRow } from '../../db/index.js'
import type { RuntimeIO } from '../../engine/graph-runtime/index.js'
import { isProviderError } from '../../engine/pipeline/providers/llm/index.js'
import { ApiError } from '../http/errors.js'
import { storedConfig, storedDefinition } from '../sessions/stored-agent.js'
import { Recording } from './recording.js'
import type { SuiteSettings, TestCaseT } from './schema.js'
import { runTextCase } from './text-case.js'
import { caseTools } from './tool-mocks.js'
import { CaseError, type CaseEnd } from './verdict.js'
import { QueuePump } from '../queue/index.js'

export interface TestRunWorkerOptions {
  /** Cases run at once, over every run. */
  concurrency: number
  /** Starts of one case in all (a stop mid-case counts one); then it is an error. */
  maxAttempts: number
  /** A case that takes longer is an error (timeout). */
  caseTimeoutMs: number
  /** How often the queue is looked at when nothing woke the worker. */
  pollMs: number
}

export const DEFAULT_TEST_RUN_OPTIONS: TestRunWorkerOptions = { concurrency: 2, maxAttempts: 2, caseTimeoutMs: 5 * 60_000, pollMs: 1000 }

/**
 * Runs one case of a voice run (voice-case.ts): its end, or what stopped it with what it had
 * recorded by then. Absent: voice runs end each case as an error saying why.
 */
export type VoiceCaseRunner = (c: TestCaseT, run: TestRunRow, signal: AbortSignal) => Promise<CaseRan>

export type CaseRan = { end: CaseEnd } | { thrown: unknown; recording: Recording }

export interface TestRunWorkerDeps {
  repos: Repos
  clock: Clock
  logger: Logger
  /** The runtime's io of a scope, as text sessions get it (SessionService.runtimeIO). */
  runtimeIO: (scope: { organizationId: string; environmentId: string }) => RuntimeIO
  voice?: VoiceCaseRunner
  /** Prices and debits the LLM tokens a finished case used (api/billing; a no-op with billing off). */
  meter?: { settleTestCase(run: TestRunRow, position: number, usage: { prompt_tokens: number; completion_tokens: number }): unknown }
  options?: Partial<TestRunWorkerOptions>
}

export class TestRunWorker {
  readonly options: TestRunWorkerOptions
  private readonly pump: QueuePump
  private voice: VoiceCaseRunner | undefined

  constructor(private readonly deps: TestRunWorkerDeps) {
    this.voice = deps.voice
    this.options = { ...DEFAULT_TEST_RUN_OPTIONS, ...deps.options }
    const o = this.options
    if (!(Number.isInteger(o.concurrency) && o.concurrency >= 1 && o.maxAttempts >= 1 && o.caseTimeoutMs >= 100 && o.pollMs >= 10))
      throw new Error(`TestRunWorker: invalid options ${JSON.stringify(o)}`)
    this.pump = new QueuePump(() => this.pass(), o.pollMs)
  }

  /** Resumes (or fails) cases the last stop left running, and starts working the queue. */
  start(): void {
    const { resumed, exhausted } = this.deps.repos.testRuns.resumeRunning(this.options.maxAttempts, this.deps.clock.now())
    if (resumed || exhausted) this.deps.logger.warn({ resumed, exhausted }, 'test cases left running by the last run are pending again (or failed)')
    this.pump.start()
  }

  /** Voice cases run through this call engine from now on (the engine starts after the services). */
  useVoice(runner: VoiceCaseRunner): void {
    this.voice = runner
  }

  /** Whether voice runs can be started: a call engine is attached. */
  get voiceAvailable(): boolean {
    return this.voice !== undefined
  }

  /** Looks at the queue soon (coalesced). */
  wake(): void {
    this.pump.wake()
  }

  /** Cases running now (tests read it to check the bound). */
  get running(): number {
    return this.pump.running
  }

  /** Resolves once nothing is in flight and nothing is due (tests). */
  async settled(): Promise<void> {
    for (;;) {
      await this.pump.settled()
      if (this.pump.stopped || this.deps.repos.testRuns.due(1, this.voiceAvailable).length === 0) return
      this.wake()
    }
  }

  /** Stops taking cases and aborts those in flight; they stay running and resume at the next start. */
  close(): Promise<void> {
    return this.pump.close()
  }

  private pass(): void {
    const free = this.options.concurrency - this.pump.running
    if (free <= 0 || this.pump.stopped) return
    const now = this.deps.clock.now()
    for (const row of this.deps.repos.testRuns.due(free, this.voiceAvailable)) {
      if (!this.deps.repos.testRuns.claim(row.run_id, row.position, now)) continue
      this.pump.track(this.run(row), (err) => this.deps.logger.error({ err, run_id: row.run_id, position: row.position }, 'test case failed unexpectedly'))
    }
  }

  private async run(row: TestRunCaseRow): Promise<void> {
    const run = this.deps.repos.testRuns.byId(row.run_id)
    if (!run) return
    const spec = JSON.parse(row.spec) as TestCaseT
    const signal = AbortSignal.any([this.pump.signal, AbortSignal.timeout(this.options.caseTimeoutMs)])
    let ran: CaseRan
    try {
      ran = run.mode === 'voice' ? await this.voiceCase(spec, run, signal) : await this.textCase(spec, run, signal)
    } catch (err) {
      ran = { thrown: err, recording: new Recording() }
    }
    // Stopping: the case stays running, and the next start runs it again.
    if (this.pump.signal.aborted) return
    const end = 'end' in ran ? ran.end : this.errorEnd(ran.thrown, signal, row, ran.recording)
    const stored = { status: end.status, result: JSON.stringify(end.outcome), reason: end.reason, error_code: end.errorCode }
    // The case's end and its cost commit together.
    this.deps.repos.transaction(() => {
      this.deps.repos.testRuns.finishCase(row.run_id, row.position, stored, this.deps.clock.now())
      this.deps.meter?.settleTestCase(run, row.position, end.outcome.usage)
    })
  }

  private async textCase(spec: TestCaseT, run: TestRunRow, signal: AbortSignal): Promise<CaseRan> {
    const settings = JSON.parse(run.settings) as SuiteSettings
    const io = this.deps.runtimeIO({ organizationId: run.organization_id, environmentId: run.environment_id })
    return runTextCase(spec, {
      definition: storedDefinition(run.definition),
      config: storedConfig(run.config),
      io: { ...io, tools: caseTools(spec.tool_results, io.tools, settings.live_tools) },
      runId: run.id,
      judgeModel: settings.judge_model,
      signal,
    })
  }

  private voiceCase(spec: TestCaseT, run: TestRunRow, signal: AbortSignal): Promise<CaseRan> {
    if (!this.voice) throw new CaseError('voice_unavailable', 'Voice runs are not available on this server: it runs no call engine.')
    return this.voice(spec, run, signal)
  }

  private errorEnd(err: unknown, signal: AbortSignal, row: TestRunCaseRow, recording: Recording): CaseEnd {
    const outcome = recording.outcome([])
    const end = (errorCode: string, reason: string): CaseEnd => ({ status: 'error', errorCode, reason, outcome })
    if (err instanceof CaseError) return end(err.code, err.message)
    if (signal.aborted) return end('timeout', `The case took longer than ${this.options.caseTimeoutMs} ms (OZAN_TEST_CASE_TIMEOUT_MS).`)
    if (err instanceof ApiError) return end(err.code, err.message)
    if (isProviderError(err)) return end(err.code, `The ${err.category} provider failed: ${err.message}`)
    this.deps.logger.error({ err, run_id: row.run_id, position: row.position }, 'test case threw')
    return end('internal_error', 'The case failed unexpectedly.')
  }
}
