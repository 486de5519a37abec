import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { WebSocketServer } from 'ws'
import { mediaError, micConstraints } from '../../client/src/microphone.js'
import { startTestApp } from '../helpers/app.js'
import { launchChromium, skipWithoutChromium } from '../helpers/chromium.js'
import { openCallPage, servePage } from './call-page.js'

// The microphone (client/src/microphone.ts): what getUserMedia's failures mean, the constraints
// asked for, and switching devices mid-call in Chromium (whose fake device lists several inputs).

t.test("getUserMedia's DOMException names map to the library's codes", async (t) => {
  const named = (name: string) => Object.assign(new Error('x'), { name })
  t.equal(mediaError(named('NotAllowedError')).code, 'mic_permission_denied')
  t.equal(mediaError(named('SecurityError')).code, 'mic_permission_denied')
  t.equal(mediaError(named('NotFoundError')).code, 'mic_not_found')
  t.equal(mediaError(named('OverconstrainedError')).code, 'mic_not_found', 'a deviceId that no longer exists')
  t.equal(mediaError(named('NotReadableError')).code, 'mic_unavailable', 'in use by another application')
  t.match(mediaError(new TypeError('bad constraints')), { code: 'mic_failed', message: /bad constraints/, name: 'WebCallError' })
})

t.test("the browser's voice processing is asked for, and one device when named", async (t) => {
  t.same(micConstraints(), { audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 }, video: false })
  t.match(micConstraints('dev-1'), { audio: { deviceId: { exact: 'dev-1' } } })
})

t.test(
  'listInputDevices and setInputDevice mid-call: the new microphone feeds the call, the old one is released',
  { skip: skipWithoutChromium(), timeout: 30_000 },
  async (t) => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 })
    await once(server, 'listening')
    t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
    const frames: number[] = []
    server.on('connection', (ws) => {
      ws.send(
        JSON.stringify({
          type: 'hello',
          protocol: 1,
          call_id: 'c',
          audio: { encoding: 'pcm_s16le', sample_rate_hz: 16_000, channels: 1 },
          max_frame_bytes: 32768,
        }),
      )
      ws.on('message', (_data, binary) => binary && frames.push(performance.now()))
    })
    const a = await startTestApp()
    t.teardown(() => a.close())
    const site = await servePage(`${a.url}/client/v1/ozan-web.js`)
    t.teardown(() => site.close())
    const browser = await launchChromium()
    t.teardown(() => browser.close())
    const page = await openCallPage(browser, site.url)
    await page.start({ token: 'tok', wsUrl: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/calls/ws?token=tok&v=1` })
    await page.event('started')

    const switched = await page.page.evaluate(async () => {
      const { WebCall } = (await import(document.querySelector('script')!.textContent!.match(/from "([^"]+)"/)![1]!)) as {
        WebCall: { listInputDevices(): Promise<MediaDeviceInfo[]> }
      }
      const devices = await WebCall.listInputDevices()
      const call = (window as unknown as { call: { setInputDevice(id: string): Promise<void> } }).call
      const other = devices.find((d) => d.deviceId !== 'default' && d.deviceId !== devices[0]!.deviceId) ?? devices[0]!
      await call.setInputDevice(other.deviceId)
      let missing = ''
      await call.setInputDevice('no-such-device').catch((e: { code: string }) => (missing = e.code))
      return { labels: devices.map((d) => d.label), kinds: [...new Set(devices.map((d) => d.kind))], picked: other.label, missing }
    })
    t.ok(switched.labels.length >= 1 && switched.labels.every((l) => l.length > 0), `inputs listed with labels: ${switched.labels.join(', ')}`)
    t.same(switched.kinds, ['audioinput'])
    t.equal(switched.missing, 'mic_not_found', 'an unknown device rejects with mic_not_found')
    t.match((await page.log()).find((e) => e.name === 'error')?.payload, { code: 'mic_not_found' }, 'and is reported as an error event')
    const liveTracks = await page.page.evaluate(() => (window as unknown as { liveTracks(): number }).liveTracks())
    t.equal(liveTracks, 1, 'one live microphone track: the first was stopped when the second took over, the failed switch kept it')
    const at = performance.now()
    await page.page.waitForTimeout(500)
    t.ok(frames.filter((f) => f > at).length >= 15, `frames keep flowing after the switch (${frames.filter((f) => f > at).length} in 500 ms)`)
    t.notOk(
      (await page.log()).some((e) => e.name === 'ended'),
      'the call goes on',
    )
    await page.call((call) => call.stop())
    t.equal(await page.micLive(), false)
  },
)
