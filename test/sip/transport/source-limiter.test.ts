// Per-source SIP rate limit (issue #21 item 10): a flood gets 503 once a second or is dropped, and
// the table of sources stays bounded whatever the number of sources.
import t from 'tap'
import { SourceLimiter } from '../../../sip/transport/index.js'

t.test('a source within its budget is accepted; past it, refused once per interval, then dropped', async (t) => {
  const l = new SourceLimiter({ burst: 3, perSecond: 1, refuseIntervalMs: 1000 })
  t.same(
    [0, 0, 0].map(() => l.admit('198.51.100.1', 0)),
    ['accept', 'accept', 'accept'],
  )
  t.equal(l.admit('198.51.100.1', 0), 'refuse', 'the first message over the budget is told (503)')
  t.equal(l.admit('198.51.100.1', 10), 'drop', 'the next ones in the same second are dropped silently')
  t.equal(l.admit('198.51.100.1', 500), 'drop')
  t.equal(l.admit('198.51.100.2', 500), 'accept', 'another source has its own budget')
  t.equal(l.retryAfterS('198.51.100.1'), 1)
  t.equal(l.admit('198.51.100.1', 1600), 'accept', 'a token earned back after a second')
  t.equal(l.admit('198.51.100.1', 1600), 'refuse', 'a new interval: told again once')
  t.same(l.stats(), { sources: 2, refused: 2, dropped: 2 })
})

t.test('a million spoofed sources never hold more than maxSources entries', async (t) => {
  const l = new SourceLimiter({ maxSources: 1000 })
  for (let i = 0; i < 1_000_000; i++) l.admit(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, i / 1000)
  t.equal(l.stats().sources, 1000)
})

t.test('the least recently seen source is forgotten first', async (t) => {
  const l = new SourceLimiter({ maxSources: 2, burst: 1, perSecond: 0.001 })
  l.admit('a', 0)
  l.admit('b', 0)
  l.admit('a', 0) // a is over budget now, and most recently seen
  l.admit('c', 0) // forgets b
  t.equal(l.admit('a', 0), 'drop', 'a is remembered (and still over budget)')
  t.equal(l.admit('b', 0), 'accept', 'b was forgotten: a fresh budget')
})

t.test('limits are checked up front', async (t) => {
  t.throws(() => new SourceLimiter({ burst: 0 }), RangeError)
  t.throws(() => new SourceLimiter({ perSecond: 0 }), RangeError)
  t.throws(() => new SourceLimiter({ maxSources: 0 }), RangeError)
})
