// Session-Expires, Min-SE and their negotiation (RFC 4028 §4, §5, §7, §9).
import t from 'tap'
import {
  DEFAULT_SESSION_TIMER,
  negotiateAsUac,
  negotiateAsUas,
  parseMinSe,
  retryAfter422,
  SessionExpires,
  sessionTimerRequestHeaders,
} from '../../../sip/dialog/index.js'
import { RFC3261_200, RFC3261_INVITE, request, response } from './helpers.js'

const invite = (...extra: string[]) => request([...RFC3261_INVITE, ...extra])
const ok = (...extra: string[]) => response([...RFC3261_200, ...extra])

t.test('Session-Expires MUST parse delta-seconds with an optional refresher and round-trip (RFC 4028 §4)', async (t) => {
  const se = SessionExpires.parse('4000;refresher=UAC;x=1')
  t.same([se?.deltaSeconds, se?.refresher, se?.serialize()], [4000, 'uac', '4000;refresher=uac;x=1'])
  t.same([SessionExpires.parse(' 1800 ')?.deltaSeconds, SessionExpires.parse('1800')?.refresher], [1800, undefined])
  t.equal(new SessionExpires(90, 'uas').serialize(), '90;refresher=uas')
  t.equal(parseMinSe('90'), 90)
  t.equal(parseMinSe('120;lr'), 120)
})

t.test('a malformed Session-Expires or Min-SE MUST be refused', async (t) => {
  for (const bad of [
    '',
    'abc',
    '-1',
    '1.5',
    '1800;refresher=proxy',
    '1800;refresher',
    '1800;;x',
    '4294967296',
    '12345678901',
    '1800;refresher=uac;refresher=uas',
  ]) {
    t.equal(SessionExpires.parse(bad), undefined, JSON.stringify(bad))
  }
  for (const bad of ['', 'x', '90 s', '99999999999']) t.equal(parseMinSe(bad), undefined, JSON.stringify(bad))
  t.throws(() => new SessionExpires(-1), RangeError)
  const decision = negotiateAsUas(invite('Session-Expires: soon'))
  t.same(decision, { kind: 'reject', status: 400, reason: 'Malformed Session-Expires header field' })
  t.same(negotiateAsUas(invite('Min-SE: 90', 'Min-SE: 120')), { kind: 'reject', status: 400, reason: 'Malformed Min-SE header field' }, 'repeated')
  t.same(negotiateAsUac(ok('x: 1800;refresher=nobody')), { ok: false, header: 'Session-Expires' }, 'the compact form too')
})

t.test('a UAS MUST answer 422 with its Min-SE when the interval is too small and the UAC supports timer (§9)', async (t) => {
  const policy = { ...DEFAULT_SESSION_TIMER, minSeS: 300 }
  t.same(negotiateAsUas(invite('Supported: timer', 'Session-Expires: 120'), policy), { kind: 'reject', status: 422, headers: [['Min-SE', '300']] })
  const unsupported = negotiateAsUas(invite('Session-Expires: 120'), policy)
  t.same(
    unsupported,
    { kind: 'accept', timer: { intervalS: 120, refresher: 'uas' }, headers: [['Session-Expires', '120;refresher=uas']] },
    'no 422 to a UAC that cannot read it; never lengthened',
  )
  const belowFloor = negotiateAsUas(invite('Session-Expires: 30'), policy)
  t.equal(belowFloor.kind === 'accept' && belowFloor.timer?.intervalS, 90, 'raised to the RFC floor of 90 s at most')
})

t.test('a UAS MAY shorten but MUST NOT lengthen the interval, nor go under the request Min-SE (§9)', async (t) => {
  const policy = { ...DEFAULT_SESSION_TIMER, intervalS: 600 }
  const shortened = negotiateAsUas(invite('Supported: timer', 'Session-Expires: 3600', 'Min-SE: 900'), policy)
  t.equal(shortened.kind === 'accept' && shortened.timer?.intervalS, 900, "not under the request's Min-SE")
  const kept = negotiateAsUas(invite('Supported: timer', 'Session-Expires: 400'), policy)
  t.equal(kept.kind === 'accept' && kept.timer?.intervalS, 400, 'never lengthened')
  const asked = negotiateAsUas(invite('Supported: timer', 'Session-Expires: 3600'), { ...policy, intervalS: undefined })
  t.equal(asked.kind === 'accept' && asked.timer?.intervalS, 3600, 'no preference: the asked interval')
})

t.test('the refresher MUST follow RFC 4028 Table 2 and refresher=uac MUST add Require: timer (§9)', async (t) => {
  const cases: Array<[string[], 'local' | 'remote', string, boolean]> = [
    [['Session-Expires: 1800'], 'remote', 'uas', false],
    [['Supported: timer', 'Session-Expires: 1800;refresher=uac'], 'local', 'uac', true],
    [['Supported: timer', 'Session-Expires: 1800;refresher=uas'], 'remote', 'uas', false],
    [['Supported: timer', 'Session-Expires: 1800'], 'local', 'uas', false],
    [['Supported: timer', 'Session-Expires: 1800'], 'remote', 'uac', true],
    [['Supported: 100rel, TIMER'], 'remote', 'uac', true],
  ]
  for (const [extra, preferRefresher, refresher, require] of cases) {
    const decision = negotiateAsUas(invite(...extra), { ...DEFAULT_SESSION_TIMER, preferRefresher })
    if (decision.kind !== 'accept') throw new Error('rejected')
    t.equal(decision.timer?.refresher, refresher, extra.join(' | '))
    t.equal(
      decision.headers.some(([n, v]) => n === 'Require' && v === 'timer'),
      require,
    )
  }
})

t.test('a UAS without a preferred interval MUST NOT start a timer nobody asked for', async (t) => {
  t.same(negotiateAsUas(invite(), { ...DEFAULT_SESSION_TIMER, intervalS: undefined }), { kind: 'accept', timer: undefined, headers: [] })
  const ours = negotiateAsUas(invite('Min-SE: 2000'))
  t.same(ours.kind === 'accept' && ours.timer, { intervalS: 2000, refresher: 'uas' }, 'our 1800 raised to their Min-SE')
})

t.test('a UAC MUST offer Supported: timer, Session-Expires and Min-SE (§7.1)', async (t) => {
  t.same(sessionTimerRequestHeaders(), [
    ['Supported', 'timer'],
    ['Session-Expires', '1800'],
    ['Min-SE', '90'],
  ])
  t.same(sessionTimerRequestHeaders({ ...DEFAULT_SESSION_TIMER, intervalS: undefined }), [['Supported', 'timer']])
})

t.test('a UAC MUST take the interval and refresher from the 2xx; none means no expiry (§7.2)', async (t) => {
  t.same(negotiateAsUac(ok('Session-Expires: 1200;refresher=uas')), { ok: true, timer: { intervalS: 1200, refresher: 'uas' } })
  t.same(negotiateAsUac(ok('Session-Expires: 1200')), { ok: true, timer: { intervalS: 1200, refresher: 'uac' } }, 'absent refresher: we refresh')
  t.same(negotiateAsUac(ok()), { ok: true, timer: undefined })
})

t.test('after a 422 the UAC MUST retry with the Min-SE it names, and not loop (§7.3)', async (t) => {
  const tooSmall = (...extra: string[]) =>
    response(['SIP/2.0 422 Session Interval Too Small', ...RFC3261_200.slice(1).filter((l) => !l.startsWith('Contact')), ...extra])
  const sent = { ...DEFAULT_SESSION_TIMER, intervalS: 600 }
  t.same(retryAfter422(tooSmall('Min-SE: 3600'), sent), { ...sent, minSeS: 3600, intervalS: 3600 })
  t.equal(retryAfter422(tooSmall('Min-SE: 600'), sent), undefined, 'no more than we sent')
  t.equal(retryAfter422(tooSmall(), sent), undefined, 'no Min-SE')
  t.equal(retryAfter422(tooSmall('Min-SE: x'), sent), undefined, 'unreadable Min-SE')
})
