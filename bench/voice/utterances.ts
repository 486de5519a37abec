/**
 * What the simulated callers say, in English and Turkish: turns (some with a short pause inside),
 * backchannels spoken while the agent talks ("uh-huh", "tamam") and interruptions (≥ 600 ms, a
 * few words). Audio is espeak-ng through the test helpers' conversion; each text is synthesized
 * once per run. Every spoken piece is one stretch of sound to the Deepgram stand-in (inner pauses
 * stay under its 200 ms word gap), so one `dg.script(text)` per piece keeps its queue in step.
 */
import { speechSpanMs } from '../../engine/pipeline/providers/stand-ins/index.js'
import { concat, silence, speak } from '../../test/helpers/speech.js'

export type Lang = 'en' | 'tr'

export interface Line {
  /** What the STT stand-in reports for it. */
  text: string
  pcm: Int16Array
  /** Its speech as the STT stand-in finds it (speechSpanMs), so the stand-in can place its words in time. */
  speechMs: number
}

export interface CallerScript {
  lang: Lang
  /** The agent config's language tag. */
  languageTag: string
  turns: Line[]
  backchannels: Line[]
  interruptions: Line[]
  /** What the LLM stand-in answers, a couple of sentences each (long enough to barge into). */
  replies: string[]
}

/** Below the Deepgram stand-in's 200 ms word gap and the engine's end-of-turn wait: one turn. */
const INNER_PAUSE_MS = 150

interface Text {
  turns: string[][]
  backchannels: string[]
  interruptions: string[]
  replies: string[]
}

const TEXT: Record<Lang, Text> = {
  en: {
    turns: [
      ['I would like to book a table for two tonight'],
      ['Can you tell me', 'your opening hours on Sunday'],
      ['Do you have any vegetarian dishes on the menu'],
      ['What is the address of the restaurant'],
      ['Is there parking', 'near the entrance'],
      ['Can I bring my dog with me'],
    ],
    backchannels: ['uh-huh', 'okay'],
    interruptions: ['wait a moment I have another question', 'sorry can you repeat the time please'],
    replies: [
      'Of course, I can help you with that. We have a table for two at eight tonight, shall I book it for you?',
      'We open at ten in the morning on Sundays and close at eleven at night. Is there anything else you need?',
      'Yes, we have several vegetarian dishes, including a mushroom risotto. Would you like to hear the full list?',
      'We are at twelve Harbour Street, right next to the old lighthouse. Do you need directions from your hotel?',
    ],
  },
  tr: {
    turns: [
      ['yarın akşam için iki kişilik bir masa ayırtmak istiyorum'],
      ['pazar günü', 'saat kaçta açıksınız'],
      ['menünüzde vejetaryen yemek var mı'],
      ['restoranın adresini söyler misiniz'],
      ['otopark var mı', 'girişin yakınında'],
      ['köpeğimi yanımda getirebilir miyim'],
    ],
    backchannels: ['evet', 'tamam'],
    interruptions: ['bir dakika bekleyin başka bir sorum var', 'pardon saati tekrar söyler misiniz'],
    replies: [
      'Elbette, size yardımcı olabilirim. Bu akşam saat sekizde iki kişilik bir masamız var, ayırtayım mı?',
      'Pazar günleri sabah onda açılıp gece on birde kapanıyoruz. Başka bir isteğiniz var mı?',
      'Evet, mantarlı risotto dahil birkaç vejetaryen yemeğimiz var. Tüm listeyi duymak ister misiniz?',
      'Liman Caddesi on iki numaradayız, eski deniz fenerinin hemen yanında. Otelinizden yol tarifi ister misiniz?',
    ],
  },
}

const cache = new Map<string, Promise<Int16Array>>()

/** espeak-ng speech, synthesized once per (text, voice) in this process. */
export function spoken(text: string, lang: Lang): Promise<Int16Array> {
  const key = `${lang}\u0000${text}`
  let pcm = cache.get(key)
  if (!pcm) {
    pcm = speak(text, lang)
    cache.set(key, pcm)
  }
  return pcm
}

/** Parts of one turn joined by short pauses; the STT stand-in hears them as one utterance. */
async function line(parts: string[], lang: Lang): Promise<Line> {
  const pcm: Int16Array[] = []
  for (const [i, p] of parts.entries()) {
    if (i > 0) pcm.push(silence(INNER_PAUSE_MS))
    pcm.push(await spoken(p, lang))
  }
  const all = concat(...pcm)
  return { text: parts.join(' '), pcm: all, speechMs: speechSpanMs(all) }
}

export async function callerScript(lang: Lang): Promise<CallerScript> {
  const t = TEXT[lang]
  const all = async (list: string[][]) => {
    const out: Line[] = []
    for (const parts of list) out.push(await line(parts, lang))
    return out
  }
  return {
    lang,
    languageTag: lang === 'en' ? 'en-US' : 'tr-TR',
    turns: await all(t.turns),
    backchannels: await all(t.backchannels.map((b) => [b])),
    interruptions: await all(t.interruptions.map((b) => [b])),
    replies: t.replies,
  }
}

/** The audio length of a line (ms). */
export const lineMs = (l: Line): number => (l.pcm.length * 1000) / 16_000
