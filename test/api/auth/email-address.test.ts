import t from 'tap'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { Email } from '../../../api/auth/schema.js'

const PASSWORD = 'correct horse battery'
const LABEL_63 = 'a'.repeat(63)

let app: TestApp
t.before(async () => {
  app = await startTestApp()
})
t.teardown(() => app.close())

const register = (email: string) => app.request('POST', '/api/v1/auth/register', { body: { email, password: PASSWORD, name: 'Ada' } })

// RFC 1035 §2.3.1 / RFC 1123 §2.1: a label starts and ends with a letter or digit, 63 octets at most.
const REFUSED = [
  'a@ab-.example',
  'a@-ab.example',
  'a@sub.ab-.example',
  'a@sub.-ab.example',
  'a@ab.example-',
  `a@${LABEL_63}b.example`,
  `a@example.${'c'.repeat(64)}`,
  'a@ab..example',
]
const ACCEPTED = ['a@a-b.example', 'a@a--b.example', 'a@1ab.example', `a@${LABEL_63}.example`, 'first.last+tag@mail.example.co']

t.test('a domain label that starts or ends with "-", or runs past 63 characters, is refused with 422 on the email', async (t) => {
  for (const email of REFUSED) {
    const res = await register(email)
    t.equal(res.status, 422, email)
    t.same(
      res.body.detail.map((d: { loc: unknown[]; type: string }) => ({ loc: d.loc, type: d.type })),
      [{ loc: ['body', 'email'], type: 'value_error' }],
      `${email}: one entry, on the email`,
    )
    t.equal(res.body.detail[0].input, email, 'the refused address is echoed back')
  }
  t.equal((app.db.prepare('SELECT count(*) AS n FROM users').get() as { n: number }).n, 0, 'no account was made')
})

t.test('hyphens inside a label, a leading digit and a 63-character label are accepted', async (t) => {
  for (const email of ACCEPTED) t.equal((await register(email)).status, 201, email)
})

t.test('the schema itself agrees with the route on every case', async (t) => {
  for (const email of REFUSED) t.notOk(Email.safeParse(email).success, email)
  for (const email of ACCEPTED) t.ok(Email.safeParse(email).success, email)
})

t.test('an invitation takes the same email rule as registration', async (t) => {
  const owner = await register('owner@invite.example')
  t.equal(owner.status, 201)
  const invite = (email: string) => app.request('POST', '/api/v1/rbac/invitations', { token: owner.body.access_token, body: { email, role_id: 3 } })
  for (const email of REFUSED) {
    const res = await invite(email)
    t.equal(res.status, 422, email)
    t.same(
      res.body.detail.map((d: { loc: unknown[] }) => d.loc),
      [['body', 'email']],
      `${email}: on the email`,
    )
  }
  t.equal((await invite('new.member@a-b.example')).status, 201)
})
