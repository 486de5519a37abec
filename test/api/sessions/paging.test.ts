import { randomUUID } from 'node:crypto'
import t from 'tap'
import { DEFAULT_EVENT_PAGE_LIMITS } from '../../../api/http/paging.js'
import { DEFAULT_SESSION_PAGE_LIMITS } from '../../../api/sessions/schema.js'
import { expectStatus, newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'
import { checkPagedList, linkOf, type Seeded } from '../http/paging-fixtures.js'
import { agent, lineGraph, setup, W, type Scene } from './session-fixtures.js'

/** Starts a text session of a one-line agent as `by`; returns its events URL and its session id. */
async function session(s: Scene, by: Actor): Promise<{ url: string; id: string }> {
  const wf = await agent(s, { definition: lineGraph('hello'), actor: by })
  const started = expectStatus(await s.a.request('POST', `${W}/${wf}/sessions`, { token: by.token }), 201, 'start session')
  return { url: `${W}/${wf}/sessions/${started.session_id}/events`, id: started.session_id as string }
}

/** Appends `n` marked events; each one's marker is what the list check identifies it by. */
function append(s: Scene, sessionId: string, n: number): Seeded[] {
  const firstSeq = s.a.services.repos.sessions.events(sessionId).length + 1
  const markers = Array.from({ length: n }, () => randomUUID())
  s.a.services.repos.sessions.appendEvents(
    sessionId,
    markers.map((marker) => ({ kind: 'note', data: { marker } })),
    s.clock.now(),
  )
  return markers.map((id, i) => ({ id, key: firstSeq + i }))
}

t.test('GET …/sessions/{sid}/events is paged by seq with X-Total-Count and Link', async (t) => {
  const s = await setup(t)
  const other = await newOwner(s.a)
  const mine = await session(s, s.owner)
  // The opening's own events come first; they carry no marker, so they are listed by seq.
  const opening = s.a.services.repos.sessions.events(mine.id).map((e) => ({ id: `seq ${e.seq}`, key: e.seq }))
  const seeded = [...opening, ...append(s, mine.id, DEFAULT_EVENT_PAGE_LIMITS.maxLimit + 20)]
  const sibling = await session(s, s.owner)
  const foreign = await session(s, other)
  const theirs = [...append(s, sibling.id, 5), ...append(s, foreign.id, 5)]
  const idOf = (e: unknown) => {
    const ev = e as { seq: number; data: { marker?: string } }
    return ev.data.marker ?? `seq ${ev.seq}`
  }
  await checkPagedList(t, {
    path: mine.url,
    get: (url) => s.send('GET', url),
    mine: seeded,
    theirs,
    ascending: true,
    idOf,
    ...DEFAULT_EVENT_PAGE_LIMITS,
  })

  await t.test('another organization’s session is 404 whatever the page', async (t) => {
    const res = await s.send('GET', `${foreign.url}?limit=1&offset=1`)
    t.equal(res.status, 404)
    t.equal(res.body.error.code, 'not_found')
  })
})

t.test('GET /sessions keeps its paging (default 50, at most 200) and gains Link', async (t) => {
  const s = await setup(t)
  const wf = await agent(s, { definition: lineGraph('hi') })
  const { defaultLimit, maxLimit } = DEFAULT_SESSION_PAGE_LIMITS
  t.same([defaultLimit, maxLimit], [50, 200], 'the numbers the docs gave before the other lists were paged')
  for (let i = 0; i < defaultLimit + 2; i++) expectStatus(await s.send('POST', `${W}/${wf}/sessions`), 201, 'start')
  const first = await s.send('GET', '/api/v1/sessions')
  t.equal(first.body.length, defaultLimit)
  t.equal(first.headers.get('x-total-count'), String(defaultLimit + 2))
  const next = linkOf(first, 'next')!
  t.equal(next, `/api/v1/sessions?limit=${defaultLimit}&offset=${defaultLimit}`)
  const rest = await s.send('GET', next)
  t.equal(rest.body.length, 2)
  t.equal(linkOf(rest, 'next'), undefined)
  t.equal(linkOf(rest, 'prev'), `/api/v1/sessions?limit=${defaultLimit}&offset=0`)
  const ids = [...first.body, ...rest.body].map((r: { id: string }) => r.id)
  t.equal(new Set(ids).size, defaultLimit + 2)
  t.equal((await s.send('GET', `/api/v1/sessions?limit=${maxLimit + 1}`)).status, 422)
})
