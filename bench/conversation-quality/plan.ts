/**
 * What the conversation-quality corpus holds (issue #19, item 6): labelled situations, each one
 * web call, in English (espeak-ng voices en-us and en-gb) and Turkish (tr), at 140/175/210 words a
 * minute, in a pink- or brown-noise room. Pure: a seed and a size in, the item specs out (texts,
 * voices, rates, pauses, noise); corpus.ts turns them into audio.
 *
 * | type | what the caller does | what should happen |
 * |---|---|---|
 * | backchannel | "uh-huh", "yeah", "evet", "hı hı"… while the agent speaks | the agent talks on: no interrupt, no user turn |
 * | barge_in | a few words that take the turn, while the agent speaks | the agent stops (≤ 150 ms from the speech onset) and the turn is the caller's |
 * | noise | a cough or clicks while the agent speaks | the agent talks on |
 * | pause | one turn with a 300–900 ms pause inside, after a conjunction or mid-phrase | one turn (pauses ≤ 600 ms must never end it) |
 * | long_turn | a 6–10 s turn with only word gaps in it | one turn, not cut |
 * | fast_turns | three turns, each 100–300 ms after the agent's last audio | three turns, each answered |
 */

export type Lang = 'en' | 'tr'
export type SituationType = 'backchannel' | 'barge_in' | 'noise' | 'pause' | 'long_turn' | 'fast_turns'
export type RoomKind = 'pink' | 'brown'
export type Cue = 'continuation' | 'neutral'

/** One thing the caller says (or a sound it makes), before synthesis. */
export interface LineSpec {
  role: 'lead' | 'event' | 'turn'
  /** The words of each stretch of speech, as the STT should transcribe them; [] for a sound. */
  parts: string[]
  /** Silence between the two parts of a pause item. */
  pauseMs?: number
  cue?: Cue
  sound?: { kind: 'cough' | 'clicks'; seed: number; bursts?: 1 | 2; levelDbfs?: number }
}

export interface ItemSpec {
  id: string
  type: SituationType
  lang: Lang
  /** espeak-ng voice. */
  voice: string
  rateWpm: number
  /** Room noise under every frame the caller sends; its level is the speech's minus snrDb. */
  room: { kind: RoomKind; snrDb: number; seed: number }
  lines: LineSpec[]
  /** Over-agent items: the event line starts this long after the agent's reply audio began. */
  eventAfterReplyMs?: number
  /** fast_turns: how soon after the agent's last audio the caller speaks again. */
  turnGapMs?: number
  /** What should happen, for a human reading the manifest. */
  expect: string
}

export const VOICES: Record<Lang, string[]> = { en: ['en-us', 'en-gb'], tr: ['tr'] }
export const RATES_WPM = [140, 175, 210]
export const PAUSES_MS = [300, 450, 600, 750, 900]
/** Pauses up to this must never end a turn (the goal); longer ones may. */
export const PAUSE_GOAL_MAX_MS = 600

const BACKCHANNELS: Record<Lang, string[]> = { en: ['uh-huh', 'yeah', 'okay', 'mm-hmm'], tr: ['evet', 'hı hı', 'tamam'] }
const BARGE_INS: Record<Lang, string[]> = {
  en: [
    'wait a moment I have another question',
    'sorry can you repeat the time please',
    'no no I meant next Friday not this one',
    'hold on let me check my calendar',
  ],
  tr: ['bir dakika bekleyin başka bir sorum var', 'pardon saati tekrar söyler misiniz', 'hayır hayır gelecek cuma demek istedim'],
}
const LEADS: Record<Lang, string> = { en: 'I would like to book a table for two tonight', tr: 'yarın akşam için iki kişilik bir masa ayırtmak istiyorum' }
/** Two parts each; continuation ones end the first part on a conjunction (text-adaptive waits longer there). */
const PAUSE_LINES: Record<Lang, Record<Cue, string[][]>> = {
  en: {
    continuation: [
      ['I would like to book a table and', 'also order a birthday cake'],
      ['we are coming by car so', 'is there parking near the entrance'],
    ],
    neutral: [
      ['I would like to book a table', 'for two people tonight'],
      ['can you tell me', 'your opening hours on Sunday'],
    ],
  },
  tr: {
    continuation: [
      ['yarın akşam için bir masa ayırtmak istiyorum ve', 'bir de doğum günü pastası istiyorum'],
      ['arabayla geleceğiz ama', 'girişin yakınında otopark var mı'],
    ],
    neutral: [
      ['yarın akşam için iki kişilik', 'bir masa ayırtmak istiyorum'],
      ['pazar günü', 'saat kaçta açıksınız'],
    ],
  },
}
const LONG_TURNS: Record<Lang, string[]> = {
  en: [
    'I would like to book a table for two people tonight and my friend is vegetarian so we need a quiet corner near the window if you have one',
    'we are celebrating my parents anniversary next Saturday evening and we would like a private room for about twelve guests with a set menu',
  ],
  tr: [
    'yarın akşam için iki kişilik bir masa ayırtmak istiyorum ve arkadaşım vejetaryen olduğu için pencere kenarında sessiz bir köşe istiyoruz',
    'gelecek cumartesi akşamı annemle babamın evlilik yıldönümünü kutluyoruz ve yaklaşık on iki kişilik özel bir salon istiyoruz',
  ],
}
const FAST_TURNS: Record<Lang, string[]> = {
  en: ['please book it for us', 'eight o clock would be perfect', 'the name is Alex Morgan'],
  tr: ['lütfen bizim için ayırtın', 'saat sekiz çok uygun olur', 'adım Deniz Yılmaz'],
}
const EVENT_AFTER_REPLY_MS = [700, 1100, 1500]
const TURN_GAPS_MS = [100, 200, 300]
const SNRS_DB = [20, 25, 30, 35]

/** Every (voice, rate) of a language, in a fixed order. */
const combos = (lang: Lang) => VOICES[lang].flatMap((voice) => RATES_WPM.map((rateWpm) => ({ voice, rateWpm })))

export interface PlanOptions {
  quick: boolean
  seed: number
}

export function corpusPlan({ quick, seed }: PlanOptions): ItemSpec[] {
  const items: ItemSpec[] = []
  let n = 0
  const add = (type: SituationType, lang: Lang, voice: string, rateWpm: number, rest: Pick<ItemSpec, 'lines' | 'expect'> & Partial<ItemSpec>) => {
    const k = n++
    items.push({
      id: `${type}-${voice}-${rateWpm}-${String(k).padStart(2, '0')}`,
      type,
      lang,
      voice,
      rateWpm,
      room: { kind: k % 2 ? 'brown' : 'pink', snrDb: SNRS_DB[(k + seed) % SNRS_DB.length]!, seed: seed * 1000 + k },
      ...rest,
    })
  }
  const overAgent = (type: 'backchannel' | 'barge_in' | 'noise', lang: Lang, voice: string, rateWpm: number, event: LineSpec, expect: string) =>
    add(type, lang, voice, rateWpm, {
      lines: [{ role: 'lead', parts: [LEADS[lang]] }, event],
      eventAfterReplyMs: EVENT_AFTER_REPLY_MS[(n + seed) % EVENT_AFTER_REPLY_MS.length]!,
      expect,
    })
  const langs: Lang[] = ['en', 'tr']
  const pick = <T>(list: T[], i: number) => list[(i + seed) % list.length]!

  // Backchannels and barge-ins: every voice at every rate, two of each (one of each with --quick).
  for (const lang of langs) {
    const all = combos(lang)
    const chosen = quick ? [all[1]!] : all
    for (const [i, c] of chosen.entries()) {
      for (let j = 0; j < (quick ? 1 : 2); j++) {
        overAgent(
          'backchannel',
          lang,
          c.voice,
          c.rateWpm,
          { role: 'event', parts: [pick(BACKCHANNELS[lang], i * 2 + j)] },
          'agent talks on: no interrupt, no user turn',
        )
      }
    }
    const forBargeIn = quick ? [all[all.length - 1]!] : all
    for (const [i, c] of forBargeIn.entries()) {
      for (let j = 0; j < (quick ? 1 : 2); j++) {
        overAgent(
          'barge_in',
          lang,
          c.voice,
          c.rateWpm,
          { role: 'event', parts: [pick(BARGE_INS[lang], i * 2 + j)] },
          'agent stops within 150 ms of the onset; the caller has the turn',
        )
      }
    }
  }
  // Coughs and clicks over the agent.
  const noises = quick ? 1 : 8
  for (let i = 0; i < noises; i++) {
    const lang = langs[i % 2]!
    const c = combos(lang)[i % combos(lang).length]!
    const sound: LineSpec['sound'] =
      i % 2 === 0
        ? { kind: 'cough', seed: seed * 100 + i, bursts: i % 4 === 0 ? 2 : 1, levelDbfs: i % 4 === 0 ? -14 : -20 }
        : { kind: 'clicks', seed: seed * 100 + i }
    overAgent('noise', lang, c.voice, c.rateWpm, { role: 'event', parts: [], sound }, 'agent talks on: no interrupt, no user turn')
  }
  // Pauses inside one turn: every pause at both cues in both languages.
  const pauses = quick ? [PAUSE_GOAL_MAX_MS] : PAUSES_MS
  for (const lang of langs) {
    for (const cue of ['continuation', 'neutral'] as const) {
      for (const [i, pauseMs] of pauses.entries()) {
        if (quick && (lang === 'en') !== (cue === 'neutral')) continue
        const c = combos(lang)[(i + (cue === 'neutral' ? 1 : 0)) % combos(lang).length]!
        const parts = pick(PAUSE_LINES[lang][cue], i)
        add('pause', lang, c.voice, c.rateWpm, {
          lines: [{ role: 'turn', parts, pauseMs, cue }],
          expect: pauseMs <= PAUSE_GOAL_MAX_MS ? 'one turn: the pause must not end it' : 'one turn (a pause this long may end it)',
        })
      }
    }
  }
  if (!quick) {
    // Long turns at the middle and fast rates: at 140 wpm espeak's word gaps reach the STT's 200 ms split.
    for (const lang of langs) {
      for (const [i, text] of LONG_TURNS[lang].entries()) {
        const usable = combos(lang).filter((x) => x.rateWpm !== 140)
        const c = usable[(i + 1) % usable.length]!
        add('long_turn', lang, c.voice, c.rateWpm, { lines: [{ role: 'turn', parts: [text] }], expect: 'one turn, not cut before its end' })
      }
    }
  }
  for (let i = 0; i < (quick ? 1 : 4); i++) {
    const lang = langs[i % 2]!
    const c = combos(lang)[(i + 2) % combos(lang).length]!
    add('fast_turns', lang, c.voice, c.rateWpm, {
      lines: FAST_TURNS[lang].map((t) => ({ role: 'turn' as const, parts: [t] })),
      turnGapMs: TURN_GAPS_MS[i % TURN_GAPS_MS.length]!,
      expect: 'each turn answered, none merged or lost',
    })
  }
  return items
}

/** The words a line says, as one transcript ('' for a sound). */
export const lineText = (l: LineSpec): string => l.parts.join(' ')
