// Session descriptions written out literally: RFC 3264 §10.1, RFC 4317 (whose s= lines hold a
// single space, its §1 says), and offers in the shape Asterisk and Linphone send. Lines are joined
// with CRLF here, so each fixture is exactly the bytes on the wire.

export const crlf = (...lines: string[]): string => lines.map((line) => `${line}\r\n`).join('')

/** RFC 3264 §10.1: Alice's offer (audio PCMU, two video streams). */
export const RFC3264_OFFER = crlf(
  'v=0',
  'o=alice 2890844526 2890844526 IN IP4 host.anywhere.com',
  's=',
  'c=IN IP4 host.anywhere.com',
  't=0 0',
  'm=audio 49170 RTP/AVP 0',
  'a=rtpmap:0 PCMU/8000',
  'm=video 51372 RTP/AVP 31',
  'a=rtpmap:31 H261/90000',
  'm=video 53000 RTP/AVP 32',
  'a=rtpmap:32 MPV/90000',
)

/** RFC 3264 §10.1: Bob's answer, refusing the first video stream. */
export const RFC3264_ANSWER = crlf(
  'v=0',
  'o=bob 2890844730 2890844730 IN IP4 host.example.com',
  's=',
  'c=IN IP4 host.example.com',
  't=0 0',
  'm=audio 49920 RTP/AVP 0',
  'a=rtpmap:0 PCMU/8000',
  'm=video 0 RTP/AVP 31',
  'm=video 53000 RTP/AVP 32',
  'a=rtpmap:32 MPV/90000',
)

/** RFC 3264 §10.1: Bob's second offer: a new audio port and a fourth, receive-only audio stream. */
export const RFC3264_SECOND_OFFER = crlf(
  'v=0',
  'o=bob 2890844730 2890844731 IN IP4 host.example.com',
  's=',
  'c=IN IP4 host.example.com',
  't=0 0',
  'm=audio 65422 RTP/AVP 0',
  'a=rtpmap:0 PCMU/8000',
  'm=video 0 RTP/AVP 31',
  'm=video 53000 RTP/AVP 32',
  'a=rtpmap:32 MPV/90000',
  'm=audio 51434 RTP/AVP 110',
  'a=rtpmap:110 telephone-events/8000',
  'a=recvonly',
)

/** RFC 4317 §2.4 Two Audio Streams: the offer. */
export const RFC4317_TWO_AUDIO_OFFER = crlf(
  'v=0',
  'o=alice 2890844526 2890844526 IN IP4 host.atlanta.example.com',
  's= ',
  'c=IN IP4 host.atlanta.example.com',
  't=0 0',
  'm=audio 49170 RTP/AVP 0 97',
  'a=rtpmap:0 PCMU/8000',
  'a=rtpmap:97 iLBC/8000',
  'm=audio 49172 RTP/AVP 98',
  'a=rtpmap:98 telephone-event/8000',
  'a=sendonly',
)

/** RFC 4317 §2.6 Audio Only 1: the offer (PCMU alone, or iLBC with telephone-event). */
export const RFC4317_AUDIO_ONLY_OFFER = crlf(
  'v=0',
  'o=alice 2890844526 2890844526 IN IP4 host.atlanta.example.com',
  's= ',
  'c=IN IP4 host.atlanta.example.com',
  't=0 0',
  'm=audio 49170 RTP/AVP 0',
  'a=rtpmap:0 PCMU/8000',
  'm=audio 51372 RTP/AVP 97 101',
  'a=rtpmap:97 iLBC/8000',
  'a=rtpmap:101 telephone-event/8000',
)

/** RFC 4317 §3.1 Hold and Unhold 1: Alice's offer. */
export const RFC4317_HOLD_OFFER = crlf(
  'v=0',
  'o=alice 2890844526 2890844526 IN IP4 host.atlanta.example.com',
  's= ',
  'c=IN IP4 host.atlanta.example.com',
  't=0 0',
  'm=audio 49170 RTP/AVP 0 97',
  'a=rtpmap:0 PCMU/8000',
  'a=rtpmap:97 iLBC/8000',
)

/** RFC 4317 §2.1 Audio and Video 1: the offer (PCMU, PCMA, iLBC; H261, MPV). */
export const RFC4317_AUDIO_VIDEO_OFFER = crlf(
  'v=0',
  'o=alice 2890844526 2890844526 IN IP4 host.atlanta.example.com',
  's= ',
  'c=IN IP4 host.atlanta.example.com',
  't=0 0',
  'm=audio 49170 RTP/AVP 0 8 97',
  'a=rtpmap:0 PCMU/8000',
  'a=rtpmap:8 PCMA/8000',
  'a=rtpmap:97 iLBC/8000',
  'm=video 51372 RTP/AVP 31 32',
  'a=rtpmap:31 H261/90000',
  'a=rtpmap:32 MPV/90000',
)

/** An offer shaped like Asterisk's with Opus enabled: telephone-event at 48000 and at 8000. */
export const ASTERISK_OFFER = crlf(
  'v=0',
  'o=- 1702466592 1702466592 IN IP4 203.0.113.5',
  's=Asterisk',
  'c=IN IP4 203.0.113.5',
  't=0 0',
  'm=audio 12050 RTP/AVP 107 9 0 8 101 110',
  'a=rtpmap:107 opus/48000/2',
  'a=fmtp:107 useinbandfec=1',
  'a=rtpmap:9 G722/8000',
  'a=rtpmap:0 PCMU/8000',
  'a=rtpmap:8 PCMA/8000',
  'a=rtpmap:101 telephone-event/48000',
  'a=fmtp:101 0-16',
  'a=rtpmap:110 telephone-event/8000',
  'a=fmtp:110 0-16',
  'a=ptime:20',
  'a=maxptime:150',
  'a=sendrecv',
)

/** An offer shaped like Linphone's: PCMA before PCMU, three telephone-event rates, RTCP feedback and XR attributes. */
export const LINPHONE_OFFER = crlf(
  'v=0',
  'o=linphone 3817 1592 IN IP4 192.168.1.20',
  's=Talk',
  'c=IN IP4 192.168.1.20',
  't=0 0',
  'a=rtcp-xr:rcvr-rtt=all:10000 stat-summary=loss,dup,jitt,TTL voip-metrics',
  'm=audio 7078 RTP/AVP 96 97 98 8 0 18 101 99 100',
  'a=rtpmap:96 opus/48000/2',
  'a=fmtp:96 useinbandfec=1',
  'a=rtpmap:97 speex/16000',
  'a=fmtp:97 vbr=on',
  'a=rtpmap:98 speex/8000',
  'a=fmtp:98 vbr=on',
  'a=fmtp:18 annexb=yes',
  'a=rtpmap:101 telephone-event/48000',
  'a=rtpmap:99 telephone-event/16000',
  'a=rtpmap:100 telephone-event/8000',
  'a=rtcp:7079',
  'a=rtcp-fb:* trr-int 1000',
  'a=rtcp-fb:* ccm tmmbr',
)

/** A WebRTC-style offer: secure profile only, which this endpoint cannot answer. */
export const SAVPF_OFFER = crlf(
  'v=0',
  'o=- 4611731400430051336 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=group:BUNDLE 0',
  'm=audio 9 UDP/TLS/RTP/SAVPF 111 0 8',
  'c=IN IP4 0.0.0.0',
  'a=rtcp:9 IN IP4 0.0.0.0',
  'a=mid:0',
  'a=rtpmap:111 opus/48000/2',
  'a=rtpmap:0 PCMU/8000',
  'a=rtpmap:8 PCMA/8000',
  'a=rtcp-mux',
)

/** RFC 8866 §5's example, every session-level line type in order. */
export const RFC8866_EXAMPLE = crlf(
  'v=0',
  'o=jdoe 3724394400 3724394405 IN IP4 198.51.100.1',
  's=Call to John Smith',
  'i=SDP Offer #1',
  'u=http://www.jdoe.example.com/home.html',
  'e=Jane Doe <jane@jdoe.example.com>',
  'p=+1 617 555-6011',
  'c=IN IP4 198.51.100.1',
  't=0 0',
  'm=audio 49170 RTP/AVP 0',
  'm=audio 49180 RTP/AVP 0',
  'm=video 51372 RTP/AVP 99',
  'c=IN IP6 2001:db8::2',
  'a=rtpmap:99 h263-1998/90000',
)

export const ALL_FIXTURES: Readonly<Record<string, string>> = {
  RFC3264_OFFER,
  RFC3264_ANSWER,
  RFC3264_SECOND_OFFER,
  RFC4317_TWO_AUDIO_OFFER,
  RFC4317_AUDIO_ONLY_OFFER,
  RFC4317_HOLD_OFFER,
  RFC4317_AUDIO_VIDEO_OFFER,
  ASTERISK_OFFER,
  LINPHONE_OFFER,
  SAVPF_OFFER,
  RFC8866_EXAMPLE,
}
