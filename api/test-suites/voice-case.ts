/**
 * A case over simulated voice: the same case through the real call engine as a call. The caller's
 * lines (scripted, or from the simulated caller) are synthesized by the agent's own text-to-speech
 * and streamed into the call in real time; the engine hears them through its VAD, speech-to-text
 * and turn-taking, runs the graph, and speaks back through playout. The case then measures, per
 * caller turn, the time from the end of the caller's speech to the agent's first audio, what the
 * speech-to-text heard, and whether a barge-in cut the agent; and its assertions are judged as
 * over text (latency ones too).
 */
import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import type { TestRunRow } from '../../db/index.js'
import { type AgentConfig, initialState, type RuntimeIO } from '../../engine/graph-runtime/index.js'
import type { LiveCalls } from '../../engine/calls/index.js'
import type { Engine } from '../../engine/index.js'
import { storedConfig, storedDefinition } from '../sessions/stored-agent.js'
import { callSpeech, type VoiceProviders } from '../sessions/voice-providers.js'
import { agentSegments, transcribe } from './agent-audio.js'
import { Recording } from './recording.js'
import { lineText, type SuiteSettings, type TestCaseT } from './schema.js'
import type { CaseOutcome } from './schema-runs.js'
import { nextCallerLine } from './simulated-caller.js'
import { caseTools } from './tool-mocks.js'
import { CaseError, NO_LLM, verdictOf } from './verdict.js'
import { CaseCallRecorder, TappedRuntime } from './voice-recording.js'
import { TestCallerLine } from './voice-line.js'
import type { CaseRan, VoiceCaseRunner } from './worker.js'

/** The agent is done speaking once no audio came for this long. */
export const AGENT_QUIET_MS = 800
/** A caller turn with no agent audio for this long is recorded as unanswered. */
export const ANSWER_TIMEOUT_MS = 15_000
/** Caller speech synthesized for one line, at most (16 kHz samples: 30 s). */
const MAX_LINE_SAMPLES = 30 * 16_000

export interface VoiceCaseDeps {
  startCall: Engine['startCall']
  /** The organization's live-call cap: a voice case is a call, and takes a slot as one does. */
  liveCalls: Pick<LiveCalls, 'acquire'>
  voiceFor(organizationId: string, config: AgentConfig): VoiceProviders
  runtimeIO(scope: { organizationId: string; environmentId: string }): RuntimeIO
}

type Turn = NonNullable<CaseOutcome['voice']>['turns'][number]
/** A caller line as it went: when its speech was sent, and when the agent's answer began (null: none). */
interface Said {
  text: string
  speechStart: number
  speechEnd: number
  answeredAt: number | null
}

/**
 * Per-turn measures: what was heard while the line was said (until the next line), the response
 * time, and whether the engine dropped agent audio then (a barge-in by this line).
 */
function turnsOf(said: Said[], heard: { at: number; text: string }[], clears: number[]): Turn[] {
  return said.map((s, i) => {
    const until = said[i + 1]?.speechStart ?? Number.POSITIVE_INFINITY
    const within = (at: number) => at >= s.speechStart && at < until
    return {
      turn: i + 1,
      caller_text: s.text,
      heard:
        heard
          .filter((h) => within(h.at))
          .map((h) => h.text)
          .join(' ') || null,
      response_ms: s.answeredAt === null ? null : Math.round(s.answeredAt - s.speechEnd),
      barge_in: clears.some(within),
    }
  })
}

export function voiceCaseRunner(deps: VoiceCaseDeps): VoiceCaseRunner {
  return async (c: TestCaseT, run: TestRunRow, signal: AbortSignal): Promise<CaseRan> => {
    const rec = new Recording()
    try {
      return { end: await voiceCase(deps, c, run, rec, signal) }
    } catch (err) {
      return { thrown: err, recording: rec }
    }
  }
}

async function voiceCase(deps: VoiceCaseDeps, c: TestCaseT, run: TestRunRow, rec: Recording, signal: AbortSignal) {
  const settings = JSON.parse(run.settings) as SuiteSettings
  const definition = storedDefinition(run.definition)
  const config = storedConfig(run.config)
  const scope = { organizationId: run.organization_id, environmentId: run.environment_id }
  const base = deps.runtimeIO(scope)
  const io = { ...base, tools: caseTools(c.tool_results, base.tools, settings.live_tools) }
  // Throws provider_not_configured (the case's error) when the agent's STT or TTS has no key.
  const voice = deps.voiceFor(run.organization_id, config)
  const runtime = new TappedRuntime(definition, config, io, initialState(definition, c.variables), { channel: 'web', session_id: run.id })
  runtime.onEvents = (events) => {
    for (const e of events) rec.event(e)
    rec.variables = runtime.state.variables
  }
  // Refused, not queued, as any call over the cap is (spec): the case ends as an error saying so.
  const release = deps.liveCalls.acquire(run.organization_id)
  if (!release)
    throw new CaseError(
      'concurrency_limit',
      "The organization's live calls are at its cap, and a voice test case is a call: run it when calls have ended, or raise the cap.",
    )
  const line = new TestCallerLine()
  const recorder = new CaseCallRecorder(rec, line.startedAt, run.id)
  const hangUp = () => line.hangUp()
  signal.addEventListener('abort', hangUp, { once: true })
  const said: Said[] = []
  try {
    deps.startCall({
      callId: `test-${randomUUID()}`,
      transport: line,
      prepared: { agent: config, runtime, ...callSpeech(voice), recorder },
      logFields: { test_run_id: run.id, organization_id: run.organization_id },
    })
    const caller = c.caller
    const opener = caller.type === 'scripted' ? caller.turns[0] : undefined
    if (opener !== undefined && typeof opener !== 'string') await agentStarted(line, line.startedAt, opener.interrupt_after_ms, signal)
    else await agentDone(line, line.startedAt, config.first_speaker === 'agent', signal)
    for (let turn = 0; !line.closed; turn++) {
      let text: string | null
      let hangUpAfter = false
      if (caller.type === 'scripted') {
        const next = caller.turns[turn]
        if (next === undefined) break
        text = lineText(next)
      } else {
        if (turn >= caller.max_turns) {
          rec.hungUp('turn_limit')
          break
        }
        if (!io.llm) throw new CaseError('provider_not_configured', `A simulated caller needs an LLM. ${NO_LLM}`)
        const next = await nextCallerLine(
          io.llm,
          { persona: caller.persona, goal: caller.goal, model: caller.model ?? config.llm.model, lines: rec.transcript },
          signal,
        )
        rec.usage.prompt_tokens += next.usage.prompt_tokens
        rec.usage.completion_tokens += next.usage.completion_tokens
        if (next.line === null) break
        text = next.line
        hangUpAfter = next.hangUpAfter
      }
      const pcm = await synthesize(voice, text, signal)
      const speechStart = performance.now()
      const speechEnd = await line.say(pcm)
      // The next scripted line may cut into this answer (a barge-in): then it waits only for the answer to start.
      const following = caller.type === 'scripted' ? caller.turns[turn + 1] : undefined
      const answeredAt =
        following !== undefined && typeof following !== 'string'
          ? await agentStarted(line, speechEnd, following.interrupt_after_ms, signal)
          : await agentDone(line, speechEnd, true, signal)
      said.push({ text, speechStart, speechEnd, answeredAt })
      if (hangUpAfter) break
    }
  } finally {
    signal.removeEventListener('abort', hangUp)
    line.hangUp()
    await Promise.race([recorder.done, new Promise((r) => setTimeout(r, 5000).unref())])
    release()
  }
  const turns = turnsOf(said, recorder.heard, line.clears)
  const agentHeard: { after_turn: number; text: string | null }[] = []
  for (const [i, frames] of agentSegments(
    line.agentAudio,
    said.map((s) => s.speechStart),
  ).entries())
    agentHeard.push({ after_turn: i, text: await transcribe(voice.stt, frames, voice.sttLanguage, signal) })
  signal.throwIfAborted()
  if (!rec.ended.ended) rec.hungUp(rec.ended.by === 'turn_limit' ? 'turn_limit' : 'caller')
  rec.variables = runtime.state.variables
  const measured = turns.flatMap((t) => (t.response_ms === null ? [] : [t.response_ms])).sort((a, b) => a - b)
  const voiceOutcome = {
    turns,
    barge_ins: turns.filter((t) => t.barge_in).length,
    response_ms_p50: measured.length ? measured[Math.floor((measured.length - 1) / 2)]! : null,
    response_ms_max: measured.length ? measured.at(-1)! : null,
    agent_heard: agentHeard,
  }
  const judgeModel = settings.judge_model ?? config.llm.model
  return verdictOf(c, rec, { llm: io.llm, judgeModel, voice: { responseMs: turns.map((t) => t.response_ms) }, voiceOutcome, signal })
}

/** The caller's line as speech, by the agent's own text-to-speech (16 kHz PCM16). */
async function synthesize(voice: VoiceProviders, text: string, signal: AbortSignal): Promise<Int16Array> {
  const chunks: Int16Array[] = []
  let samples = 0
  for await (const chunk of voice.tts.synthesize(text, { ...(voice.voice !== undefined && { voice: voice.voice }), language: voice.ttsLanguage, signal })) {
    chunks.push(chunk)
    samples += chunk.length
    if (samples > MAX_LINE_SAMPLES) break
  }
  const pcm = new Int16Array(Math.min(samples, MAX_LINE_SAMPLES))
  let at = 0
  for (const c of chunks) {
    pcm.set(c.subarray(0, pcm.length - at), at)
    at += Math.min(c.length, pcm.length - at)
  }
  return pcm
}

/** Waits until the agent's answer to what came after `after` starts, then `delayMs` more; its first audio's time, or null. */
async function agentStarted(line: TestCallerLine, after: number, delayMs: number, signal: AbortSignal): Promise<number | null> {
  for (;;) {
    signal.throwIfAborted()
    const first = line.agentFramesAfter(after)[0]
    if (first !== undefined) {
      await new Promise((r) => setTimeout(r, Math.max(0, first + delayMs - performance.now())))
      return first
    }
    if (line.closed || performance.now() - after >= ANSWER_TIMEOUT_MS) return null
    await new Promise((r) => setTimeout(r, 10))
  }
}

/**
 * Waits until the agent has answered what came after `after` and gone quiet; resolves with its
 * first audio's time, or null when it said nothing (or the call ended first).
 */
async function agentDone(line: TestCallerLine, after: number, expectSpeech: boolean, signal: AbortSignal): Promise<number | null> {
  for (;;) {
    signal.throwIfAborted()
    const now = performance.now()
    const frames = line.agentFramesAfter(after)
    if (frames.length && now - frames.at(-1)! >= AGENT_QUIET_MS) return frames[0]!
    if (line.closed) return frames[0] ?? null
    if (!frames.length && now - after >= (expectSpeech ? ANSWER_TIMEOUT_MS : 2 * AGENT_QUIET_MS)) return null
    await new Promise((r) => setTimeout(r, 20))
  }
}

/**
 * Lets the test-run worker run voice cases through a started call engine (`npm start` and `ozan`
 * call it once the engine listens; tests too).
 */
export function runVoiceCasesOn(
  engine: Pick<Engine, 'startCall'>,
  services: {
    testRunWorker: { useVoice(runner: VoiceCaseRunner): void }
    sessions: { voiceProviders: VoiceCaseDeps['voiceFor']; runtimeIO: VoiceCaseDeps['runtimeIO'] }
    webCalls: { liveCalls: VoiceCaseDeps['liveCalls'] }
  },
): void {
  services.testRunWorker.useVoice(
    voiceCaseRunner({
      startCall: (o) => engine.startCall(o),
      liveCalls: services.webCalls.liveCalls,
      voiceFor: (organizationId, config) => services.sessions.voiceProviders(organizationId, config),
      runtimeIO: (scope) => services.sessions.runtimeIO(scope),
    }),
  )
}
