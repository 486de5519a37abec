/**
 * Bounds on what parseSdp reads. Each one reached is answered with a typed error, so no input can
 * make the parser allocate or scan past them. An audio call's SDP is 300-1,500 bytes; a softphone
 * offering a dozen codecs, video and ICE candidates stays under 6 KiB.
 */
export interface SdpLimits {
  /** Whole description, in bytes as received. */
  readonly maxBytes: number
  /** Lines of any type, blank ones included. */
  readonly maxLines: number
  /** Bytes of one line: bounds an attribute's value, a formats list, a session name. */
  readonly maxLineBytes: number
  /** m= sections. */
  readonly maxMediaSections: number
  /** Formats on one m= line. RTP has 128 payload types, so 64 admits any real offer. */
  readonly maxFormatsPerMedia: number
}

export const DEFAULT_SDP_LIMITS: SdpLimits = Object.freeze({
  maxBytes: 16_384,
  maxLines: 512,
  maxLineBytes: 2_048,
  maxMediaSections: 16,
  maxFormatsPerMedia: 64,
})

/** Limits that are not positive integers are a programming error: a RangeError, up front. */
export function resolveSdpLimits(partial: Partial<SdpLimits> = {}): SdpLimits {
  const limits = { ...DEFAULT_SDP_LIMITS, ...partial }
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`SDP limit ${name} must be a positive integer, got ${value}`)
  }
  return limits
}
