/**
 * The conversation-quality corpus on disk: each item of plan.ts synthesized (espeak-ng speech,
 * synthesized coughs and clicks) into 16 kHz WAV files under a cache directory, with a
 * `manifest.json` that labels every line: its words per stretch of speech, and where each stretch
 * starts and ends in the line's audio. The directory is named by a hash of the plan and the
 * espeak-ng version, so a second run reuses it and any change rebuilds it.
 *
 * Every stretch of speech is checked as the STT stand-in will hear it (energy over 10 ms blocks,
 * a new utterance after 200 ms of quiet): one utterance per stretch, else the stand-in's scripted
 * transcripts would drift onto the wrong audio and the bench would score its own mistake.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { encodeWav, parseWav, rms, SAMPLE_RATE } from '../../engine/audio/index.js'
import { DEFAULT_SPEECH_RMS, speechSpanMs } from '../../engine/pipeline/providers/stand-ins/index.js'
import { concat, silence, speak } from '../../test/helpers/speech.js'
import { activeLevelDbfs, clicks, cough } from './noise.js'
import { corpusPlan, lineText, type ItemSpec, type LineSpec, type PlanOptions } from './plan.js'

/** Bump when the synthesis below changes what a plan produces. */
const CORPUS_VERSION = 1
/** The STT stand-in splits an utterance after this much quiet (its minPauseMs); a stretch must stay under it. */
const STAND_IN_SPLIT_MS = 200
/** Room noise never louder than this: the STT stand-in calls a 10 ms block above −34 dBFS speech. */
export const MAX_ROOM_DBFS = -42

export interface PartAt {
  text: string
  /** Where the stretch starts and ends in the line's audio (ms). */
  onsetMs: number
  endMs: number
  /** The stretch as the STT stand-in finds it (ScriptedUtterance.speechMs). */
  speechMs: number
}

export interface CorpusLine extends LineSpec {
  text: string
  /** WAV file, relative to the corpus directory. */
  file: string
  ms: number
  partsAt: PartAt[]
}

export interface CorpusItem extends Omit<ItemSpec, 'lines' | 'room'> {
  room: ItemSpec['room'] & { levelDbfs: number; speechDbfs: number }
  lines: CorpusLine[]
}

export interface Corpus {
  dir: string
  version: number
  seed: number
  quick: boolean
  espeak: string
  /** Whether this run synthesized it (false: reused from the cache). */
  built: boolean
  items: CorpusItem[]
}

/** The longest quiet run (ms) between the first and last loud 10 ms block, as the STT stand-in measures it. */
export function longestGapMs(pcm: Int16Array, threshold = DEFAULT_SPEECH_RMS): number {
  const block = SAMPLE_RATE / 100
  let lastLoud = -1
  let longest = 0
  for (let at = 0; at + block <= pcm.length; at += block) {
    if (rms(pcm.subarray(at, at + block)) < threshold) continue
    if (lastLoud >= 0) longest = Math.max(longest, ((at - lastLoud - block) * 1000) / SAMPLE_RATE)
    lastLoud = at
  }
  return longest
}

const msOf = (pcm: Int16Array) => (pcm.length * 1000) / SAMPLE_RATE

async function synthesizeLine(item: ItemSpec, line: LineSpec): Promise<{ pcm: Int16Array; partsAt: PartAt[] }> {
  if (line.sound) {
    const s = line.sound
    return { pcm: s.kind === 'cough' ? cough(s.seed, s.levelDbfs, s.bursts) : clicks(s.seed), partsAt: [] }
  }
  const pieces: Int16Array[] = []
  const partsAt: PartAt[] = []
  let at = 0
  for (const [i, text] of line.parts.entries()) {
    if (i > 0) {
      const gap = silence(line.pauseMs ?? 0)
      pieces.push(gap)
      at += msOf(gap)
    }
    const pcm = await speak(text, item.voice, { wordsPerMinute: item.rateWpm })
    const speechMs = speechSpanMs(pcm)
    const gapMs = longestGapMs(pcm)
    if (speechMs === 0) throw new Error(`corpus: "${text}" (${item.voice}, ${item.rateWpm} wpm) is silent to the STT stand-in`)
    if (gapMs >= STAND_IN_SPLIT_MS - 10) {
      throw new Error(
        `corpus: "${text}" (${item.voice}, ${item.rateWpm} wpm) has a ${gapMs} ms gap inside; the STT stand-in would split it (≥ ${STAND_IN_SPLIT_MS} ms)`,
      )
    }
    partsAt.push({ text, onsetMs: at, endMs: at + msOf(pcm), speechMs })
    pieces.push(pcm)
    at += msOf(pcm)
  }
  return { pcm: concat(...pieces), partsAt }
}

function espeakVersion(): string {
  try {
    return execFileSync('espeak-ng', ['--version'], { encoding: 'utf8' }).trim()
  } catch {
    throw new Error('espeak-ng is not installed (scripts/system-packages.txt): the conversation-quality corpus is synthesized with it')
  }
}

/** The cache directory of a plan: `<root>/<hash of plan + espeak-ng version + CORPUS_VERSION>`. */
export function corpusDir(root: string, plan: ItemSpec[], espeak: string): string {
  const hash = createHash('sha256').update(JSON.stringify({ CORPUS_VERSION, espeak, plan })).digest('hex').slice(0, 16)
  return path.join(root, hash)
}

export const DEFAULT_CORPUS_ROOT = path.join(os.tmpdir(), 'ozan-conversation-quality')

/** Builds the corpus of `options` under `root` (or reuses the one already there). */
export async function buildCorpus(options: PlanOptions, root = DEFAULT_CORPUS_ROOT): Promise<Corpus> {
  const plan = corpusPlan(options)
  const espeak = espeakVersion()
  const dir = corpusDir(root, plan, espeak)
  const manifestPath = path.join(dir, 'manifest.json')
  if (fs.existsSync(manifestPath)) return { ...(JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as Omit<Corpus, 'built'>), dir, built: false }
  fs.mkdirSync(dir, { recursive: true })
  const items: CorpusItem[] = []
  for (const item of plan) {
    const lines: CorpusLine[] = []
    let speechDbfs = -Infinity
    for (const [i, line] of item.lines.entries()) {
      const { pcm, partsAt } = await synthesizeLine(item, line)
      if (!line.sound) speechDbfs = Math.max(speechDbfs, activeLevelDbfs(pcm))
      const file = `${item.id}-${i}.wav`
      fs.writeFileSync(path.join(dir, file), encodeWav(pcm, SAMPLE_RATE))
      lines.push({ ...line, text: lineText(line), file, ms: msOf(pcm), partsAt })
    }
    // The room is set against the speech, never above what the STT stand-in would hear as speech.
    const levelDbfs = Math.round(Math.min(speechDbfs - item.room.snrDb, MAX_ROOM_DBFS) * 10) / 10
    items.push({ ...item, room: { ...item.room, levelDbfs, speechDbfs: Math.round(speechDbfs * 10) / 10 }, lines })
  }
  const corpus = { version: CORPUS_VERSION, seed: options.seed, quick: options.quick, espeak, items }
  // Written last: a directory without its manifest (an interrupted build) is rebuilt.
  fs.writeFileSync(manifestPath, JSON.stringify(corpus, null, 1))
  return { ...corpus, dir, built: true }
}

/** A line's audio as the caller sends it (16 kHz mono PCM16). */
export function linePcm(corpus: Pick<Corpus, 'dir'>, line: CorpusLine): Int16Array {
  const wav = parseWav(fs.readFileSync(path.join(corpus.dir, line.file)))
  if (wav.sampleRate !== SAMPLE_RATE || wav.channels !== 1) throw new Error(`corpus: ${line.file} is not 16 kHz mono`)
  return wav.samples
}
