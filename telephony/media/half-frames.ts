/**
 * Regroups 10 ms halves into the 20 ms frames the jitter buffer plays, for peers that send 10 ms
 * or 30 ms packets (ptime 10 and 30 are common on some gateways; we ask for 20 and accept them).
 * Pure, fixed memory: a few slots of one 20 ms frame each, reused.
 *
 * Frames sit on a grid of RTP timestamps 160 apart, anchored on the first packet of the stream (a
 * new SSRC, or a timestamp off the 10 ms grid, re-anchors). A packet's 80-sample halves fill their
 * frame's slot; a full frame goes out at once. A frame still missing a half when a later frame
 * has begun goes out with that half silent (its packet was lost: 10 ms of silence
 * in a 20 ms frame beats dropping the 10 ms that came); so does the oldest, when the slots run out.
 */
import type { JitterPacket } from '../../sip/index.js'

const HALF = 80
const FRAME = 160
const SLOTS = 4
/**
 * How many frames behind the newest an incomplete one may wait for its other half. None: once a
 * later frame has begun, the missing half was lost (or reordered beyond use: the jitter buffer
 * is about to play that frame), and waiting longer would only make the frame arrive too late.
 */
const KEEP_FRAMES = 0

interface Slot {
  frame: number
  halves: number
  marker: boolean
  payloadType: number
  readonly payload: Uint8Array
}

export class HalfFrameAssembler {
  private ssrc: number | undefined
  private base = 0
  private newest = -1
  private readonly slots: Slot[] = Array.from({ length: SLOTS }, () => ({
    frame: -1,
    halves: 0,
    marker: false,
    payloadType: 0,
    payload: new Uint8Array(FRAME),
  }))
  /** Frames sent with a silent half (a lost 10 ms packet). */
  padded = 0
  /** Halves dropped: older than the frames still open. */
  late = 0

  /**
   * One packet of a whole number of 10 ms halves; its full frames go to `emit` (their payload is
   * valid during the call only). `silence` is the codec's byte for a silent sample.
   */
  push(packet: JitterPacket, silence: number, emit: (frame: JitterPacket) => void): void {
    const halves = packet.payload.length / HALF
    if (packet.ssrc !== this.ssrc || ((packet.timestamp - this.base) >>> 0) % HALF !== 0) this.anchor(packet, silence, emit)
    for (let k = 0; k < halves; k++) {
      const offset = (packet.timestamp + k * HALF - this.base) | 0
      if (offset < 0) {
        this.late++
        continue
      }
      const frame = Math.floor(offset / FRAME)
      if (frame < this.newest - KEEP_FRAMES) {
        this.late++
        continue
      }
      const slot = this.slotFor(frame, packet, silence, emit)
      const half = (offset % FRAME) / HALF
      slot.payload.set(packet.payload.subarray(k * HALF, (k + 1) * HALF), half * HALF)
      slot.halves |= 1 << half
      slot.marker ||= packet.marker && k === 0
      if (slot.halves === 3) this.send(slot, packet.ssrc, emit)
      if (frame > this.newest) this.newest = frame
    }
    // Frames the stream has moved past will not be completed: out with their silent half.
    for (const slot of this.slots) if (slot.frame >= 0 && slot.frame < this.newest - KEEP_FRAMES) this.pad(slot, silence, packet.ssrc, emit)
  }

  private anchor(packet: JitterPacket, silence: number, emit: (frame: JitterPacket) => void): void {
    if (this.ssrc !== undefined) for (const slot of this.slots) if (slot.frame >= 0) this.pad(slot, silence, this.ssrc, emit)
    this.ssrc = packet.ssrc
    this.base = packet.timestamp
    this.newest = -1
  }

  private slotFor(frame: number, packet: JitterPacket, silence: number, emit: (frame: JitterPacket) => void): Slot {
    let free: Slot | undefined
    let oldest: Slot | undefined
    for (const slot of this.slots) {
      if (slot.frame === frame) return slot
      if (slot.frame < 0) free ??= slot
      else if (!oldest || slot.frame < oldest.frame) oldest = slot
    }
    const slot = free ?? oldest!
    if (!free) this.pad(slot, silence, packet.ssrc, emit)
    slot.frame = frame
    slot.halves = 0
    slot.marker = false
    slot.payloadType = packet.payloadType
    return slot
  }

  private pad(slot: Slot, silence: number, ssrc: number, emit: (frame: JitterPacket) => void): void {
    for (let half = 0; half < 2; half++) if (!(slot.halves & (1 << half))) slot.payload.fill(silence, half * HALF, (half + 1) * HALF)
    this.padded++
    this.send(slot, ssrc, emit)
  }

  private send(slot: Slot, ssrc: number, emit: (frame: JitterPacket) => void): void {
    emit({ ssrc, timestamp: (this.base + slot.frame * FRAME) >>> 0, marker: slot.marker, payloadType: slot.payloadType, payload: slot.payload })
    slot.frame = -1
    slot.halves = 0
  }
}
