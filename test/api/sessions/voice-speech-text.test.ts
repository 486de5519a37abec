import t from 'tap'
import { synthesize } from '../../../api/sessions/voice.js'
import type { TtsProvider } from '../../../engine/pipeline/providers/tts/index.js'

// A text session's voice turn speaks its lines as calls do: numbers, money and times read as words
// in the agent's language before the TTS provider gets them; other languages pass through.

function recordingTts(): TtsProvider & { heard: string[] } {
  const heard: string[] = []
  return {
    name: 'recording',
    heard,
    async *synthesize(text: string) {
      heard.push(text)
      yield new Int16Array(160)
    },
  }
}

t.test('Turkish and English lines reach TTS as words; an unknown language as written', async (t) => {
  const signal = new AbortController().signal
  const tr = recordingTts()
  await synthesize(tr, ['Toplam 1.250,50 TL.', 'Randevunuz 14:30’da.'], { voice: undefined, language: 'tr-TR', signal })
  t.match(tr.heard[0], /bin iki yüz elli lira elli kuruş/)
  t.notMatch(tr.heard.join(' '), /\d/, 'no digits reach a Turkish voice')
  const en = recordingTts()
  await synthesize(en, ['It is $12.50 at 2:30 p.m.'], { voice: undefined, language: 'en-US', signal })
  t.match(en.heard[0], /twelve dollars and fifty cents/)
  const de = recordingTts()
  await synthesize(de, ['Es kostet 12,50 €.'], { voice: undefined, language: 'de-DE', signal })
  t.same(de.heard, ['Es kostet 12,50 €.'])
})
