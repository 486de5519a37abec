import nodemailer, { type Transporter } from 'nodemailer'
import type { Clock, Logger } from '../../core/index.js'
import type { Repos } from '../../db/index.js'
import type { Lang } from '../http/errors.js'
import { renderMail, type MailKind, type MailVars } from './templates.js'

export interface MailerOptions {
  smtpUrl: string | null
  from: string
  publicUrl: string
}

const MAX_ATTEMPTS = 5
const BATCH = 20

/**
 * Email leaves through the outbox table: `queue` only writes a row, so a request never waits on
 * SMTP. With SMTP configured a dispatcher sends pending rows; without it they wait in the table
 * (tests read them there) and a log line says so. Links and tokens are never logged.
 */
export class Mailer {
  private readonly transport: Transporter | null
  private running: Promise<void> | null = null
  private again = false

  constructor(
    private readonly repos: Repos,
    private readonly options: MailerOptions,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.transport = options.smtpUrl ? nodemailer.createTransport(options.smtpUrl) : null
  }

  queue(kind: MailKind, to: string, lang: Lang, pagePath: string, token: string, ttlS: number, vars?: MailVars): number {
    const link = `${this.options.publicUrl}${pagePath}?token=${encodeURIComponent(token)}`
    const { subject, text } = renderMail(kind, lang, link, ttlS, vars)
    const id = this.repos.mailOutbox.insert({ recipient: to, kind, subject, body_text: text, created_at: this.clock.now() })
    if (this.transport) void this.dispatch()
    else this.logger.info({ mail_id: id, kind }, 'email waiting in the outbox (no SMTP configured)')
    return id
  }

  /** Sends pending mail; concurrent calls coalesce into one run. */
  dispatch(): Promise<void> {
    if (!this.transport) return Promise.resolve()
    if (this.running) {
      this.again = true
      return this.running
    }
    this.running = this.drain().finally(() => {
      this.running = null
      if (this.again) {
        this.again = false
        void this.dispatch()
      }
    })
    return this.running
  }

  private async drain(): Promise<void> {
    for (;;) {
      const batch = this.repos.mailOutbox.pending(MAX_ATTEMPTS, BATCH)
      if (!batch.length) return
      for (const m of batch) {
        try {
          await this.transport!.sendMail({ from: this.options.from, to: m.recipient, subject: m.subject, text: m.body_text })
          this.repos.mailOutbox.markSent(m.id, this.clock.now())
        } catch (err) {
          this.repos.mailOutbox.markFailed(m.id, (err as Error).message)
          this.logger.warn({ mail_id: m.id, err: (err as Error).message }, 'email send failed')
          return // try the rest on the next dispatch rather than hammering a failing server
        }
      }
    }
  }

  /** Waits for an in-flight dispatch (used at shutdown). */
  async idle(): Promise<void> {
    await this.running
  }

  close(): void {
    this.transport?.close()
  }
}
