// Outbound phone calls against SIPp as the callee (issue #21 items 5 and 8): POST /calls with
// channel phone answers 201 at once (queued), the INVITE leaves through the number's trunk (Digest
// when the carrier challenges), the callee's speech reaches the transcript, control `end` hangs up
// with BYE; busy and no-answer are recorded as such; over the cap the call is refused when it connects.
import t from 'tap'
import { freeUdpPort, runSipp, type SippRun, skipWithoutSipp } from '../helpers/sipp.js'
import { skipWithoutEspeak } from '../helpers/speech.js'
import { expectStatus } from '../helpers/tenancy-fixtures.js'
import { busyCalleeScenario, calleeScenario, transferredCalleeScenario, unansweredCalleeScenario } from './fixtures/scenarios.js'
import { type PhoneScene, phoneScene, speechPcap } from './scene.js'

const skip = (await skipWithoutSipp()) || (await skipWithoutEspeak())

/** SIPp waiting as the callee on a free port; resolves when its scenario ends. */
async function callee(scenario: string, files: Record<string, Buffer> = {}): Promise<{ port: number; done: Promise<SippRun> }> {
  const port = await freeUdpPort()
  const done = runSipp({ scenario, port, files, timeoutS: 45 })
  await new Promise((r) => setTimeout(r, 300)) // SIPp binds its socket
  return { port, done }
}

async function place(s: PhoneScene, from: string, workflowId: string) {
  const res = await s.a.request('POST', '/api/v1/calls', {
    token: s.owner.token,
    body: { channel: 'phone', from, to: '+15550142000', workflow_uuid: workflowId },
  })
  return expectStatus(res, 201, 'place call')
}

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, deadlineMs = 30_000): Promise<T> {
  const end = Date.now() + deadlineMs
  for (;;) {
    const v = await read()
    if (ok(v) || Date.now() > end) return v
    await new Promise((r) => setTimeout(r, 100))
  }
}

t.test('a placed call rings the callee through the trunk, hears it, and hangs up on control end', { skip }, async (t) => {
  const s = await phoneScene(t)
  const peer = await callee(calleeScenario({ digest: true }), { 'speech.pcap': await speechPcap('My name is Alice') })
  const line = await s.line({ trunk: { host: '127.0.0.1', port: peer.port, username: 'carrier-user', password: 'carrier-pass-1' } })
  s.dg.script('Alice')
  const created = await place(s, line.number, line.workflowId)
  t.match(created, { channel: 'phone', status: 'pending', phone_status: 'queued' })
  const detail = () => s.a.request('GET', `/api/v1/calls/${created.call_uuid}`, { token: s.owner.token }).then((r) => r.body)
  const heard = await until('the callee is heard', detail, (d) =>
    d.transcript?.some((l: { role: string; text: string }) => l.role === 'user' && l.text === 'Alice'),
  )
  t.match(heard, { status: 'active', phone_status: 'in-progress' }, 'answered: in progress')
  t.ok(
    heard.transcript.some((l: { role: string; text: string }) => l.role === 'user' && l.text === 'Alice'),
    'the callee’s words reached the transcript',
  )
  const ended = await s.a.request('POST', `/api/v1/calls/${created.call_uuid}/control`, { token: s.owner.token, body: { action: 'end', immediately: true } })
  t.same(ended.body, { receivers: 1 }, 'control reaches the phone call')
  const run = await peer.done
  t.equal(run.code, 0, 'SIPp saw 407 answered with credentials, the call, and our BYE', { diagnostic: true, output: run.output })
  const done = await until('recorded', detail, (d) => d.status === 'completed')
  t.match(done, { channel: 'phone', status: 'completed', phone_status: 'completed' })
})

t.test('a busy callee: phone_status busy; an unanswered one: cancelled after the ring timeout, no-answer', { skip }, async (t) => {
  const s = await phoneScene(t, { OZAN_SIP_RING_TIMEOUT_S: '2' })
  const busy = await callee(busyCalleeScenario())
  const busyLine = await s.line({ trunk: { host: '127.0.0.1', port: busy.port } })
  const one = await place(s, busyLine.number, busyLine.workflowId)
  t.equal((await busy.done).code, 0, 'SIPp answered 486 and got its ACK')
  const read = (id: string) => () => s.a.request('GET', `/api/v1/calls/${id}`, { token: s.owner.token }).then((r) => r.body)
  t.match(await until('busy', read(one.call_uuid), (d) => d.status === 'failed'), { status: 'failed', phone_status: 'busy', disposition: 'busy' })

  const silent = await callee(unansweredCalleeScenario())
  const silentLine = await s.line({ trunk: { host: '127.0.0.1', port: silent.port } })
  const two = await place(s, silentLine.number, silentLine.workflowId)
  t.match(await until('ringing', read(two.call_uuid), (d) => d.phone_status === 'ringing', 5000), { phone_status: 'ringing' })
  const run = await silent.done
  t.equal(run.code, 0, 'SIPp got our CANCEL, answered 487, got its ACK', { diagnostic: true, output: run.output })
  t.match(await until('no answer', read(two.call_uuid), (d) => d.status === 'failed'), { phone_status: 'no-answer' })
})

t.test('over the live-call cap, the call is refused when it connects (hung up, recorded refused)', { skip }, async (t) => {
  const s = await phoneScene(t, { OZAN_MAX_LIVE_CALLS_PER_ORG: '1' })
  const peer = await callee(calleeScenario(), { 'speech.pcap': await speechPcap('Hello') })
  const line = await s.line({ trunk: { host: '127.0.0.1', port: peer.port } })
  const release = s.a.services.webCalls.liveCalls.acquire(s.owner.organizationId)
  const created = await place(s, line.number, line.workflowId)
  t.equal(created.phone_status, 'queued', 'accepted when asked: the cap is checked on connect')
  const run = await peer.done
  release?.()
  t.equal(run.code, 0, 'answered, then our BYE came', { diagnostic: true, output: run.output })
  const d = await until(
    'refused',
    () => s.a.request('GET', `/api/v1/calls/${created.call_uuid}`, { token: s.owner.token }).then((r) => r.body),
    (x) => x.status === 'failed',
  )
  t.match(d, { status: 'failed', disposition: 'refused', error_code: 'concurrency_limit', phone_status: 'failed' })
})

t.test('POST /calls with channel phone: bad numbers are 422 at the field', { skip }, async (t) => {
  const s = await phoneScene(t)
  const line = await s.line()
  const post = (body: Record<string, unknown>) =>
    s.a.request('POST', '/api/v1/calls', { token: s.owner.token, body: { channel: 'phone', workflow_uuid: line.workflowId, ...body } })
  const cases: [Record<string, unknown>, string][] = [
    [{ from: line.number }, 'to'],
    [{ from: line.number, to: '05551234567' }, 'to'],
    [{ to: '+15550142000' }, 'from'],
    [{ from: '+15559999999', to: '+15550142000' }, 'from'],
  ]
  for (const [body, field] of cases) {
    const res = await post(body)
    t.equal(res.status, 422, JSON.stringify(body))
    t.ok(
      res.body.detail?.some((d: { loc: string[] }) => d.loc.join('.') === `body.${field}`),
      `at body.${field}`,
    )
  }
})

t.test('transfer: a REFER the callee accepts and completes ends the call; a refused one is said and the call goes on', { skip }, async (t) => {
  const s = await phoneScene(t)
  const read = (id: string) => () => s.a.request('GET', `/api/v1/calls/${id}`, { token: s.owner.token }).then((r) => r.body)
  const control = (id: string, body: Record<string, unknown>) => s.a.request('POST', `/api/v1/calls/${id}/control`, { token: s.owner.token, body })

  const ok = await callee(transferredCalleeScenario())
  const okLine = await s.line({ trunk: { host: '127.0.0.1', port: ok.port } })
  const one = await place(s, okLine.number, okLine.workflowId)
  await until('answered', read(one.call_uuid), (d) => d.status === 'active')
  t.same((await control(one.call_uuid, { action: 'transfer', target: '+1 555 019 9999' })).body, { receivers: 1 })
  const okRun = await ok.done
  t.equal(okRun.code, 0, 'REFER to the number, 202, NOTIFY 100 and 200, then our BYE', { diagnostic: true, output: okRun.output })
  t.match(await until('transferred', read(one.call_uuid), (d) => d.status === 'completed'), { status: 'completed', disposition: 'transfer' })

  const no = await callee(transferredCalleeScenario({ refuse: true }))
  const noLine = await s.line({ trunk: { host: '127.0.0.1', port: no.port } })
  const two = await place(s, noLine.number, noLine.workflowId)
  await until('answered', read(two.call_uuid), (d) => d.status === 'active')
  await control(two.call_uuid, { action: 'transfer', target: '+15550199999' })
  const said = await until('failure said', read(two.call_uuid), (d) =>
    d.transcript?.some((l: { role: string; text: string }) => l.role === 'assistant' && l.text.includes('could not transfer')),
  )
  t.ok(
    said.transcript.some((l: { role: string; text: string }) => l.text.includes('could not transfer')),
    'the agent says the transfer failed',
    {
      status: said.status,
      disposition: said.disposition,
      error: said.error_code,
      events: said.events?.map((e: { kind: string; data: unknown }) => `${e.kind} ${JSON.stringify(e.data).slice(0, 80)}`),
    },
  )
  t.equal(said.status, 'active', 'and the call goes on')
  await control(two.call_uuid, { action: 'end', immediately: true })
  t.equal((await no.done).code, 0, 'REFER declined, then our BYE when ended')
  t.match(await until('ended', read(two.call_uuid), (d) => d.status === 'completed'), { disposition: 'ended_by_api' })
})

t.test('a callee refusing our session interval with 422 is asked again at its Min-SE (RFC 4028 §7.3)', { skip }, async (t) => {
  const s = await phoneScene(t)
  const peer = await callee(calleeScenario({ minSe422: 3600 }), { 'speech.pcap': await speechPcap('Hello') })
  const line = await s.line({ trunk: { host: '127.0.0.1', port: peer.port } })
  const created = await place(s, line.number, line.workflowId)
  const detail = () => s.a.request('GET', `/api/v1/calls/${created.call_uuid}`, { token: s.owner.token }).then((r) => r.body)
  const up = await until('answered', detail, (d) => d.phone_status === 'in-progress')
  t.match(up, { phone_status: 'in-progress' }, 'the second INVITE was answered')
  await s.a.request('POST', `/api/v1/calls/${created.call_uuid}/control`, { token: s.owner.token, body: { action: 'end', immediately: true } })
  const run = await peer.done
  t.equal(run.code, 0, 'SIPp saw Session-Expires and Min-SE at 3600 in the INVITE after its 422', { diagnostic: true, output: run.output })
})
