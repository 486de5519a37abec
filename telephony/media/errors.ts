/**
 * The media path's errors, each with a stable code (CONVENTIONS 5): what the SIP side maps to a
 * response (503 when no ports are left) or reports to the agent (a refused DTMF string).
 */

/** Every even RTP port of the range (and its RTCP neighbour) is taken: by our calls or by other processes. */
export class PortsExhausted extends Error {
  readonly code = 'ports_exhausted'

  constructor(
    readonly minPort: number,
    readonly maxPort: number,
  ) {
    super(`no free RTP/RTCP port pair in ${minPort}-${maxPort}`)
    this.name = 'PortsExhausted'
  }
}

export type DtmfErrorCode = 'invalid_digit' | 'too_long' | 'not_negotiated' | 'closed'

/** sendDtmf refused its digits: characters outside 0-9 * # A-D, too many queued, no telephone-event in the SDP, or the call is over. */
export class DtmfError extends Error {
  constructor(
    readonly code: DtmfErrorCode,
    message: string,
  ) {
    super(message)
    this.name = 'DtmfError'
  }
}
