import type { Clock, Logger } from '../../core/index.js'
import type { NewRequestLog, Repos } from '../../db/index.js'

export interface RequestLogOptions {
  retentionDays: number
  /** Rows kept in memory before a flush is forced. */
  maxBuffered?: number
  flushIntervalMs?: number
}

const HOUR_MS = 3_600_000

/**
 * API request logs are written off the request path: rows are buffered and inserted in one
 * transaction per second, or as soon as `maxBuffered` rows wait, so memory stays bounded. A batch
 * that fails to insert is dropped and logged; a request never fails because of its log row.
 */
export class RequestLogBuffer {
  private rows: NewRequestLog[] = []
  private readonly maxBuffered: number
  private readonly flushTimer: NodeJS.Timeout
  private readonly pruneTimer: NodeJS.Timeout

  constructor(
    private readonly repos: Repos,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: RequestLogOptions,
  ) {
    this.maxBuffered = options.maxBuffered ?? 500
    this.flushTimer = setInterval(() => this.flush(), options.flushIntervalMs ?? 1000).unref()
    this.pruneTimer = setInterval(() => this.prune(), HOUR_MS).unref()
  }

  push(row: NewRequestLog): void {
    this.rows.push(row)
    if (this.rows.length >= this.maxBuffered) this.flush()
  }

  flush(): void {
    if (!this.rows.length) return
    const batch = this.rows
    this.rows = []
    try {
      this.repos.requestLogs.insertMany(batch)
    } catch (err) {
      this.logger.error({ err: (err as Error).message, rows: batch.length }, 'request log flush failed; rows dropped')
    }
  }

  /** Deletes rows past the retention period. */
  prune(): number {
    return this.repos.requestLogs.prune(this.clock.now() - this.options.retentionDays * 86_400_000)
  }

  close(): void {
    clearInterval(this.flushTimer)
    clearInterval(this.pruneTimer)
    this.flush()
  }
}
