/**
 * The automation worker. Runs are rows (trigger.ts queues them inside the event's publish), so a
 * restart loses nothing; the worker claims due runs with bounded concurrency, renders the action's
 * input from the event, runs the action through the integration runner (guarded outbound
 * requests, the organization's stored credentials), and logs every attempt. A failure that
 * waiting could cure is retried with exponential backoff up to maxAttempts; any other ends the run
 * failed at once. A run a crash or stop left running is pending again at the next start.
 */
import { performance } from 'node:perf_hooks'
import type { Clock, DomainEvent, EventBus, Logger } from '../../core/index.js'
import type { AttemptEnd, AutomationRunRow, Repos } from '../../db/index.js'
import type { ToolRunner } from '../../engine/graph-runtime/index.js'
import { renderMapping } from './mapping.js'
import { failureOf, storedOutput } from './outcome.js'
import { queueRuns } from './trigger.js'
import { QueuePump } from '../queue/index.js'

export interface AutomationWorkerOptions {
  /** Runs worked at once, all organizations together. */
  concurrency: number
  /**
   * Runs of one organization worked at once (default: half of concurrency, at least 1): a flood of
   * one organization's events, or its slow endpoint, never holds every slot.
   */
  maxPerOrganization: number
  /** Automatic attempts per run (per retry asked for), the first included. */
  maxAttempts: number
  /** Backoff before automatic retry n: a random wait in [b·2^(n-1)/2, b·2^(n-1)], at most retryMaxMs. */
  retryBaseMs: number
  retryMaxMs: number
  /** How often the queue is looked at when nothing woke the worker (retries come due this way). */
  pollMs: number
  /** Finished runs are deleted after this many days (checked hourly). */
  retentionDays: number
}

export const DEFAULT_AUTOMATION_OPTIONS: Omit<AutomationWorkerOptions, 'maxPerOrganization'> = {
  concurrency: 4,
  maxAttempts: 4,
  retryBaseMs: 5000,
  retryMaxMs: 5 * 60_000,
  pollMs: 1000,
  retentionDays: 30,
}

export interface AutomationWorkerDeps {
  repos: Repos
  bus: EventBus
  clock: Clock
  logger: Logger
  /** Runs integration actions as an organization (IntegrationService.runnerFor). */
  runnerFor(organizationId: string): ToolRunner
  options?: Partial<AutomationWorkerOptions>
}

export class AutomationWorker {
  readonly options: AutomationWorkerOptions
  private readonly pump: QueuePump
  /** Runs in flight per organization. */
  private readonly perOrganization = new Map<string, number>()
  private unsubscribe: (() => void) | null = null

  constructor(private readonly deps: AutomationWorkerDeps) {
    const merged = { ...DEFAULT_AUTOMATION_OPTIONS, ...deps.options }
    this.options = { maxPerOrganization: Math.max(1, Math.floor(merged.concurrency / 2)), ...merged }
    const o = this.options
    if (
      !(
        o.concurrency >= 1 &&
        o.maxPerOrganization >= 1 &&
        o.maxAttempts >= 1 &&
        o.retryBaseMs >= 0 &&
        o.retryMaxMs >= o.retryBaseMs &&
        o.pollMs >= 10 &&
        o.retentionDays >= 1
      )
    )
      throw new Error(`AutomationWorker: invalid options ${JSON.stringify(o)}`)
    this.pump = new QueuePump(() => this.pass(), o.pollMs)
  }

  /** Queues runs for events from now on, resumes interrupted runs and starts working. */
  start(): void {
    this.unsubscribe = this.deps.bus.subscribe((event) => this.onEvent(event))
    const resumed = this.deps.repos.automationRuns.resumeRunning(this.deps.clock.now())
    if (resumed) this.deps.logger.warn({ runs: resumed }, 'automation runs left running by the last stop are pending again')
    this.prune()
    this.pump.start([[() => this.prune(), 3_600_000]])
  }

  /** Looks at the queue soon (coalesced): after an enqueue, a finished run, a retry, or a clock move in tests. */
  wake(): void {
    this.pump.wake()
  }

  /** Resolves once no run is in flight (tests; a run may be due again later). */
  settled(): Promise<void> {
    return this.pump.settled()
  }

  /** Stops taking runs and aborts those in flight; they stay `running` and resume at the next start. */
  async close(): Promise<void> {
    this.unsubscribe?.()
    await this.pump.close()
  }

  /** Deletes finished runs past the retention period; returns how many. */
  prune(): number {
    return this.deps.repos.automationRuns.prune(this.deps.clock.now() - this.options.retentionDays * 86_400_000)
  }

  private onEvent(event: DomainEvent): void {
    if (queueRuns(this.deps.repos, event, this.deps.clock.now())) this.wake()
  }

  /** Starts what the caps allow; each round starts at least one run or ends the pass. */
  private pass(): void {
    const cap = this.options.maxPerOrganization
    while (!this.pump.stopped) {
      const free = this.options.concurrency - this.pump.running
      if (free <= 0) return
      const now = this.deps.clock.now()
      const busy = [...this.perOrganization].filter(([, n]) => n >= cap).map(([org]) => org)
      let started = 0
      for (const run of this.deps.repos.automationRuns.due(now, free, busy)) {
        // The page may hold more of one organization's runs than its share: the next round skips it.
        if ((this.perOrganization.get(run.organization_id) ?? 0) >= cap) continue
        const number = this.deps.repos.automationRuns.claim(run, now)
        if (number === null) continue
        this.launch(run, number)
        started++
      }
      if (!started) return
    }
  }

  private launch(run: AutomationRunRow, number: number): void {
    const org = run.organization_id
    this.perOrganization.set(org, (this.perOrganization.get(org) ?? 0) + 1)
    this.pump.track(
      this.run({ ...run, attempts: number }, number),
      (err) => this.deps.logger.error({ err, run_id: run.id }, 'automation run failed unexpectedly'),
      () => {
        const left = (this.perOrganization.get(org) ?? 1) - 1
        if (left > 0) this.perOrganization.set(org, left)
        else this.perOrganization.delete(org)
      },
    )
  }

  private async run(run: AutomationRunRow, number: number): Promise<void> {
    const started = performance.now()
    let end: Omit<AttemptEnd, 'durationMs' | 'retryAt'> & { retryable: boolean }
    try {
      end = await this.attempt(run)
    } catch (err) {
      // A bug, not the provider: the run ends failed rather than staying `running` until a restart.
      this.deps.logger.error({ err, run_id: run.id }, 'automation attempt threw')
      end = { outcome: 'failed', input: null, output: null, error: { code: 'internal_error', message: 'The attempt failed unexpectedly.' }, retryable: false }
    }
    // Stopping: the attempt stays open and the run `running`; the next start marks it interrupted and runs it again.
    if (this.pump.signal.aborted) return
    const now = this.deps.clock.now()
    const automatic = run.attempts - run.budget_from
    const retryAt = end.outcome === 'failed' && end.retryable && automatic < this.options.maxAttempts ? now + this.backoff(automatic) : null
    const { retryable: _, ...stored } = end
    this.deps.repos.automationRuns.finish(run.id, number, { ...stored, durationMs: Math.round(performance.now() - started), retryAt }, now)
    const log = { run_id: run.id, automation_id: run.automation_id, attempt: number, outcome: end.outcome, error_code: end.error?.code }
    if (retryAt !== null) this.deps.logger.warn(log, 'automation attempt failed; retrying later')
    else this.deps.logger.info(log, 'automation run ended')
  }

  private async attempt(run: AutomationRunRow): Promise<Omit<AttemptEnd, 'durationMs' | 'retryAt'> & { retryable: boolean }> {
    const fail = (code: string, message: string, input: string | null = null) => ({
      outcome: 'failed' as const,
      input,
      output: null,
      error: { code, message },
      retryable: false,
    })
    const automation = this.deps.repos.automations.byId(run.automation_id)
    if (!automation) return fail('automation_not_found', 'The automation no longer exists.')
    const rendered = renderMapping(JSON.parse(automation.input) as Record<string, unknown>, JSON.parse(run.payload) as Record<string, unknown>)
    if (!rendered.ok) return fail('mapping_failed', `The input could not be rendered from the event: ${rendered.message}.`)
    const input = JSON.stringify(rendered.input)
    const runner = this.deps.runnerFor(run.organization_id)
    const outcome = await runner.run({ integration: automation.integration, action: automation.action }, rendered.input, this.pump.signal)
    if (outcome.ok) return { outcome: 'succeeded', input, output: storedOutput(outcome.output), error: null, retryable: false }
    const failure = failureOf(outcome)
    return { outcome: 'failed', input, output: null, error: { code: failure.code, message: failure.message }, retryable: failure.retryable }
  }

  private backoff(attempt: number): number {
    const { retryBaseMs, retryMaxMs } = this.options
    const ceiling = Math.min(retryMaxMs, retryBaseMs * 2 ** (attempt - 1))
    return Math.round(ceiling / 2 + Math.random() * (ceiling / 2))
  }
}
