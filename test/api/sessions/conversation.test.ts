import t from 'tap'
import { T0, agent, errorOf, say, sessionPath, setup, start } from './session-fixtures.js'

// The issue: deterministic nodes run with no LLM configured, and a template built only from them
// works out of the box. The Turkish survey is walked end to end over HTTP, then its stored record
// (SessionDetail, RunEventResponse[]) is read back.

const SURVEY = {
  greeting: 'Merhaba, Anadolu Teknik Servis müşteri hizmetlerinden arıyorum.',
  consent: 'Geçtiğimiz günlerde aldığınız hizmetle ilgili yaklaşık bir dakika sürecek kısa bir anketimiz var. Katılmak ister misiniz?',
  rating:
    'Teşekkür ederim. Aldığınız hizmetten ne kadar memnun kaldınız? Lütfen 1 ile 5 arasında bir puan verin; 1 hiç memnun kalmadım, 5 çok memnun kaldım anlamına geliyor.',
  ratingAgain: 'Puanınızı 1 ile 5 arasında bir sayı olarak söyler misiniz?',
  problem: 'Bunu duyduğumuza gerçekten üzüldük. Yaşadığınız sorunu kısaca anlatır mısınız? Söyledikleriniz doğrudan ekibimize iletilecek.',
  recommend: 'Son olarak, bizi bir arkadaşınıza ya da yakınınıza tavsiye eder misiniz?',
  callback: 'Yaşadığınız sorunla ilgili bir müşteri temsilcimizin sizi geri aramasını ister misiniz?',
  endCallback: 'Talebinizi aldık; bir müşteri temsilcimiz bir iş günü içinde sizi arayacak. Görüşleriniz için teşekkür ederiz, iyi günler dileriz.',
}

t.test('the Turkish survey runs turn by turn with no LLM and ends completed with its disposition', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { template: 'survey-tr' })
  const opening = await start(s, id)
  t.hasStrict(opening, {
    status: 'active',
    messages: [SURVEY.greeting, SURVEY.consent],
    reply: `${SURVEY.greeting} ${SURVEY.consent}`,
    node_id: 'ask_consent',
    ended: false,
    disposition: null,
  })
  const sid = opening.session_id as string

  const turns: [string, string[], string | null, Record<string, unknown>][] = [
    ['Evet, olur', [SURVEY.rating], 'ask_rating', { consent: true }],
    ['bilmiyorum', [SURVEY.ratingAgain], 'ask_rating', {}],
    ['2', [SURVEY.problem], 'ask_problem', { rating: 2 }],
    ['Teknisyen iki saat geç geldi.', [SURVEY.recommend], 'ask_recommend', { comment: 'Teknisyen iki saat geç geldi.' }],
    ['hayır', [SURVEY.callback], 'ask_callback', { would_recommend: false }],
  ]
  for (const [text, messages, node, vars] of turns) {
    const r = await say(s, id, sid, text)
    t.hasStrict(
      r,
      { session_id: sid, status: 'active', messages, reply: messages.join(' '), node_id: node, ended: false, disposition: null, variables: vars },
      `"${text}"`,
    )
    s.clock.advance(1000)
  }
  const last = await say(s, id, sid, 'evet lütfen')
  t.hasStrict(last, { status: 'completed', messages: [SURVEY.endCallback], node_id: null, ended: true, disposition: 'callback_requested' })
  t.same(last.variables, {
    company_name: 'Anadolu Teknik Servis',
    consent: true,
    rating: 2,
    comment: 'Teknisyen iki saat geç geldi.',
    would_recommend: false,
    callback_requested: true,
  })

  const after = await s.send('POST', `${sessionPath(id, sid)}/messages`, { body: { text: 'alo?' } })
  t.same(errorOf(after), { status: 409, code: 'session_ended' })

  const detail = (await s.send('GET', sessionPath(id, sid))).body
  t.hasStrict(detail, {
    id: sid,
    workflow_id: id,
    version: 1,
    channel: 'chat',
    status: 'completed',
    disposition: 'callback_requested',
    turn_count: 7,
    node_id: null,
    usage: { prompt_tokens: 0, completion_tokens: 0 },
    error_code: null,
    started_at: new Date(T0).toISOString(),
    ended_at: new Date(T0 + 5000).toISOString(),
  })
  t.equal(detail.turn_count, 1 + turns.length + 1, 'the opening and six caller turns; the refused message is not one')
  t.same(detail.variables, last.variables)
  t.same(detail.transcript, [
    { role: 'assistant', text: SURVEY.greeting },
    { role: 'assistant', text: SURVEY.consent },
    ...turns.flatMap(([text, messages]) => [{ role: 'user', text }, ...messages.map((m) => ({ role: 'assistant', text: m }))]),
    { role: 'user', text: 'evet lütfen' },
    { role: 'assistant', text: SURVEY.endCallback },
  ])

  const events = (await s.send('GET', `${sessionPath(id, sid)}/events`)).body as {
    seq: number
    kind: string
    data: Record<string, unknown>
    created_at: string
  }[]
  t.same(
    events.map((e) => e.seq),
    events.map((_, i) => i + 1),
    'seq counts up from 1 without gaps',
  )
  const kinds = new Set(events.map((e) => e.kind))
  for (const k of ['user_message', 'agent_message', 'variable', 'node', 'turn', 'end']) t.ok(kinds.has(k), `has ${k} events`)
  t.notOk(kinds.has('text_delta'), 'deltas are streamed, not stored')
  // The opening: nodes entered, its two lines, then the turn marker.
  t.same(
    events.slice(0, 5).map((e) => [e.kind, e.data.node_id ?? e.data.text ?? e.data.turn]),
    [
      ['node', 'start'],
      ['agent_message', SURVEY.greeting],
      ['node', 'ask_consent'],
      ['agent_message', SURVEY.consent],
      ['turn', 1],
    ],
  )
  t.hasStrict(events[5], { kind: 'user_message', data: { text: 'Evet, olur' } })
  t.hasStrict(
    events.find((e) => e.kind === 'variable'),
    { data: { name: 'consent', value: true } },
  )
  t.same(
    events.filter((e) => e.kind === 'user_message').map((e) => e.data.text),
    [...turns.map(([text]) => text), 'evet lütfen'],
  )
  t.same(
    events.filter((e) => e.kind === 'turn').map((e) => e.data.turn),
    [1, 2, 3, 4, 5, 6, 7],
  )
  t.hasStrict(events.at(-2), { kind: 'end', data: { disposition: 'callback_requested' } })
  t.hasStrict(events.at(-1), { kind: 'turn', data: { turn: 7, duration_ms: 0 } })
  t.ok(
    events.every((e, i) => i === 0 || e.created_at >= events[i - 1]!.created_at),
    'created_at never goes back',
  )
})

t.test('declining the survey ends it at once with disposition declined', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { template: 'survey-tr' })
  const { session_id: sid } = await start(s, id)
  const r = await say(s, id, sid, 'hayır, istemiyorum')
  t.hasStrict(r, { status: 'completed', ended: true, disposition: 'declined', node_id: null, variables: { consent: false } })
  t.same(errorOf(await s.send('POST', `${sessionPath(id, sid)}/messages`, { body: { text: 'evet' } })), { status: 409, code: 'session_ended' })
})

t.test('messages are validated before anything runs', async (t) => {
  const s = await setup(t)
  const id = await agent(s, { template: 'survey-tr' })
  const { session_id: sid } = await start(s, id)
  for (const body of [{}, { text: '   ' }, { text: 'x'.repeat(4001) }]) {
    t.equal((await s.send('POST', `${sessionPath(id, sid)}/messages`, { body })).status, 422, JSON.stringify(body).slice(0, 30))
  }
  t.same(errorOf(await s.send('POST', `${sessionPath(id, '00000000-0000-4000-8000-000000000000')}/messages`, { body: { text: 'evet' } })), {
    status: 404,
    code: 'not_found',
  })
  const other = await agent(s, { template: 'survey-tr' })
  t.same(errorOf(await s.send('GET', sessionPath(other, sid))), { status: 404, code: 'not_found' }, 'a session is found only under its own agent')
  t.equal((await s.send('GET', sessionPath(id, sid))).body.turn_count, 1, 'only the opening ran')
})
