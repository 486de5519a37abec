/**
 * The SIPp caller of the sip-calls bench: dials the number (SIPp's -s), takes 100/180 as they
 * come, times INVITE → 200 on its own clock too (rtd 1; the bench's figure is the wire's), ACKs,
 * lets the agent greet, then streams the caller's loop (caller-audio.ts) as PCMU with SIPp's
 * rtp_stream until it hangs up with BYE after `holdMs`. No digest: the trunk admits loopback by
 * source address, as a carrier's trunk is admitted.
 */

export function loadCallerScenario(o: { greetMs: number; holdMs: number; audioFile: string }): string {
  return `<?xml version="1.0" encoding="ISO-8859-1" ?>
<!DOCTYPE scenario SYSTEM "sipp.dtd">
<scenario name="ozan sip-calls bench caller">
  <send retrans="500" start_rtd="1">
    <![CDATA[
      INVITE sip:[service]@[remote_ip]:[remote_port] SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: "Bench" <sip:+15550100000@[local_ip]:[local_port]>;tag=[pid]B[call_number]
      To: <sip:[service]@[remote_ip]:[remote_port]>
      Call-ID: [call_id]
      CSeq: 1 INVITE
      Contact: <sip:bench@[local_ip]:[local_port]>
      Max-Forwards: 70
      Content-Type: application/sdp
      Content-Length: [len]

v=0
o=bench 1 1 IN IP[local_ip_type] [local_ip]
s=-
c=IN IP[media_ip_type] [media_ip]
t=0 0
m=audio [rtpstream_audio_port] RTP/AVP 0 101
a=rtpmap:0 PCMU/8000
a=rtpmap:101 telephone-event/8000
a=fmtp:101 0-16
a=ptime:20

    ]]>
  </send>
  <recv response="100" optional="true"/>
  <recv response="180" optional="true"/>
  <recv response="183" optional="true"/>
  <recv response="200" rrs="true" rtd="1"/>
  <send>
    <![CDATA[
      ACK [next_url] SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      [routes]
      From: "Bench" <sip:+15550100000@[local_ip]:[local_port]>;tag=[pid]B[call_number]
      To: <sip:[service]@[remote_ip]:[remote_port]>[peer_tag_param]
      Call-ID: [call_id]
      CSeq: 1 ACK
      Contact: <sip:bench@[local_ip]:[local_port]>
      Max-Forwards: 70
      Content-Length: 0
    ]]>
  </send>
  <pause milliseconds="${Math.round(o.greetMs)}"/>
  <nop>
    <action>
      <exec rtp_stream="${o.audioFile},-1,0"/>
    </action>
  </nop>
  <pause milliseconds="${Math.round(o.holdMs)}"/>
  <nop>
    <action>
      <exec rtp_stream="pause"/>
    </action>
  </nop>
  <send retrans="500">
    <![CDATA[
      BYE [next_url] SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      [routes]
      From: "Bench" <sip:+15550100000@[local_ip]:[local_port]>;tag=[pid]B[call_number]
      To: <sip:[service]@[remote_ip]:[remote_port]>[peer_tag_param]
      Call-ID: [call_id]
      CSeq: 2 BYE
      Max-Forwards: 70
      Content-Length: 0
    ]]>
  </send>
  <recv response="200" crlf="true"/>
</scenario>
`
}
