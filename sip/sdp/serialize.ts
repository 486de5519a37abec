import type { SdpAttribute, SdpBandwidth, SdpConnection, SdpMedia, SessionDescription } from './model.js'

/** One line's value: a CR or LF would end the line early and inject another (like SIP headers). */
function clean(value: string): string {
  return value.replace(/[\r\n\0]+/g, ' ')
}

function connectionLine(c: SdpConnection): string {
  const suffix = `${c.ttl === undefined ? '' : `/${c.ttl}`}${c.addressCount === undefined ? '' : `/${c.addressCount}`}`
  return `c=${c.netType} ${c.addrType} ${c.address}${suffix}`
}

const bandwidthLine = (b: SdpBandwidth) => `b=${b.type}:${b.value}`
const attributeLine = (a: SdpAttribute) => (a.value === undefined ? `a=${a.name}` : `a=${a.name}:${a.value}`)

function mediaLines(m: SdpMedia): string[] {
  const port = m.portCount === undefined ? `${m.port}` : `${m.port}/${m.portCount}`
  const lines = [`m=${m.type} ${port} ${m.proto} ${m.formats.join(' ')}`]
  if (m.title !== undefined) lines.push(`i=${m.title}`)
  lines.push(...m.connections.map(connectionLine), ...m.bandwidths.map(bandwidthLine))
  if (m.key !== undefined) lines.push(`k=${m.key}`)
  lines.push(...m.attributes.map(attributeLine))
  return lines
}

/** Writes a description in RFC 8866 §5's line order, each line ended by CRLF. */
export function serializeSdp(sdp: SessionDescription): string {
  const o = sdp.origin
  const lines = ['v=0', `o=${o.username} ${o.sessionId} ${o.sessionVersion} ${o.netType} ${o.addrType} ${o.address}`, `s=${sdp.sessionName}`]
  if (sdp.information !== undefined) lines.push(`i=${sdp.information}`)
  if (sdp.uri !== undefined) lines.push(`u=${sdp.uri}`)
  lines.push(...sdp.emails.map((e) => `e=${e}`), ...sdp.phones.map((p) => `p=${p}`))
  if (sdp.connection) lines.push(connectionLine(sdp.connection))
  lines.push(...sdp.bandwidths.map(bandwidthLine))
  for (const t of sdp.timings) lines.push(`t=${t.start} ${t.stop}`, ...t.repeats.map((r) => `r=${r}`))
  if (sdp.timeZones !== undefined) lines.push(`z=${sdp.timeZones}`)
  if (sdp.key !== undefined) lines.push(`k=${sdp.key}`)
  lines.push(...sdp.attributes.map(attributeLine))
  for (const m of sdp.media) lines.push(...mediaLines(m))
  return lines.map((line) => `${clean(line)}\r\n`).join('')
}
