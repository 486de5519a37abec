import t from 'tap'
import { startTestApp } from '../../helpers/app.js'
import { startSmtpServer } from '../../helpers/smtp-server.js'

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 20))
  }
}

t.test('with SMTP configured, mail from the outbox is delivered and marked sent', async (t) => {
  const smtp = await startSmtpServer()
  t.teardown(smtp.close)
  const app = await startTestApp({ env: { OZAN_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, OZAN_MAIL_FROM: 'Ozan <noreply@ozan.test>' } })
  t.teardown(app.close)
  const email = 'smtp-user@example.com'
  await app.register(email)
  await until(() => smtp.received.length === 1)
  const mail = smtp.received[0]!
  t.match(mail.from, /noreply@ozan\.test/)
  t.same(mail.to, [`<${email}>`])
  t.match(mail.data, /Subject: Confirm your Ozan email address/)
  t.match(mail.data, /verify-email\?token=/)
  await until(() => app.services.repos.mailOutbox.forRecipient(email)[0]?.sent_at !== null)
  t.equal(app.services.repos.mailOutbox.forRecipient(email)[0]!.attempts, 1)
})

t.test('a refused send keeps the mail pending with its error, and a later dispatch delivers it', async (t) => {
  const smtp = await startSmtpServer()
  t.teardown(smtp.close)
  smtp.state.reject = true
  const app = await startTestApp({ env: { OZAN_SMTP_URL: `smtp://127.0.0.1:${smtp.port}` } })
  t.teardown(app.close)
  const email = 'refused@example.com'
  await app.register(email)
  await until(() => app.services.repos.mailOutbox.forRecipient(email)[0]?.attempts === 1)
  const failed = app.services.repos.mailOutbox.forRecipient(email)[0]!
  t.equal(failed.sent_at, null, 'not marked sent')
  t.match(failed.last_error, /550|rejected/)
  smtp.state.reject = false
  await app.services.mailer.dispatch()
  t.equal(smtp.received.length, 1, 'delivered on the retry')
  t.not(app.services.repos.mailOutbox.forRecipient(email)[0]!.sent_at, null)
})
