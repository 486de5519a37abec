/**
 * The call's decisions, as a synchronous state machine: `handle(frame, now)` → commands. No I/O and
 * no timers: what happens is a command for the adapters to carry out, and when it next needs time
 * to pass is `wakeAt`, for whoever runs it to tick it then. Turn-taking (the strategy), barge-in
 * with backchannels and false-interruption resume, preemptive generation, the silence prompt and
 * timeout, the maximum duration and live control are decided here; tests drive it frame by frame
 * on a fake clock (test/engine/pipeline/call/controller*.test.ts).
 *
 * One voice turn: VAD edges and transcripts go to barge-in and to the end-of-turn strategy; an end
 * of turn starts a reply (`start_reply`), whose progress comes back as reply frames; its first
 * frame played makes the agent "speaking", which arms barge-in; `reply_heard` closes it with what
 * the caller heard, the only words recorded as said.
 */
import { isBackchannel } from '../../turn-taking/backchannels.js'
import { BargeIn, type BargeInDecision, type BargeInOptions, DEFAULT_BARGE_IN } from '../../turn-taking/barge-in.js'
import { CallerState, normalize } from './caller-state.js'
import { type ControllerOptions, type Step, TICK_MS, TIMER_SLACK_MS, transferFailedLine } from './controller-options.js'
import type { TurnDecision, TurnEvent } from '../../turn-taking/strategy.js'
import type { CallStatus, EndReason } from '../../server/protocol.js'
import type { ControllerFrame, ReplyFrame, SpeechEdgeFrame } from '../frames.js'
import { type Command, Outbox } from './commands.js'
import type { CallEndReason } from './recorder.js'
import { DtmfEntry, earliest } from './dtmf-entry.js'
import { newReply, noteTiming, noTiming, type Reply, reportHeard } from './replies.js'
import { LiveControl, noteWorkflowAction, takeWorkflowActions } from './live-control.js'

export class CallController {
  private readonly options: ControllerOptions
  private readonly bargeInOptions: BargeInOptions
  private readonly bargeIn: BargeIn
  private readonly out = new Outbox()
  private now = 0
  private started = false
  private ending = false
  private status: CallStatus = 'connecting'
  private startedAt = 0
  /** The reply being generated or spoken. */
  private turn: Reply | null = null
  /** Replies cut or finishing whose `reply_heard` is still to come. */
  private readonly closing = new Map<string, Reply>()
  private preempt: { text: string; startedAt: number } | null = null
  private userTurns = 0
  /** Control lines, a waiting `end`, the workflow's transfer: what the agent does when free. */
  private readonly control = new LiveControl()
  private readonly caller: CallerState
  private agentSpeaking = false
  private promptedStillThere = false
  private tickDueAt: number | null = null
  /** What a tick tells turn-taking, one object reused: they read it and keep nothing of it (20 ms, every call). */
  private readonly tickEvent: Extract<TurnEvent, { type: 'tick' }> = { type: 'tick', at: 0 }
  private strategyWakeAt: number | null = null
  private readonly dtmf = new DtmfEntry()

  constructor(options: ControllerOptions) {
    const { limits } = options
    if (!(limits.maxDurationMs > 0) || !(limits.silenceTimeoutMs > 0)) throw new RangeError('CallController: limits must be > 0')
    this.options = options
    this.caller = new CallerState(options.streamingStt)
    this.bargeInOptions = { ...DEFAULT_BARGE_IN, lang: options.language, ...options.bargeIn }
    this.bargeIn = new BargeIn(this.bargeInOptions)
  }

  get callStatus(): CallStatus {
    return this.status
  }

  handle(frame: ControllerFrame, now: number): Step {
    this.out.reset()
    this.now = now
    if (!this.ending) this.dispatch(frame)
    return { commands: this.out.commands, wakeAt: this.nextWakeAt }
  }

  private dispatch(f: ControllerFrame): void {
    // Before the start only the caller leaving (or the server stopping) means anything.
    if (!this.started && f.type !== 'call_start' && f.type !== 'caller_left' && f.type !== 'shutdown') return
    switch (f.type) {
      case 'call_start':
        return this.start(f.info)
      case 'speech_start':
      case 'speech_pause':
      case 'speech_resume':
      case 'speech_end':
        return this.onSpeechEdge(f)
      case 'transcript':
        return this.onTranscript(f.text, f.final)
      case 'tick':
        return this.onTick()
      case 'reply_text':
      case 'reply_audio':
      case 'reply_playing':
      case 'reply_step':
      case 'reply_warning':
      case 'reply_ends_call':
      case 'reply_heard':
        return this.onReply(f)
      case 'say':
      case 'transfer':
      case 'end':
        return this.onControl(f)
      case 'dtmf': {
        // A key press cuts the agent at once (a clear intent); `#` or a pause ends the entry (dtmf-entry.ts).
        this.out.record('dtmf', { digits: f.digits })
        this.caller.lastActivityAt = this.now
        if (this.turn?.speaking) this.interrupt(this.turn)
        const entry = this.dtmf.press(f.digits, this.now)
        return entry === null ? undefined : this.endOfTurn(entry, this.now)
      }
      case 'transfer_result':
        this.out.record('transfer_result', { ok: f.ok, reason: f.reason ?? null })
        if (f.ok) return this.finish('transfer', 'transfer')
        // Say so; a workflow's transfer then goes on by its failure edge (live-control.ts).
        this.control.transferFailed()
        return this.onControl({ type: 'say', text: transferFailedLine(this.options.language), interrupt: false })
      case 'mute':
        this.caller.muted = f.muted
        this.out.do({ type: 'mute_input', muted: f.muted })
        return this.out.record('mute', { muted: f.muted })
      case 'caller_left':
        // A socket's close code tells a hang-up from a dropped connection or a protocol breach.
        if (f.code !== undefined) this.out.record('socket_closed', { code: f.code, reason: f.reason ?? '' })
        if (f.how === 'protocol_error') return this.finish('protocol_error', 'protocol_error')
        return this.finish('client_stop', f.how === 'hangup' ? 'client_hangup' : 'dropped')
      case 'shutdown':
        return this.finish('server_shutdown', 'server_shutdown')
      case 'failure':
        this.out.emit({ type: 'error', code: f.code, message: f.message })
        this.out.record('error', { code: f.code, message: f.message })
        return this.finish('error', 'error')
    }
  }

  private start(info: Record<string, unknown> = {}): void {
    if (this.started) return
    this.started = true
    this.startedAt = this.caller.lastActivityAt = this.now
    this.tickDueAt = this.now + TICK_MS
    this.out.record('call_started', { language: this.options.language, ...info })
    this.out.do({ type: 'listen' })
    this.beginReply(newReply('turn-0', null, this.now), { type: 'greeting' })
  }

  // ── the caller ─────────────────────────────────────────────────────────────────────────────────

  private onSpeechEdge(e: SpeechEdgeFrame): void {
    const placed = 'edgeAt' in e && e.edgeAt !== undefined ? e.edgeAt : e.at
    // A turn is coming: its LLM and TTS requests find their connections open.
    if (e.type === 'speech_start' || e.type === 'speech_pause') this.out.do({ type: 'prewarm' })
    const finalize = this.caller.edge(e, placed, this.now)
    if (e.type === 'speech_start' || e.type === 'speech_end') this.out.record(e.type, { at: placed })
    if (finalize) this.out.do({ type: 'finalize_transcript' })
    this.turnEvent(e.type === 'speech_pause' || e.type === 'speech_end' ? { type: e.type, at: e.at, edgeAt: placed } : { type: e.type, at: e.at })
  }

  private onTranscript(raw: string, final: boolean): void {
    const text = normalize(raw)
    this.caller.transcript(text, final, this.now)
    if (!final && text) this.out.emit({ type: 'transcript', role: 'user', text, final: false, turnId: `turn-${this.userTurns + 1}`, interrupted: false })
    this.turnEvent({ type: 'transcript', text: raw, final, at: this.now })
  }

  private onTick(): void {
    const now = this.now
    if (this.caller.finalizeDue(now)) this.out.do({ type: 'finalize_transcript' })
    const entry = this.dtmf.due(now)
    if (entry !== null) this.endOfTurn(entry, now)
    if (now - this.startedAt >= this.options.limits.maxDurationMs) return this.finish('max_duration', 'max_duration')
    // A timer may fire a hair early (Node's timers count whole ms): that is the frame's tick too,
    // or it would be set again for the fraction left and fire twice.
    if (this.tickDueAt !== null && now >= this.tickDueAt - TIMER_SLACK_MS) this.tickDueAt = now + TICK_MS
    this.tickEvent.at = now
    this.turnEvent(this.tickEvent)
    const silentMs = this.caller.silentFor(now)
    if (this.ending || this.turn || this.caller.speaking || silentMs < this.options.limits.silenceTimeoutMs) return
    if (this.promptedStillThere) return this.finish('idle_timeout', 'idle_timeout')
    this.promptedStillThere = true
    const prompt = this.options.stillTherePrompt ?? (this.options.language.startsWith('tr') ? 'Orada mısınız?' : 'Are you still there?')
    this.out.record('still_there', {})
    this.beginReply(newReply(`prompt-${this.userTurns}`, null, now), { type: 'line', text: prompt })
  }

  // ── turn-taking ────────────────────────────────────────────────────────────────────────────────

  private turnEvent(e: TurnEvent): void {
    for (const b of this.bargeIn.handle(e)) this.onBargeIn(b)
    if (this.ending) return
    const decisions = this.options.strategy.handle(e)
    for (const d of decisions) {
      this.onDecision(d)
      if (this.ending) return
    }
    // A tick changes the strategy only through a decision: the frame ticks leave its wake as it was.
    if (e.type !== 'tick' || decisions.length > 0) this.strategyWakeAt = this.options.strategy.nextWakeAt?.() ?? null
  }

  private onDecision(d: TurnDecision): void {
    switch (d.type) {
      case 'preempt':
        // The agent is busy (thinking or speaking): nothing to gain, and the runtime is taken; or
        // the workflow has ended at a transfer node, awaiting its outcome (nothing to answer with).
        if (this.turn || this.preempt || this.control.holdsTurns) return
        this.preempt = { text: d.text, startedAt: this.now }
        this.out.do({ type: 'preempt', text: d.text })
        return this.out.record('preempt', { text: d.text })
      case 'cancel_preempt':
        if (!this.preempt) return
        // The caller went on: the words come back in a longer turn, so this one is forgotten. Its
        // request took a warm connection, and a cancelled stream's connection is closed.
        this.out.do({ type: 'drop_preempt' })
        this.out.do({ type: 'prewarm' })
        this.preempt = null
        return this.out.record('cancel_preempt', {})
      case 'end_of_turn':
        return this.endOfTurn(d.text, d.at)
    }
  }

  private onBargeIn(b: BargeInDecision): void {
    this.out.record(`barge_in_${b.type}`, { ...b })
    if (b.type === 'pause') {
      this.out.do({ type: 'pause_playout' })
      if (this.turn?.speaking) this.turn.timing.bargeInStopMs = Math.max(0, Math.round(this.now - this.caller.speechHeardAt))
    } else if (b.type === 'resume') this.out.do({ type: 'resume_playout' })
    else if (this.turn?.speaking) this.interrupt(this.turn)
    else this.out.do({ type: 'resume_playout' })
  }

  private endOfTurn(raw: string, at: number): void {
    let text = normalize(raw)
    if (!text) return
    const current = this.turn
    // A reply heard in part whose workflow ended at a transfer node: cutting it does not bring the
    // workflow back (one dropped unheard is undone, and these words are answered instead).
    const transferring = current !== null && current.speaking && current.transferTo !== null
    if (current) {
      if (current.speaking) {
        // Words over the agent that did not interrupt it: a backchannel leaves it talking.
        if (!this.bargeInOptions.backchannelsInterrupt && isBackchannel(text, this.options.language, this.bargeInOptions.backchannels)) {
          return this.out.record('backchannel', { text })
        }
        this.interrupt(current)
      } else {
        // The caller added words before the reply was heard: answer everything they said.
        if (current.userText !== null) {
          text = `${current.userText} ${text}`
          this.userTurns--
        }
        this.drop(current)
      }
    }
    // The workflow ended at a transfer node (its message perhaps cut by these words) and waits to
    // hear how the transfer went: there is no turn to take until then.
    if (this.control.holdsTurns || transferring) return this.out.record('turn_ignored', { text, why: 'transfer_pending' })
    const id = `turn-${++this.userTurns}`
    this.promptedStillThere = false
    this.out.emit({ type: 'transcript', role: 'user', text, final: true, turnId: id, interrupted: false })
    this.out.do({ type: 'record', entry: { type: 'transcript', role: 'user', text, interrupted: false, turnId: id } })
    const preempted = this.preempt !== null && this.preempt.text === text
    const startedAt = preempted ? this.preempt!.startedAt : this.now
    if (preempted) this.out.record('preempt_used', { text })
    // Superseded by the words that ended the turn: forgotten, not kept as said.
    else if (this.preempt) this.out.do({ type: 'drop_preempt' })
    this.preempt = null
    this.setStatus('thinking')
    const timing = { ...noTiming(), speechEndAt: this.caller.lastSpeechEndAt, finalAt: this.caller.lastFinalAt, endOfTurnAt: at }
    this.beginReply(newReply(id, text, startedAt, timing), { type: 'answer', text, preempted })
  }

  // ── replies ────────────────────────────────────────────────────────────────────────────────────

  private beginReply(r: Reply, origin: Extract<Command, { type: 'start_reply' }>['origin']): void {
    this.turn = r
    this.out.do({ type: 'start_reply', replyId: r.id, origin })
  }

  private onReply(f: ReplyFrame): void {
    if (f.type === 'reply_heard') return this.onHeard(f)
    const r = this.turn
    // A reply that was cut or dropped may still report on its way out: its data and control
    // frames are dropped (frames.ts, lanes).
    if (!r || r.id !== f.replyId || r.interrupted) return
    switch (f.type) {
      case 'reply_text':
      case 'reply_audio':
        return noteTiming(r, f)
      case 'reply_playing':
        if (r.speaking) return
        r.speaking = true
        r.timing.firstFrameAt = f.at
        this.setStatus('speaking')
        return this.setAgentSpeaking(true)
      case 'reply_step':
        noteWorkflowAction(r, f.name, f.data)
        return this.out.record(f.name, f.data)
      case 'reply_warning':
        this.out.emit({ type: 'error', code: f.code, message: f.message })
        return this.out.record('runtime_error', { code: f.code, message: f.message })
      case 'reply_ends_call':
        r.endsCall = true
        return this.out.record('runtime_end', { disposition: f.disposition })
    }
  }

  /** The caller took the turn (or control cut in): stop the reply, keep only what was heard. */
  private interrupt(r: Reply): void {
    if (r.interrupted) return
    r.interrupted = true
    this.closing.set(r.id, r)
    this.out.do({ type: 'clear_caller_audio' })
    // reply_heard comes back while this command runs: the cut line is recorded before what follows.
    this.out.do({ type: 'interrupt_reply', replyId: r.id })
    this.settle(r)
    this.setStatus('listening')
  }

  /** A reply nothing of which was heard: dropped, nothing recorded. */
  private drop(r: Reply): void {
    r.interrupted = true
    this.out.do({ type: 'cancel_reply', replyId: r.id })
    if (this.turn === r) this.turn = null
  }

  /** The agent stopped speaking this reply: barge-in disarms, silence counts from now. */
  private settle(r: Reply): void {
    if (this.turn === r) this.turn = null
    this.setAgentSpeaking(false)
    this.caller.lastActivityAt = this.now
  }

  /** A reply is over, heard in full or cut: the agent's words as heard, its gaps and metrics; then what comes next. */
  private onHeard(f: Extract<ReplyFrame, { type: 'reply_heard' }>): void {
    const cut = this.closing.get(f.replyId)
    if (cut) {
      this.closing.delete(f.replyId)
      reportHeard(this.out, cut, f.heard, true, f.gaps)
      return void this.carryOutActions(cut)
    }
    const r = this.turn
    if (f.interrupted || !r || r.id !== f.replyId || r.interrupted) return
    this.settle(r)
    reportHeard(this.out, r, f.heard, false, f.gaps)
    if (this.carryOutActions(r)) return
    if (r.endsCall) return this.finish('agent_ended', 'agent_ended')
    this.afterReply()
  }

  // ── live control ───────────────────────────────────────────────────────────────────────────────

  private onControl(f: Extract<ControllerFrame, { type: 'say' | 'transfer' | 'end' }>): void {
    const { type, ...rest } = f
    this.out.record('control', { action: type, ...rest })
    switch (f.type) {
      case 'say': {
        const current = this.turn
        if (f.interrupt && current) {
          if (current.speaking) this.interrupt(current)
          // Not heard yet: the reply is dropped, as when the caller adds words before it plays.
          else this.drop(current)
        }
        this.control.say(f.text)
        return this.afterReply()
      }
      case 'end':
        if (f.immediately || (!this.turn && !this.control.hasLines)) return this.finish('ended_by_api', 'ended_by_api')
        return this.control.endWhenDone()
      case 'transfer':
        this.out.emit({ type: 'transfer', target: f.target })
        return this.options.transferWaits ? undefined : this.finish('transfer', 'transfer')
    }
  }

  /** The agent is free: a control line, the `end` control waited for, the workflow after a failed transfer, or listening. */
  private afterReply(): void {
    if (this.ending || this.turn) return
    const next = this.control.next()
    if (next?.kind === 'line') return this.beginReply(newReply(next.id, null, this.now), { type: 'line', text: next.text })
    if (next?.kind === 'end') return this.finish('ended_by_api', 'ended_by_api')
    if (next?.kind === 'resume_workflow') return this.beginReply(newReply(next.id, null, this.now), { type: 'transfer_failed' })
    this.setStatus('listening')
  }

  /**
   * Sends the keys a reply pressed and makes its transfer (live-control.ts). True when the call now
   * waits on the transfer or is over (a transport that does not carry transfers out ends the call).
   */
  private carryOutActions(r: Reply): boolean {
    const { digits, transferTo } = takeWorkflowActions(r)
    if (digits) this.out.emit({ type: 'send_dtmf', digits })
    if (transferTo === null || this.ending) return false
    this.out.emit({ type: 'transfer', target: transferTo })
    if (!this.options.transferWaits) return (this.finish('transfer', 'transfer'), true)
    this.control.workflowTransferOut()
    this.setStatus('listening')
    return true
  }

  // ── output ─────────────────────────────────────────────────────────────────────────────────────

  private setAgentSpeaking(speaking: boolean): void {
    if (this.agentSpeaking === speaking) return
    this.agentSpeaking = speaking
    for (const b of this.bargeIn.handle({ type: 'agent_speaking', speaking, at: this.now })) this.onBargeIn(b)
  }

  private setStatus(status: CallStatus): void {
    if (this.status === status || this.ending) return
    this.status = status
    this.out.emit({ type: 'status', status })
  }

  /** Ends the call once; the adapters stop everything on `end_call`. */
  private finish(reason: EndReason, recorded: CallEndReason): void {
    if (this.ending) return
    this.ending = true
    this.status = 'ended'
    this.turn = null
    this.preempt = null
    this.out.do({ type: 'end_call', reason, recorded })
  }

  /** When the controller next needs to be ticked (clock ms), or null. */
  get nextWakeAt(): number | null {
    if (this.ending || !this.started) return null
    return earliest(this.tickDueAt, this.strategyWakeAt, this.caller.finalizeAt, this.dtmf.dueAt)
  }
}
