// The media core of a SIP call (issue #21): RTP/RTCP (RFC 3550), G.711, the jitter buffer and RFC 4733 DTMF.
export { DEFAULT_DTMF_RECEIVER, DtmfReceiver, type DtmfEndReason, type DtmfOutput, type DtmfReceiverOptions } from './dtmf-receiver.js'
export { DEFAULT_DTMF_SEND, type DtmfPacket, type DtmfSendOptions, dtmfPackets } from './dtmf-sender.js'
export {
  alawDecodeSample,
  alawEncodeSample,
  decodeAlaw,
  decodeG711,
  decodeMulaw,
  encodeAlaw,
  encodeMulaw,
  mulawDecodeSample,
  mulawEncodeSample,
  PAYLOAD_TYPE_PCMA,
  PAYLOAD_TYPE_PCMU,
} from './g711.js'
export {
  DEFAULT_JITTER_BUFFER,
  JitterBuffer,
  type JitterBufferOptions,
  type JitterFrame,
  type JitterFrameKind,
  type JitterPacket,
  type JitterStats,
  type PayloadDecoder,
} from './jitter-buffer.js'
export { msToNtpShort, NTP_UNIX_OFFSET_S, type NtpTimestamp, ntpFromUnixMs, ntpMiddle32 } from './ntp.js'
export { DEFAULT_RECEIVER_STATS, ReceiverStats, type ReceiverStatsOptions } from './receiver-stats.js'
export {
  MAX_RTCP_COUNT,
  type ReportBlock,
  RTCP_BYE,
  RTCP_RR,
  RTCP_SDES,
  RTCP_SR,
  type RtcpPacket,
  SDES_CNAME,
  type SdesChunk,
  type SdesItem,
  type SenderInfo,
  serializeRtcp,
} from './rtcp-packet.js'
export { parseRtcp, type RtcpParseErrorCode, type RtcpParseOptions, type RtcpParseResult } from './rtcp-parse.js'
export { buildBye, buildReceiverReport, buildSenderReport, type ReportInput, type SenderReportInput } from './rtcp-reports.js'
export {
  looksLikeRtcp,
  parseRtp,
  RTP_HEADER_BYTES,
  RTP_VERSION,
  type RtpHeaderExtension,
  type RtpHeaderFields,
  RtpPacket,
  type RtpPacketInit,
  type RtpParseErrorCode,
  type RtpParseResult,
  writeRtpHeader,
} from './rtp-packet.js'
export { SenderStats } from './sender-stats.js'
export { DTMF_DIGITS, type DtmfDigit, MAX_EVENT_DURATION, TELEPHONE_EVENT_BYTES, TelephoneEvent, type TelephoneEventInit } from './telephone-event.js'
