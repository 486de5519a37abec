import t from 'tap'
import { MAX_SPECULATIONS, SilenceStrategy, TextAdaptiveStrategy, type TurnStrategy } from '../../../engine/turn-taking/index.js'
import { drive, final, partial, speech } from './drive.js'

const strategies: Array<[string, () => TurnStrategy]> = [
  ['silence', () => new SilenceStrategy()],
  ['text-adaptive', () => new TextAdaptiveStrategy()],
]

for (const [name, make] of strategies) {
  t.test(`${name}: a stable final during the silence preempts once, and the turn keeps it`, async (t) => {
    const out = drive(make(), [...speech(0, 1000), final('book me for Friday', 1040)], 3000)
    t.same(out, [
      { type: 'preempt', text: 'book me for Friday', at: 1040 },
      { type: 'end_of_turn', at: 1300, text: 'book me for Friday', waitedMs: 300 },
    ])
  })

  t.test(`${name}: a final before speech_end preempts at speech_end`, async (t) => {
    const out = drive(make(), [...speech(0, 1000), final('book me for Friday', 900)], 3000)
    t.match(out, [
      { type: 'preempt', at: 1000 },
      { type: 'end_of_turn', at: 1300 },
    ])
  })

  t.test(`${name}: the user going on cancels the preempt, and the new text is preempted again`, async (t) => {
    const script = [...speech(0, 1000), final('book me for Friday', 1040), ...speech(1200, 1800), final('at noon', 1850)]
    t.same(drive(make(), script, 4000), [
      { type: 'preempt', text: 'book me for Friday', at: 1040 },
      { type: 'cancel_preempt', at: 1200 },
      { type: 'preempt', text: 'book me for Friday at noon', at: 1850 },
      { type: 'end_of_turn', at: 2100, text: 'book me for Friday at noon', waitedMs: 300 },
    ])
  })

  t.test(`${name}: speech the STT has not transcribed yet is waited for, not preempted on stale text`, async (t) => {
    const script = [...speech(0, 1000), final('yes', 1040), ...speech(1100, 1200)]
    t.same(
      drive(make(), script, 3000),
      [
        { type: 'preempt', text: 'yes', at: 1040 },
        { type: 'cancel_preempt', at: 1100 },
        { type: 'end_of_turn', at: 2700, text: 'yes', waitedMs: 1500 },
      ],
      'no words came (a cough): the turn ends on the earlier final after maxWaitForFinalMs',
    )
    const words = drive(make(), [...script, final('please', 1350)], 3000)
    t.same(
      words.slice(2),
      [
        { type: 'preempt', text: 'yes please', at: 1350 },
        { type: 'end_of_turn', at: 1500, text: 'yes please', waitedMs: 300 },
      ],
      'the words came: preempt on them and end on time',
    )
  })

  t.test(`${name}: new words without a VAD edge (a partial) cancel the preempt`, async (t) => {
    const script = [...speech(0, 1000), final('call me', 1020), partial('tomorrow', 1100)]
    const out = drive(make(), script, 4000)
    t.same(out.slice(0, 2), [
      { type: 'preempt', text: 'call me', at: 1020 },
      { type: 'cancel_preempt', at: 1100 },
    ])
    t.same(
      out.slice(2),
      [
        { type: 'preempt', text: 'call me tomorrow', at: 1160 },
        { type: 'end_of_turn', at: 2500, text: 'call me tomorrow', waitedMs: 1500 },
      ],
      'speculates on the partial once the silence reaches 150 ms; STT lag: ends with it, and keeps the speculation',
    )
  })

  t.test(`${name}: a partial is speculated on after 150 ms of silence, and a final with the same words keeps it`, async (t) => {
    const script = [...speech(0, 1000), partial('book me for Friday', 1060), final('book me for Friday', 1250)]
    t.same(
      drive(make(), script, 3000),
      [
        { type: 'preempt', text: 'book me for Friday', at: 1160 },
        { type: 'end_of_turn', at: 1300, text: 'book me for Friday', waitedMs: 300 },
      ],
      'no cancel and no second preempt: the final confirmed the speculation',
    )
  })

  t.test(`${name}: a pause shorter than speculateAfterMs is not speculated on`, async (t) => {
    const s = make()
    s.handle({ type: 'speech_start', at: 0 })
    s.handle(partial('book me', 900))
    t.same(s.handle({ type: 'speech_pause', at: 1000 }), [])
    t.same(s.handle({ type: 'tick', at: 1140 }), [], '140 ms of silence')
    t.same(s.handle({ type: 'speech_resume', at: 1145 }), [])
    t.same(s.handle({ type: 'tick', at: 1400 }), [], 'speaking again')
  })

  t.test(`${name}: a speculation missing the last word is replaced, and a final that differs cancels`, async (t) => {
    const grown = [...speech(0, 1000), partial('book me for', 1040), partial('book me for Friday', 1200), final('book me for Friday', 1250)]
    t.same(drive(make(), grown, 3000), [
      { type: 'preempt', text: 'book me for', at: 1160 },
      { type: 'cancel_preempt', at: 1200 },
      { type: 'preempt', text: 'book me for Friday', at: 1200 },
      { type: 'end_of_turn', at: 1300, text: 'book me for Friday', waitedMs: 300 },
    ])
    const changed = [...speech(0, 1000), partial('book me for Friday', 1040), final('Book me for Friday', 1250)]
    t.same(
      drive(make(), changed, 3000),
      [
        { type: 'preempt', text: 'book me for Friday', at: 1160 },
        { type: 'cancel_preempt', at: 1250 },
        { type: 'preempt', text: 'Book me for Friday', at: 1250 },
        { type: 'end_of_turn', at: 1300, text: 'Book me for Friday', waitedMs: 300 },
      ],
      'any other text, even in case or punctuation only, is another turn for the model',
    )
  })

  t.test(`${name}: no speculation while speaking, and at most MAX_SPECULATIONS per turn`, async (t) => {
    const s = make()
    t.same(s.handle({ type: 'speech_start', at: 0 }), [])
    t.same(s.handle(partial('bo', 300)), [], 'the caller is still speaking')
    t.same(s.handle({ type: 'speech_pause', at: 1000 }), [])
    t.same(s.handle({ type: 'tick', at: 1160 }), [], 'a partial from while the caller spoke is not speculated on')
    t.same(s.handle(partial('book', 1170)), [{ type: 'preempt', text: 'book', at: 1170 }], 'one sent after the speech went quiet is')
    const words = ['book me', 'book me for', 'book me for Friday', 'book me for Friday at']
    const out = words.flatMap((w, i) => s.handle(partial(w, 1180 + i * 20)))
    t.same(out.slice(0, 1), [{ type: 'cancel_preempt', at: 1180 }])
    t.same(out.filter((d) => d.type === 'preempt').length, MAX_SPECULATIONS - 1, `${MAX_SPECULATIONS} in all`)
    t.same(out.slice(-1), [{ type: 'cancel_preempt', at: 1220 }], 'past the cap a partial still cancels the stale speculation, and none follows')
    t.same(
      s.handle(final('book me for Friday at noon', 1250)),
      [{ type: 'preempt', text: 'book me for Friday at noon', at: 1250 }],
      'the final preempts as always',
    )
    t.match(s.handle({ type: 'tick', at: 1300 }), [{ type: 'end_of_turn', text: 'book me for Friday at noon' }])
    s.handle({ type: 'speech_start', at: 2000 })
    s.handle({ type: 'speech_pause', at: 2500 })
    t.same(s.handle(partial('thanks', 2660)), [{ type: 'preempt', text: 'thanks', at: 2660 }], 'a new turn speculates again')
  })

  t.test(`${name}: speculation times its silence from the refined edge; the end of turn keeps the VAD's`, async (t) => {
    const s = make()
    s.handle({ type: 'speech_start', at: 0 })
    t.same(s.handle({ type: 'speech_pause', at: 1000, edgeAt: 960 }), [])
    s.handle(partial('book me', 1010))
    t.same(s.handle({ type: 'tick', at: 1100 }), [], '140 ms after the edge')
    t.same(s.handle({ type: 'tick', at: 1120 }), [{ type: 'preempt', text: 'book me', at: 1120 }], "160 ms after the edge, 120 after the VAD's")
    t.same(s.handle(final('book me', 1200)), [], 'the final confirms it')
    t.same(s.handle({ type: 'tick', at: 1280 }), [])
    t.same(s.handle({ type: 'tick', at: 1300 }), [{ type: 'end_of_turn', at: 1300, text: 'book me', waitedMs: 300 }])
  })

  t.test(`${name}: a text the caller spoke on after is not speculated on again until the STT says more`, async (t) => {
    const s = make()
    s.handle({ type: 'speech_start', at: 0 })
    s.handle({ type: 'speech_pause', at: 1000 })
    s.handle(partial('pazar günü', 1050))
    t.same(s.handle({ type: 'tick', at: 1160 }), [{ type: 'preempt', text: 'pazar günü', at: 1160 }])
    t.same(s.handle({ type: 'speech_resume', at: 1200 }), [{ type: 'cancel_preempt', at: 1200 }])
    s.handle({ type: 'speech_pause', at: 1500 })
    t.same(s.handle(partial('pazar günü', 1550)), [], 'the same words again')
    t.same(s.handle({ type: 'tick', at: 1700 }), [], 'not speculated on: the caller went on after them')
    t.same(s.handle(partial('pazar günü saat', 1720)), [{ type: 'preempt', text: 'pazar günü saat', at: 1720 }], 'new words: speculated on')
  })

  t.test(`${name}: speech_resume cancels a speculation`, async (t) => {
    const s = make()
    s.handle({ type: 'speech_start', at: 0 })
    s.handle({ type: 'speech_pause', at: 1000 })
    t.same(s.handle(partial('book me', 1200)), [{ type: 'preempt', text: 'book me', at: 1200 }])
    t.same(s.handle({ type: 'speech_resume', at: 1250 }), [{ type: 'cancel_preempt', at: 1250 }])
  })

  t.test(`${name}: no preempt while the user is still speaking, or when disabled`, async (t) => {
    const s = make()
    t.same(s.handle({ type: 'speech_start', at: 0 }), [])
    t.same(s.handle(final('hello', 300)), [])
    t.same(s.handle({ type: 'tick', at: 320 }), [])
    const off = name === 'silence' ? new SilenceStrategy({ preemptive: false }) : new TextAdaptiveStrategy({ preemptive: false })
    t.match(drive(off, [...speech(0, 1000), final('hello', 1020)], 3000), [{ type: 'end_of_turn' }])
  })
}

t.test('text-adaptive: a question preempts and ends sooner; a trailing filler preempts and waits longer', async (t) => {
  t.same(drive(new TextAdaptiveStrategy(), [...speech(0, 1000), final('Is it open?', 1020)], 3000), [
    { type: 'preempt', text: 'Is it open?', at: 1020 },
    { type: 'end_of_turn', at: 1180, text: 'Is it open?', waitedMs: 180 },
  ])
  t.same(drive(new TextAdaptiveStrategy(), [...speech(0, 1000), final('Yani şey', 1020)], 3000), [
    { type: 'preempt', text: 'Yani şey', at: 1020 },
    { type: 'end_of_turn', at: 1600, text: 'Yani şey', waitedMs: 600 },
  ])
})

// The VAD reports a pause as soon as speech goes quiet and confirms the end only after its own
// bridging hangover (300 ms): the turn must not wait for that confirmation.
t.test('a speech_pause starts the silence clock: preempt on the final, end of turn 300 ms after the pause', async (t) => {
  const s = new SilenceStrategy()
  const feed = (e: Parameters<SilenceStrategy['handle']>[0]) => s.handle(e)
  t.same(feed({ type: 'speech_start', at: 0 }), [])
  t.same(feed({ type: 'speech_pause', at: 1000 }), [], 'delivered when noticed (~1 window late), dated when speech stopped')
  t.same(
    feed({ type: 'transcript', text: 'book me for Friday', final: true, at: 1250 }),
    [{ type: 'preempt', text: 'book me for Friday', at: 1250 }],
    'before the VAD confirms the end',
  )
  t.same(feed({ type: 'tick', at: 1280 }), [])
  t.same(feed({ type: 'tick', at: 1300 }), [{ type: 'end_of_turn', at: 1300, text: 'book me for Friday', waitedMs: 300 }])
  t.same(feed({ type: 'speech_end', at: 1000 }), [], 'the late confirmation changes nothing')
})

t.test('a speech_resume cancels the preempt but keeps the words heard: the turn ends after the next pause', async (t) => {
  const s = new SilenceStrategy()
  s.handle({ type: 'speech_start', at: 0 })
  s.handle({ type: 'speech_pause', at: 1000 })
  t.same(s.handle({ type: 'transcript', text: 'book me', final: true, at: 1100 }), [{ type: 'preempt', text: 'book me', at: 1100 }])
  t.same(s.handle({ type: 'speech_resume', at: 1150 }), [{ type: 'cancel_preempt', at: 1150 }])
  t.same(s.handle({ type: 'tick', at: 1400 }), [], 'speaking again: no end')
  t.same(s.handle({ type: 'speech_pause', at: 1500 }), [{ type: 'preempt', text: 'book me', at: 1500 }], 'ready again: preempted again')
  t.same(
    s.handle({ type: 'tick', at: 1800 }),
    [{ type: 'end_of_turn', at: 1800, text: 'book me', waitedMs: 300 }],
    'no new words came: the earlier final ends it',
  )
})

t.test('the VAD confirming an end after the turn already ended on its pause does not restart the silence clock', async (t) => {
  const s = new SilenceStrategy()
  s.handle({ type: 'speech_start', at: 0 })
  s.handle({ type: 'speech_pause', at: 1000 })
  s.handle({ type: 'transcript', text: 'when are you open', final: true, at: 1250 })
  t.match(s.handle({ type: 'tick', at: 1300 }), [{ type: 'end_of_turn', text: 'when are you open' }])
  t.same(s.handle({ type: 'speech_end', at: 1000 }), [], 'confirmed late')
  // The caller's next words: the STT's first partial comes before the VAD confirms the new speech.
  const noEnd = (ds: { type: string }[]) => ds.every((d) => d.type !== 'end_of_turn')
  t.ok(noEnd(s.handle({ type: 'transcript', text: 'hold', final: false, at: 3000 })), 'no end on a partial')
  t.ok(noEnd(s.handle({ type: 'transcript', text: 'hold', final: true, at: 3010 })), 'nor on its final: the silence counts from the words, not from 1000')
  t.same(s.handle({ type: 'speech_start', at: 2900 }), [{ type: 'cancel_preempt', at: 2900 }], 'the VAD catches up: the caller is speaking')
  t.same(s.handle({ type: 'tick', at: 4600 }), [], 'and nothing ends while they speak')
})

// The pipeline sets a timer for nextWakeAt(): a tick then must decide, and no earlier tick may.
t.test('nextWakeAt names the instant a tick decides, for speculation, end of turn and STT lag', async (t) => {
  const scripts: Record<string, Parameters<SilenceStrategy['handle']>[0][]> = {
    'final, then end': [{ type: 'speech_start', at: 0 }, { type: 'speech_pause', at: 1000, edgeAt: 990 }, final('book me', 1100)],
    'partial: speculation, then the lag end': [
      { type: 'speech_start', at: 0 },
      partial('bo', 900),
      { type: 'speech_pause', at: 1000, edgeAt: 972 },
      partial('book', 1010),
    ],
    'speculation, then a final that confirms it': [
      { type: 'speech_start', at: 0 },
      { type: 'speech_end', at: 1000, edgeAt: 985 },
      partial('book me', 1040),
      final('book me', 1230),
    ],
  }
  for (const [name, script] of Object.entries(scripts)) {
    for (const make of [() => new SilenceStrategy(), () => new TextAdaptiveStrategy()]) {
      const s = make()
      const pending = [...script]
      let wake: number | null = null
      const decided: number[] = []
      const wrong: string[] = []
      for (let at = 0; at <= 4000; at++) {
        while (pending.length && pending[0]!.at <= at) s.handle(pending.shift()!)
        const out = s.handle({ type: 'tick', at })
        if (out.length) decided.push(at)
        if (wake !== null && at < wake && out.length) wrong.push(`decided at ${at} before the wake at ${wake}`)
        if (wake !== null && at >= wake && !out.length) wrong.push(`the wake at ${wake} decided nothing at ${at}`)
        wake = s.nextWakeAt()
      }
      t.same(wrong, [], name)
      t.ok(decided.length >= 1, `${name}: decisions at ${decided.join(', ')}`)
    }
  }
})
