import t, { type Test } from 'tap'
import type { DomainEvent, ManualClock } from '../../../core/index.js'
import type { Reply, TestApp } from '../../helpers/app.js'
import { RBAC, ROLE, actorOf, auditOf, code, freshEmail, invitationToken, invite, login, setup, withoutRequestId } from '../../helpers/rbac.js'

const INVITATIONS = `${RBAC}/invitations`
const DAY_MS = 86_400_000
const accept = (a: TestApp, token: string, invitation: string) => a.request('POST', `${INVITATIONS}/accept`, { token, body: { token: invitation } })
const rejected = (t: Test, res: Reply, status: number, errorCode: string) => t.same([res.status, code(res)], [status, errorCode], res.text)

t.test('an invitation is created, mailed with a token, published on the bus and audited', async (t) => {
  const { a, owner } = await setup(t)
  const events: DomainEvent[] = []
  t.teardown(a.services.bus.subscribe((e) => events.push(e)))
  const email = freshEmail('invitee')
  const res = await invite(a, owner, email, ROLE.developer)
  t.equal(res.status, 201)
  t.match(res.body, { email, status: 'pending', role: { id: ROLE.developer, key: 'developer' }, invited_by: { id: owner.userId, email: owner.email } })
  t.equal(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at), 7 * DAY_MS, 'expires in 7 days')

  const mails = a.services.repos.mailOutbox.forRecipient(email)
  t.same(
    mails.map((m) => m.kind),
    ['invitation'],
  )
  t.ok(invitationToken(a, email).length >= 16, 'the mail carries an accept link with a token')

  const published = events.filter((e) => e.type === 'member.invited')
  t.equal(published.length, 1)
  t.match(published[0], { organizationId: owner.organizationId, data: { email, role: 'developer', invitation_id: res.body.id, invited_by: owner.userId } })
  t.notOk(JSON.stringify(published[0]).includes(invitationToken(a, email)), 'the event does not carry the token')

  const rows = await auditOf(a, owner, 'member.invited')
  t.match(rows, [{ resource_type: 'invitation', resource_id: res.body.id, actor: { id: owner.userId }, metadata: { email } }])
})

t.test('re-inviting a pending email replaces the invitation and its token', async (t) => {
  const { a, owner } = await setup(t)
  const email = freshEmail('twice')
  const first = await invite(a, owner, email, ROLE.viewer)
  const oldToken = invitationToken(a, email)
  const second = await invite(a, owner, email.toUpperCase(), ROLE.developer)
  t.equal(second.status, 201)
  t.not(second.body.id, first.body.id)
  const newToken = invitationToken(a, email.toUpperCase())
  t.not(newToken, oldToken)

  const pending = (await a.request('GET', INVITATIONS, { token: owner.token })).body
  t.same(
    pending.map((i: { id: string; role: { key: string } }) => [i.id, i.role.key]),
    [[second.body.id, 'developer']],
    'one pending invitation, the new one',
  )

  const user = actorOf(await a.register(email))
  rejected(t, await accept(a, user.token, oldToken), 400, 'invalid_token')
  t.equal((await accept(a, user.token, newToken)).status, 204)
  const member = (await a.request('GET', `${RBAC}/members`, { token: owner.token })).body.find((m: { user_id: string }) => m.user_id === user.userId)
  t.match(member, { role: { key: 'developer' } }, 'joined with the role of the newer invitation')
})

t.test('inviting someone who is already a member is a conflict', async (t) => {
  const { a, owner } = await setup(t)
  rejected(t, await invite(a, owner, owner.email, ROLE.viewer), 409, 'already_member')
  rejected(t, await invite(a, owner, owner.email.toUpperCase(), ROLE.viewer), 409, 'already_member')
  t.same((await a.request('GET', INVITATIONS, { token: owner.token })).body, [])
  const unknownRole = await invite(a, owner, freshEmail(), 999_999)
  t.equal(unknownRole.status, 400, 'a role of no organization cannot be offered')
})

t.test('the right user joins with the invited role; the wrong user and a used token are refused', async (t) => {
  const { a, owner } = await setup(t)
  const email = freshEmail('right')
  const inv = (await invite(a, owner, email, ROLE.developer)).body
  const token = invitationToken(a, email)
  const wrong = actorOf(await a.register(freshEmail('wrong')))
  rejected(t, await accept(a, wrong.token, token), 403, 'invitation_email_mismatch')
  t.notOk((await a.request('GET', '/api/v1/organizations', { token: wrong.token })).body.some((o: { id: string }) => o.id === owner.organizationId))

  const right = actorOf(await a.register(email))
  t.equal((await accept(a, right.token, token)).status, 204, 'the mismatch did not use the token up')
  const orgs = (await a.request('GET', '/api/v1/organizations', { token: right.token })).body
  t.match(
    orgs.find((o: { id: string }) => o.id === owner.organizationId),
    { role: 'developer', current: false },
  )
  const members = (await a.request('GET', `${RBAC}/members`, { token: owner.token })).body
  t.match(
    members.find((m: { user_id: string }) => m.user_id === right.userId),
    { email, role: { id: ROLE.developer } },
  )
  t.same((await a.request('GET', INVITATIONS, { token: owner.token })).body, [], 'no longer pending')

  rejected(t, await accept(a, right.token, token), 400, 'invalid_token')
  rejected(t, await accept(a, right.token, 'x'.repeat(43)), 400, 'invalid_token')
  t.equal((await a.request('POST', `${INVITATIONS}/accept`, { body: { token } })).status, 401)
  const rows = await auditOf(a, owner, 'invitation.accepted')
  t.match(rows, [{ resource_id: inv.id, actor: { user_id: right.userId } }])
})

t.test('an invitation expires 7 days after it was sent', async (t) => {
  const { a, owner } = await setup(t)
  const clock = a.clock as ManualClock
  const [early, late] = [freshEmail('early'), freshEmail('late')]
  for (const e of [early, late]) {
    t.equal((await invite(a, owner, e, ROLE.viewer)).status, 201)
    await a.register(e)
  }
  clock.advance(7 * DAY_MS - 1) // access tokens lapse too: sign in again
  t.equal((await accept(a, await login(a, early), invitationToken(a, early))).status, 204, 'valid until the last millisecond')
  clock.advance(2)
  rejected(t, await accept(a, await login(a, late), invitationToken(a, late)), 400, 'invalid_token')
  t.same((await a.request('GET', INVITATIONS, { token: await login(a, owner.email) })).body, [], 'an expired invitation is not listed')
})

t.test('pending invitations are listed and can be revoked; a revoked token is refused', async (t) => {
  const { a, owner } = await setup(t)
  const emails = [freshEmail('one'), freshEmail('two')]
  const ids: string[] = []
  for (const e of emails) ids.push((await invite(a, owner, e, ROLE.viewer)).body.id)
  const list = await a.request('GET', INVITATIONS, { token: owner.token })
  t.equal(list.status, 200)
  t.same(list.body.map((i: { id: string }) => i.id).sort(), [...ids].sort())
  t.ok(list.body.every((i: { status: string }) => i.status === 'pending'))

  t.equal((await a.request('DELETE', `${INVITATIONS}/${ids[0]}`, { token: owner.token })).status, 204)
  t.same(
    (await a.request('GET', INVITATIONS, { token: owner.token })).body.map((i: { id: string }) => i.id),
    [ids[1]],
  )
  const user = actorOf(await a.register(emails[0]))
  rejected(t, await accept(a, user.token, invitationToken(a, emails[0]!)), 400, 'invalid_token')
  t.equal((await a.request('DELETE', `${INVITATIONS}/${ids[0]}`, { token: owner.token })).status, 404, 'revoking again finds nothing')
  t.match(await auditOf(a, owner, 'invitation.revoked'), [{ resource_id: ids[0] }])

  const stranger = actorOf(await a.register(freshEmail('stranger')))
  const theirs = (await invite(a, stranger, freshEmail('theirs'), ROLE.viewer)).body.id
  const foreign = await a.request('DELETE', `${INVITATIONS}/${theirs}`, { token: owner.token })
  const unknown = await a.request('DELETE', `${INVITATIONS}/00000000-0000-4000-8000-000000000000`, { token: owner.token })
  rejected(t, foreign, 404, 'not_found')
  t.equal(withoutRequestId(foreign), withoutRequestId(unknown), "another organization's invitation looks missing")
  t.equal((await a.request('GET', INVITATIONS, { token: stranger.token })).body.length, 1, 'theirs is untouched')
})
