/** Big-endian (network order, RFC 3550 §4) reads and writes on plain Uint8Arrays, with no bounds checks: callers check lengths first. */

export function readUint16(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!
}

export function readUint32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0
}

export function writeUint16(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >>> 8
  bytes[at + 1] = value
}

export function writeUint32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >>> 24
  bytes[at + 1] = value >>> 16
  bytes[at + 2] = value >>> 8
  bytes[at + 3] = value
}
