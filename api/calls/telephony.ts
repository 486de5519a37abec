/**
 * Phone calls in `npm start` (issue #21): the SIP listener (telephony/) wired to the shell's
 * services and the call engine. Telephony knows nothing of api/: what a call runs, how a refused
 * call is recorded and how a trunk's password opens are handed to it here.
 */
import type { Config, Logger } from '../../core/index.js'
import type { Engine } from '../../engine/index.js'
import type { TimerClock } from '../../sip/index.js'
import { InlineMediaIo, type MediaIo, openCallMedia, RtpPortPool, TelephonyService, WorkerMediaIo } from '../../telephony/index.js'
import type { Services } from '../app.js'
import { preparePhoneCall, recordPhoneProgress, recordRefusedPhoneCall } from './phone-calls.js'

export interface TelephonyOptions {
  services: Services
  config: Config
  engine: Pick<Engine, 'startCall'>
  logger: Logger
  /** Overrides config.sip.host / port (tests: 127.0.0.1 and 0). */
  host?: string
  port?: number
  /** The calls' session timers' clock (tests move it by hand). */
  timers?: TimerClock
}

/** Null when OZAN_SIP is off. Throws when the SIP port cannot be bound (the caller decides what that means). */
export async function startTelephony(o: TelephonyOptions): Promise<TelephonyService | null> {
  const { services, config, logger } = o
  if (!config.sip.enabled) return null
  const log = logger.child({ component: 'sip' })
  const ports = { minPort: config.sip.rtpPortMin, maxPort: config.sip.rtpPortMax }
  let io: MediaIo
  if (config.sip.rtpIo === 'inline') io = new InlineMediaIo(new RtpPortPool(ports))
  else {
    const worker = new WorkerMediaIo({ ...ports, onOverflow: (counts) => log.warn(counts, 'rtp media rings overflowed: packets dropped') })
    await worker.start()
    io = worker
  }
  const telephony = await TelephonyService.start({
    config: { ...config.sip, host: o.host ?? config.sip.host, port: o.port ?? config.sip.port },
    repos: services.repos,
    bus: services.bus,
    logger: log,
    guard: services.providerNetwork.guard,
    liveCalls: services.webCalls.liveCalls,
    nonceSecret: services.sipNonceSecret,
    passwordOf: (trunk) => services.trunkPasswords.open(trunk),
    prepare: (start) => preparePhoneCall(services, logger, start),
    recordRefused: (start) => recordRefusedPhoneCall(services, start),
    progress: (callId, state, detail) => recordPhoneProgress(services, callId, state, detail),
    startCall: (callId, media, prepared) => o.engine.startCall({ callId, transport: media.transport, prepared, logFields: { channel: 'phone' } }),
    openMedia: (host, signals) => openCallMedia({ io, host, signals, logger: log }),
    closeMedia: () => io.close(),
    ...(o.timers && { timers: o.timers }),
  })
  services.sipTrunks.onChanged((id) => telephony.trunkChanged(id))
  services.calls.attachDialer(telephony)
  return telephony
}
