import t from 'tap'
import { speechTextFor } from '../../../../engine/pipeline/text/speech-text.js'

t.test("the agent's language tag picks the locale the phrase is read in", async (t) => {
  t.equal(speechTextFor('tr-TR')('Toplam 1.250,50 TL.'), 'Toplam bin iki yüz elli lira elli kuruş.')
  t.equal(speechTextFor('tr')('Saat 14:30.'), 'Saat on dört otuz.')
  t.equal(speechTextFor('en-US')('It is $5 at 2:30 pm.'), 'It is five dollars at two thirty PM.')
  t.equal(speechTextFor('en-GB')('25% off'), 'twenty-five percent off')
})

t.test('a language the helpers do not speak passes through unchanged', async (t) => {
  t.equal(speechTextFor('de-DE')('Um 14:30 Uhr, 1.250,50 €'), 'Um 14:30 Uhr, 1.250,50 €')
  t.equal(speechTextFor('')('Room 42'), 'Room 42')
})
