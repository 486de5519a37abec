import type { SdpDirection } from './model.js'

// RFC 3264 §6.1's table, as flags: an answer's direction is the offer's seen from the other end,
// narrowed by what the answerer is willing to do.

export function canSend(direction: SdpDirection): boolean {
  return direction === 'sendrecv' || direction === 'sendonly'
}

export function canReceive(direction: SdpDirection): boolean {
  return direction === 'sendrecv' || direction === 'recvonly'
}

export function directionFrom(send: boolean, receive: boolean): SdpDirection {
  if (send) return receive ? 'sendrecv' : 'sendonly'
  return receive ? 'recvonly' : 'inactive'
}

/** The same stream from the other end: their sendonly is our recvonly. */
export function reverseDirection(direction: SdpDirection): SdpDirection {
  return directionFrom(canReceive(direction), canSend(direction))
}

/** What both allow. */
export function intersectDirections(a: SdpDirection, b: SdpDirection): SdpDirection {
  return directionFrom(canSend(a) && canSend(b), canReceive(a) && canReceive(b))
}
