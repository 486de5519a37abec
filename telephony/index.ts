// Telephony's public surface: trunk address shapes today; the SIP service (registration, inbound
// and outbound calls) as it lands (issue #21).
export { isHost, parseCidr, parseHostPort, sourceList } from './addresses.js'
