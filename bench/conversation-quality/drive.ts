/**
 * Stages one situation of the corpus as a web call through the real engine (the voice bench's
 * engine child, callers and stand-ins: bench/voice/) and records what the caller saw
 * (run-types.ts). Each situation has its own Deepgram stand-in, so a stretch of audio the STT
 * heard differently than scripted can never shift the transcripts of the next situation.
 */
import { performance } from 'node:perf_hooks'
import { startDeepgramStandIn, type DeepgramStandIn, toneMs } from '../../engine/pipeline/providers/stand-ins/index.js'
import { Caller, firstAudioAfter, FramePacer, listeningAfter } from '../voice/caller.js'
import type { Org, Providers } from '../voice/setup.js'
import { linePcm, type Corpus, type CorpusItem, type CorpusLine } from './corpus.js'
import { roomNoise } from './noise.js'
import type { Lang } from './plan.js'
import type { SituationRun, SpokenLine } from './run-types.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)))

/** One lane of situations run one after another: its stand-ins and an agent per language. */
export interface Lane {
  providers: Providers
  orgs: Record<Lang, Org>
  apiUrl: string
  /** The speech stand-in's ms of tone per character (speech-server.ts toneMs). */
  ttsMsPerChar: number
  stt: { finalLatencyMs: { p50: number; p95: number }; interimEveryMs: number; seed: number }
}

/** What the agent says: long enough to speak over (≥ 4 s at 20 ms a character), or short, to keep turns quick. */
export const REPLIES: Record<Lang, { long: string; short: string }> = {
  en: {
    long: 'Of course, I can help you with that. We have a quiet table for two by the window at eight tonight, and the kitchen stays open until eleven. Shall I put the booking under your name and send you a confirmation?',
    short: 'Certainly, that is noted for you.',
  },
  tr: {
    long: 'Elbette, size yardımcı olabilirim. Bu akşam saat sekizde pencere kenarında iki kişilik sessiz bir masamız var ve mutfak on bire kadar açık. Rezervasyonu adınıza yapıp size bir onay göndereyim mi?',
    short: 'Tabii, hemen not ediyorum.',
  },
}

const STT_KEY = 'dg-conversation-quality'

async function useStt(lane: Lane, org: Org, dg: DeepgramStandIn): Promise<void> {
  const res = await fetch(`${lane.apiUrl}/api/v1/credentials`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${org.token}` },
    body: JSON.stringify({ provider: 'deepgram', fields: { api_key: STT_KEY, base_url: dg.url.replace(/^ws/, 'http') } }),
  })
  if (!res.ok) throw new Error(`PUT /api/v1/credentials: ${res.status} ${(await res.text()).slice(0, 200)}`)
}

/** The caller's view of a line, its stretches placed by their offsets in its audio (frames leave in real time). */
function spoken(line: CorpusLine, onsetAt: number, endAt: number): SpokenLine {
  return {
    role: line.role,
    text: line.text,
    onsetAt,
    endAt,
    parts: line.partsAt.map((p) => ({ text: p.text, onsetAt: onsetAt + p.onsetMs, endAt: onsetAt + p.endMs })),
    ...(line.pauseMs !== undefined && { pauseMs: line.pauseMs }),
    ...(line.cue && { cue: line.cue }),
    ...(line.sound && { sound: line.sound.kind }),
  }
}

/** Runs `item` as one call; never throws for what the engine did (that is scored), only for a broken harness. */
export async function runSituation(item: CorpusItem, corpus: Corpus, lane: Lane): Promise<SituationRun> {
  const p = lane.providers
  const org = lane.orgs[item.lang]
  const reply = REPLIES[item.lang]
  const overAgent = item.type === 'backchannel' || item.type === 'barge_in' || item.type === 'noise'
  // Every request of this call gets this answer, speculative ones included.
  p.llm.fallback({ text: overAgent ? reply.long : reply.short })
  const dg = await startDeepgramStandIn({
    apiKey: STT_KEY,
    finalLatencyMs: { ...lane.stt.finalLatencyMs, seed: lane.stt.seed + item.room.seed },
    interimEveryMs: lane.stt.interimEveryMs,
  })
  const pacer = new FramePacer(item.room.levelDbfs, roomNoise(item.room.kind, 4000, item.room.levelDbfs, item.room.seed))
  const run: SituationRun = {
    id: item.id,
    type: item.type,
    lang: item.lang,
    voice: item.voice,
    rateWpm: item.rateWpm,
    lines: [],
    audio: [],
    events: [],
    synthesis: [],
    engine: null,
  }
  let caller: Caller | null = null
  try {
    await useStt(lane, org, dg)
    caller = await Caller.connect(await org.mint(), pacer)
    const c = caller
    await c.event((e) => e.type === 'transcript' && e.role === 'agent' && e.final === true, 20_000, 0, 'greeting')
    await listeningAfter(c, c.lastAudioAt() ?? 0)
    const t0 = performance.now()
    const ttsFrom = p.speech.requests.length
    const say = async (line: CorpusLine) => {
      for (const part of line.partsAt) dg.script({ text: part.text, speechMs: part.speechMs })
      const u = await c.say(linePcm(corpus, line), line.text || line.sound?.kind || 'sound')
      run.lines.push(spoken(line, u.speechOnsetAt, u.speechEndAt))
      return u
    }
    const replyAfter = (t: number, timeoutMs: number) =>
      c
        .until(() => firstAudioAfter(c.timeline, t) !== null, timeoutMs, 'reply audio')
        .then(
          () => firstAudioAfter(c.timeline, t)!,
          () => null,
        )

    if (overAgent) {
      const [lead, event] = item.lines as [CorpusLine, CorpusLine]
      const u = await say(lead)
      const firstAt = await replyAfter(u.speechEndAt, 15_000)
      if (firstAt === null) run.harnessError = 'no reply to the lead turn: nothing to speak over'
      else {
        await sleep(firstAt + (item.eventAfterReplyMs ?? 1000) - performance.now())
        const e = await say(event)
        const from = e.speechOnsetAt
        const done =
          item.type === 'barge_in'
            ? (ev: { type: string; [k: string]: unknown }) => ev.type === 'clear'
            : (ev: { type: string; [k: string]: unknown }) => ev.type === 'clear' || (ev.type === 'transcript' && ev.role === 'agent' && ev.final === true)
        await c.until(() => c.timeline.events.some((x) => x.at >= from && done(x.event)), 20_000, 'the reply to end').catch(() => {})
        // Late arrivals: the cut turn's metrics, or a user turn made of the backchannel after the reply ended.
        await sleep(item.type === 'barge_in' ? 600 : 1500)
      }
    } else if (item.type === 'fast_turns') {
      for (const line of item.lines) {
        const u = await say(line)
        const firstAt = await replyAfter(u.speechEndAt, 12_000)
        if (firstAt === null) break
        await listeningAfter(c, firstAt).catch(() => {})
        await sleep(item.turnGapMs ?? 200)
      }
    } else {
      const line = item.lines[0]!
      const u = await say(line)
      await replyAfter(u.speechEndAt, 12_000)
      // A turn taken at the pause leaves the rest for a turn of its own: wait for every word to be a turn's.
      const wanted = line.text.split(/\s+/).length
      const turnWords = () =>
        c.timeline.events
          .filter((e) => e.at >= u.speechOnsetAt && e.event.type === 'transcript' && e.event.role === 'user' && e.event.final === true)
          .reduce(
            (n, e) =>
              n +
              String(e.event.text ?? '')
                .split(/\s+/)
                .filter(Boolean).length,
            0,
          )
      await c.until(() => turnWords() >= wanted, 4000, 'every word in a turn').catch(() => {})
      await sleep(300)
    }
    run.audio = c.timeline.audio.filter((a) => a.at >= t0)
    run.events = c.timeline.events.filter((e) => e.at >= t0)
    run.synthesis = p.speech.requests.slice(ttsFrom).map((r) => ({ receivedAt: r.receivedAt, text: r.text, toneMs: toneMs(r.text, lane.ttsMsPerChar) }))
    run.harnessError ??= sttDrift(item, dg) ?? undefined
  } catch (err) {
    run.harnessError = `call failed: ${err instanceof Error ? err.message : String(err)}`
  } finally {
    await caller?.hangUp(3000).catch(() => 0)
    await dg.close()
  }
  const callId = caller?.timeline.events.find((e) => e.event.type === 'hello')?.event.call_id
  if (typeof callId === 'string') run.engine = await engineRecord(lane, org, callId).catch(() => null)
  if (run.engine === null) run.harnessError ??= "the engine's record of the call could not be read"
  if (run.harnessError === undefined) delete run.harnessError
  return run
}

/** The engine's barge-in decisions and backchannels of one call, once its record is complete (`call_ended` written). */
async function engineRecord(lane: Lane, org: Org, callId: string): Promise<SituationRun['engine']> {
  const deadline = performance.now() + 5000
  for (;;) {
    const res = await fetch(`${lane.apiUrl}/api/v1/workflows/${org.agentId}/sessions/${callId}/events?limit=1000`, {
      headers: { authorization: `Bearer ${org.token}` },
    })
    if (!res.ok) throw new Error(`GET session events: ${res.status}`)
    const body = (await res.json()) as unknown
    const items = (Array.isArray(body) ? body : ((body as { items?: unknown[] }).items ?? [])) as Array<{ kind: string; data: Record<string, unknown> }>
    if (items.some((e) => e.kind === 'call_ended')) {
      return {
        bargeIn: items.filter((e) => e.kind.startsWith('barge_in_')).map((e) => e.kind.slice('barge_in_'.length) as 'pause' | 'resume' | 'interrupt'),
        backchannels: items.filter((e) => e.kind === 'backchannel').map((e) => String(e.data.text ?? '')),
      }
    }
    if (performance.now() > deadline) throw new Error('the call record has no call_ended event')
    await sleep(100)
  }
}

/**
 * The STT stand-in's transcripts must be the scripted words in order (a Finalize may split one
 * stretch in two, and a call may end before the last final): otherwise audio got another stretch's
 * words, and the situation did not happen as labelled.
 */
function sttDrift(item: CorpusItem, dg: DeepgramStandIn): string | null {
  const scripted = item.lines
    .flatMap((l) => l.partsAt.map((p) => p.text))
    .join(' ')
    .split(/\s+/)
    .filter(Boolean)
  const heard = dg.sessions
    .flatMap((s) => s.utterances)
    .filter((u) => !u.unscripted)
    .map((u) => u.text)
    .join(' ')
    .split(/\s+/)
    .filter(Boolean)
  const drifted = heard.length > scripted.length || heard.some((w, i) => w !== scripted[i])
  return drifted ? `the STT stand-in's transcripts drifted from the script: heard "${heard.join(' ')}", scripted "${scripted.join(' ')}"` : null
}
