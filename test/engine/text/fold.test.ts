import t from 'tap'
import { fold } from '../../../engine/text/index.js'

t.test('fold lower-cases with Turkish rules and drops diacritics', async (t) => {
  t.equal(fold('EVET, Çok İyi!'), 'evet cok iyi')
  t.equal(fold('IŞIK'), 'isik', 'dotless ı folds to i')
})
