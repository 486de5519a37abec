import t from 'tap'
import { isBackchannel } from '../../../engine/turn-taking/index.js'

t.test('backchannels (en and tr), any case, punctuation or drawn-out spelling', async (t) => {
  for (const text of [
    'uh-huh',
    'Uh huh.',
    'mm-hmm',
    'Mhm',
    'mmmm',
    'yeah',
    'Yep!',
    'yes',
    'Okay.',
    'OK',
    'right',
    'sure',
    'I see',
    'got it',
    'yeah yeah',
    'okay, got it',
    'evet',
    'Evet.',
    'hı hı',
    'Hı hı',
    'hıhı',
    'HIHI',
    'tamam',
    'Tamam tamam',
    'peki',
    'anladım',
    'ANLADIM',
    'anladim',
    'olur',
    'he',
    'aynen',
    'doğru',
    'dogru',
    'tabii',
    'evet evet tamam',
  ])
    t.ok(isBackchannel(text), JSON.stringify(text))
})

t.test('anything else is not a backchannel', async (t) => {
  for (const text of [
    '',
    '   ',
    'stop',
    'wait',
    'yeah but wait',
    'no',
    'hayır',
    'bir dakika',
    'tamam ama',
    'okay so what about Friday',
    'evet evet evet evet evet',
    'I see a problem',
    'sure thing',
  ])
    t.notOk(isBackchannel(text), JSON.stringify(text))
})

t.test('lang narrows to one language; a custom list replaces the built-in ones', async (t) => {
  t.ok(isBackchannel('tamam', 'tr-TR'))
  t.notOk(isBackchannel('tamam', 'en-US'))
  t.notOk(isBackchannel('yeah', 'tr'))
  t.ok(isBackchannel('yeah', 'xx'), 'an unknown language uses both lists')
  t.ok(isBackchannel('Harika', undefined, ['harika', 'süper']))
  t.notOk(isBackchannel('evet', undefined, ['harika']))
})
