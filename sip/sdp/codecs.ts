import { fmtpOf, type RtpMap, rtpmapOf } from './attributes.js'
import type { SdpMedia } from './model.js'

/** The codecs this endpoint speaks: G.711 at 8 kHz, one channel (RFC 3551 §4.5.14). */
export type AudioCodec = 'PCMU' | 'PCMA'

export const AUDIO_CODECS: Readonly<Record<AudioCodec, { readonly payloadType: number; readonly clockRateHz: 8000 }>> = Object.freeze({
  PCMU: { payloadType: 0, clockRateHz: 8000 },
  PCMA: { payloadType: 8, clockRateHz: 8000 },
})

/** RFC 4733's named events this endpoint sends and receives: DTMF 0-9 * # A-D (0-15) and flash (16). */
export const DTMF_EVENTS: readonly number[] = Object.freeze(Array.from({ length: 17 }, (_, i) => i))

// RFC 3551 §6, Table 4: the static audio payload types, for an m= line that lists one without a=rtpmap.
const STATIC_AUDIO: ReadonlyMap<number, RtpMap> = new Map(
  (
    [
      [0, 'PCMU', 8000],
      [3, 'GSM', 8000],
      [4, 'G723', 8000],
      [5, 'DVI4', 8000],
      [6, 'DVI4', 16000],
      [7, 'LPC', 8000],
      [8, 'PCMA', 8000],
      [9, 'G722', 8000],
      [10, 'L16', 44100, 2],
      [11, 'L16', 44100],
      [12, 'QCELP', 8000],
      [13, 'CN', 8000],
      [14, 'MPA', 90000],
      [15, 'G728', 8000],
      [16, 'DVI4', 11025],
      [17, 'DVI4', 22050],
      [18, 'G729', 8000],
    ] as const
  ).map(([payloadType, encoding, clockRateHz, channels]) => [payloadType, { payloadType, encoding, clockRateHz, ...(channels ? { channels } : {}) }]),
)

/** What a format of an RTP m= line carries: its a=rtpmap, else the static table, else unknown. */
export function formatOf(media: SdpMedia, format: string): RtpMap | undefined {
  const payloadType = Number(format)
  return rtpmapOf(media, payloadType) ?? STATIC_AUDIO.get(payloadType)
}

/** PCMU or PCMA when the mapping is G.711 at 8000 Hz with one channel; names are case-insensitive (RFC 4855 §3). */
export function audioCodecOf(map: RtpMap | undefined): AudioCodec | undefined {
  if (map?.clockRateHz !== 8000 || (map.channels ?? 1) !== 1) return undefined
  const name = map.encoding.toUpperCase()
  return name === 'PCMU' || name === 'PCMA' ? name : undefined
}

/**
 * RFC 4733 §2.1: telephone-event must run at the clock rate of the audio it goes with; an offer
 * may list it at several rates (48000 for Opus, 8000 for G.711), and only 8000 fits ours.
 */
export function isTelephoneEvent8k(map: RtpMap | undefined): boolean {
  return map !== undefined && map.encoding.toLowerCase() === 'telephone-event' && map.clockRateHz === 8000 && (map.channels ?? 1) === 1
}

/**
 * The events an a=fmtp:<pt> lists ("0-15,66,70", RFC 4733 §2.4.1); without one, 0-15 are assumed.
 * A list that cannot be read is taken as the default too: DTMF is worth keeping.
 */
export function eventsOf(media: SdpMedia, format: string): Set<number> {
  const defaults = new Set(DTMF_EVENTS.slice(0, 16))
  const list = fmtpOf(media, format)
  if (list === undefined) return defaults
  const events = new Set<number>()
  for (const part of list.split(',')) {
    const m = /^\s*(\d{1,3})(?:\s*-\s*(\d{1,3}))?\s*$/.exec(part)
    if (!m) return defaults
    const from = Number(m[1])
    const to = m[2] === undefined ? from : Number(m[2])
    if (from > 255 || to > 255 || to < from) return defaults
    for (let e = from; e <= to; e++) events.add(e)
  }
  return events
}

/** Events as ranges: [0..16] is "0-16", [0..11, 15] is "0-11,15". */
export function formatEvents(events: Iterable<number>): string {
  const sorted = [...new Set(events)].sort((a, b) => a - b)
  const parts: string[] = []
  for (let i = 0; i < sorted.length; ) {
    let j = i
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++
    parts.push(j === i ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`)
    i = j + 1
  }
  return parts.join(',')
}
