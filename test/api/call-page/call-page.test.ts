import t, { type Test } from 'tap'
import type { Page } from 'playwright-core'
import type { ManualClock } from '../../../core/index.js'
import { launchChromium, skipWithoutChromium, writeFakeMicWav } from '../../helpers/chromium.js'
import { skipWithoutEspeak, speak, timeline } from '../../helpers/speech.js'
import { createKey, expectStatus } from '../../helpers/tenancy-fixtures.js'
import { CALL_GRAPH, callScene, VOICE_CONFIG, W } from '../calls/fixtures.js'

// The test-call page (GET /call) in real Chromium against the real app and engine (Silero VAD,
// the Deepgram stand-in for STT, espeak-ng TTS, the no-LLM demo graph), driven as a person would:
// by the labels and button names. Chromium's fake microphone loops a WAV made with espeak-ng: 2 s
// of silence, "my name is Alice", 40 s of silence, so the caller speaks once, over the greeting.

const skip = skipWithoutChromium() || (await skipWithoutEspeak())
const mic = skip ? '' : writeFakeMicWav(timeline(2000, await speak('my name is Alice', 'en'), 40_000).pcm, 16_000)
const PASSWORD = 'correct horse battery'

interface Line {
  key: string
  final: string
  interrupted: string
  text: string
}

/** Every state a transcript line went through (the page's DOM, watched from outside its script). */
async function watchTranscript(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: Line[] = []
    ;(window as unknown as { seen: Line[] }).seen = seen
    const list = document.getElementById('transcript')!
    const note = () => {
      for (const li of list.querySelectorAll('li')) {
        const line = {
          key: li.dataset.key!,
          final: li.dataset.final!,
          interrupted: li.dataset.interrupted!,
          text: li.querySelector('.words')?.textContent ?? '',
        }
        const last = seen.filter((s) => s.key === line.key).at(-1)
        if (!last || last.text !== line.text || last.final !== line.final) seen.push(line)
      }
    }
    new MutationObserver(note).observe(list, { childList: true, subtree: true, characterData: true, attributes: true })
  })
}

/** The level meters' highest values, read every 20 ms from outside the page's script. */
const watchMeters = (page: Page) =>
  page.evaluate(() => {
    const peak = { caller: 0, agent: 0 }
    ;(window as unknown as { peak: typeof peak }).peak = peak
    setInterval(() => {
      peak.caller = Math.max(peak.caller, (document.getElementById('caller-level') as HTMLMeterElement).value)
      peak.agent = Math.max(peak.agent, (document.getElementById('agent-level') as HTMLMeterElement).value)
    }, 20)
  })

const lines = (page: Page) =>
  page.$$eval('#transcript li', (lis) =>
    lis.map((li) => ({
      role: (li as HTMLElement).dataset.role,
      turn: (li as HTMLElement).dataset.turn,
      final: (li as HTMLElement).dataset.final,
      interrupted: (li as HTMLElement).dataset.interrupted,
      text: li.textContent,
    })),
  )

const status = (page: Page) => page.locator('#status').getAttribute('data-status')
const waitStatus = (page: Page, s: string, timeout = 15_000) => page.waitForSelector(`#status[data-status="${s}"]`, { timeout })
const nothingStored = (page: Page) =>
  page.evaluate(() => ({ local: localStorage.length, session: sessionStorage.length, cookie: document.cookie, url: location.href }))

async function openPage(t: Test, url: string, o: { fakeMicWav?: string } = {}) {
  const browser = await launchChromium(o)
  t.teardown(() => browser.close())
  const page = await browser.newPage()
  const sockets: string[] = []
  page.on('websocket', (ws) => sockets.push(ws.url()))
  await page.goto(`${url}/call`)
  await page.waitForSelector('html[data-ready="true"]', { timeout: 10_000 })
  return { browser, page, sockets }
}

t.test(
  'signed in with email and password, the picked agent is called: greeting, the caller as a user line, the reply, latency, mutes, stop',
  { skip, timeout: 60_000 },
  async (t) => {
    const s = await callScene(t)
    await s.storeDeepgram()
    const id = await s.agent()
    s.dg.script('My name is Alice.')
    const { browser, page, sockets } = await openPage(t, s.a.url, { fakeMicWav: mic })

    const signIn = page.getByRole('button', { name: 'Sign in' })
    t.ok(await signIn.isDisabled(), 'Sign in is disabled until both fields are filled')
    t.ok(await page.getByRole('button', { name: 'Start call' }).isDisabled(), 'Start call is disabled while signed out')
    await page.getByLabel('Email').fill(s.owner.email)
    await page.getByLabel('Password').fill(PASSWORD)
    await signIn.click()
    await page.waitForSelector('#account:not([hidden])')
    t.match(await page.locator('#who').textContent(), s.owner.email, 'says who is signed in')
    t.equal(await page.getByLabel('Password').inputValue(), '', 'the password field is emptied')
    const environment = page.getByLabel('Environment')
    t.equal(await environment.inputValue(), await page.locator('#environment option[data-slug="dev"]').getAttribute('value'), 'the default environment, dev')
    const agent = page.getByLabel('Agent', { exact: true })
    await page.waitForFunction((id) => (document.getElementById('agent-select') as HTMLSelectElement).value === id, id, { timeout: 10_000 })
    t.match(await agent.locator('option:checked').textContent(), 'Web call agent (version 1)', 'the published agent is picked')

    await watchTranscript(page)
    await watchMeters(page)
    const start = page.getByRole('button', { name: 'Start call' })
    const stop = page.getByRole('button', { name: 'Stop' })
    t.ok(await stop.isDisabled(), 'Stop is disabled before a call')
    await start.click()
    await waitStatus(page, 'speaking')
    t.ok(await start.isDisabled(), 'Start call is disabled during the call')
    t.ok(await stop.isEnabled(), 'Stop is enabled during the call')
    t.equal(sockets.length, 1, 'one socket')
    t.match(sockets[0], /\/v1\/calls\/ws\?token=/, "to the engine's ws_url")
    t.match(await page.locator('#call-id').textContent(), /^\(call [0-9a-f-]{36}\)$/)

    // The caller (fake microphone) speaks 2 s in, over the greeting: the greeting is cut.
    await page.waitForSelector('#transcript li[data-key="agent:turn-1"][data-final="true"]', { timeout: 20_000 })
    const shown = await lines(page)
    t.match(
      shown,
      [
        { role: 'agent', turn: 'turn-0', final: 'true', interrupted: 'true', text: /^Agent: Hello!.* \(interrupted\)$/ },
        { role: 'user', turn: 'turn-1', final: 'true', interrupted: 'false', text: 'You: My name is Alice.' },
        { role: 'agent', turn: 'turn-1', final: 'true', interrupted: 'false', text: 'Agent: Thank you. Anything else?' },
      ],
      'the greeting (cut by the caller), the caller, the reply, in conversation order',
    )
    t.equal(shown.length, 3, 'one line each: the partials were replaced')
    const seen = (await page.evaluate(() => (window as unknown as { seen: Line[] }).seen)).filter((l) => l.key === 'user:turn-1')
    t.ok(
      seen.some((l) => l.final === 'false'),
      `the caller's partials were shown first: ${seen.map((l) => `${l.text}${l.final === 'true' ? '' : '…'}`).join(' | ')}`,
    )

    const row = page.locator('#latency tbody tr[data-turn="turn-1"]')
    await row.waitFor({ timeout: 5000 })
    const cells = await row.locator('th, td').allTextContents()
    const header = await page.locator('#latency thead th').allTextContents()
    t.same(header, ['Turn', 'Voice to voice', 'Endpointing', 'STT', 'LLM first token', 'TTS first byte', 'Engine', 'Barge-in stop'])
    t.equal(cells[0], 'turn-1')
    t.match(cells[1], /^\d+$/, `voice to voice measured: ${cells.join(' ')}`)
    t.match(cells[3], /^\d+$/, 'STT measured')
    t.match(cells[4], /^(\d+|—)$/, "LLM first token: the graph runtime's first words, or not measured")
    t.match(cells[5], /^\d+$/, 'TTS first byte measured')
    t.match(cells[6], /^\d+$/, 'engine measured')

    const levels = await page.evaluate(() => (window as unknown as { peak: { caller: number; agent: number } }).peak)
    t.comment(`meters' peaks: caller ${levels.caller.toFixed(2)}, agent ${levels.agent.toFixed(2)}`)
    t.ok(levels.caller > 0.3, 'the caller meter showed the utterance')
    t.ok(levels.agent > 0.3, "the agent meter showed the agent's voice")

    // Devices are named once the microphone was granted.
    const devices = await page.locator('#microphone option').allTextContents()
    t.equal(devices[0], 'Default microphone')
    t.ok(devices.length >= 2 && devices.slice(1).every((d) => d !== ''), `the input devices: ${devices.join(', ')}`)

    const muteMic = page.getByRole('button', { name: 'Mute microphone' })
    const muteAgent = page.getByRole('button', { name: 'Mute agent' })
    await muteMic.click()
    t.equal(await muteMic.getAttribute('aria-pressed'), 'true')
    await muteAgent.click()
    t.equal(await muteAgent.getAttribute('aria-pressed'), 'true')
    await page.waitForTimeout(200)
    await muteMic.click()
    t.equal(await muteMic.getAttribute('aria-pressed'), 'false')

    t.same(await nothingStored(page), { local: 0, session: 0, cookie: '', url: `${s.a.url}/call` }, 'nothing kept outside page memory, nothing in the URL')

    await stop.click()
    await waitStatus(page, 'ended', 5000)
    t.equal(await page.locator('#status').textContent(), 'ended (client_stop, close 1000)')
    t.ok(await stop.isDisabled(), 'Stop is disabled once ended')
    t.ok(await start.isEnabled(), 'a new call can be started')
    t.ok(await muteMic.isDisabled(), 'the mutes are disabled once ended')
    t.equal(await page.locator('#problem').isHidden(), true, 'no error shown')

    // The engine's record of the call: the mute and unmute the page sent.
    const callId = (await page.locator('#call-id').textContent())!.slice(6, -1)
    let events: Array<{ kind: string; data: Record<string, unknown> }> = []
    for (let i = 0; i < 50 && !events.some((e) => e.kind === 'end'); i++) {
      await page.waitForTimeout(100)
      events = expectStatus(await s.a.request('GET', `/api/v1/calls/${callId}`, { token: s.owner.token }), 200, 'call').events
    }
    t.match(
      events.filter((e) => e.kind === 'mute').map((e) => e.data),
      [{ muted: true }, { muted: false }],
      'the engine heard mute, then unmute',
    )
    t.same(browser.pageErrors, [], 'no console error, no CSP violation')
  },
)

t.test(
  'refusals in words: a wrong password, then (with an API key) an agent whose speech-to-text has no credential: the message, the fix, and no socket',
  { skip, timeout: 60_000 },
  async (t) => {
    const s = await callScene(t)
    const key = await createKey(s.a, s.owner)
    const staging = { token: s.owner.token, headers: { 'x-environment-id': 'staging' } }
    // The agent is in staging, oldest of 201 there: on the list's second page (newest first, 200 a page).
    const id = expectStatus(await s.a.request('POST', W, { ...staging, body: { name: 'Deaf agent' } }), 201, 'create').id as string
    expectStatus(await s.a.request('PUT', `${W}/${id}/definition`, { ...staging, body: CALL_GRAPH }), 200, 'definition')
    expectStatus(await s.a.request('PUT', `${W}/${id}/config`, { ...staging, body: VOICE_CONFIG }), 200, 'config')
    expectStatus(await s.a.request('POST', `${W}/${id}/publish`, staging), 200, 'publish')
    const started = performance.now()
    for (let i = 0; i < 200; i++) expectStatus(await s.a.request('POST', W, { ...staging, body: { name: `Filler ${i}` } }), 201, 'create')
    t.comment(`200 more agents in ${(performance.now() - started).toFixed(0)} ms`)
    const { page, sockets, browser } = await openPage(t, s.a.url)

    await page.getByLabel('Email').fill(s.owner.email)
    await page.getByLabel('Password').fill('not the password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    const problem = page.getByRole('alert')
    await page.waitForSelector('#problem[data-code="invalid_credentials"]', { timeout: 10_000 })
    t.equal(await problem.textContent(), 'Sign-in failed: The email or password is incorrect. (invalid_credentials)')
    t.ok(await page.locator('#account').isHidden(), 'still signed out')
    t.ok(await page.getByRole('button', { name: 'Start call' }).isDisabled())

    await page.getByLabel('API key').fill(key.key)
    await page.getByRole('button', { name: 'Use this key' }).click()
    await page.waitForSelector('#account:not([hidden])')
    t.ok(await problem.isHidden(), 'the old error is gone')
    t.equal(await page.getByLabel('API key').inputValue(), '', 'the key field is emptied')
    t.match(await page.locator('#who').textContent(), /^an API key of /)
    await page.waitForFunction(() => /environment/.test(document.getElementById('agent-note')?.textContent ?? ''), undefined, { timeout: 10_000 })
    t.equal(
      await page.locator('#agent-note').textContent(),
      'This environment has no agents. Create one with POST /api/v1/workflows and publish it.',
      'dev: none',
    )
    t.equal(await page.locator('#agent-select option').count(), 0)
    t.ok(await page.getByRole('button', { name: 'Start call' }).isDisabled(), 'no agent, no call')

    await page.getByLabel('Environment').selectOption({ label: 'Staging' })
    await page.waitForSelector(`#agent-select option[value="${id}"]`, { state: 'attached', timeout: 10_000 })
    t.equal(await page.locator('#agent-select option').count(), 201, 'both pages of staging')
    t.equal(await page.locator('#agent-note').textContent(), '201 agents in this environment.')
    t.equal(await page.locator('#agent-select option:not([disabled])').count(), 1, 'unpublished agents cannot be picked')
    t.equal(await page.getByLabel('Agent', { exact: true }).inputValue(), id, 'the one published agent is picked')

    await page.getByRole('button', { name: 'Start call' }).click()
    await page.waitForSelector('#problem[data-code="provider_not_configured"]', { timeout: 10_000 })
    const said = (await problem.textContent())!
    t.match(said, /^The call could not start: The agent's speech-to-text provider is "deepgram", and no Deepgram key is available/)
    t.match(said, 'store a "deepgram" credential (PUT /api/v1/credentials', "the server's message names what to configure")
    t.match(said, 'or set OZAN_DEEPGRAM_API_KEY', 'and the operator’s alternative')
    t.match(said, 'Store the missing credential with PUT /api/v1/credentials')
    const standIns = problem.getByRole('link', { name: 'No provider keys? Try the stand-ins (scripted replies, not real providers)' })
    t.equal(await standIns.getAttribute('href'), '/call/stand-ins')
    t.equal(await status(page), 'idle')
    t.equal(await page.locator('#status').textContent(), 'not started: the server refused the call')
    t.ok(await page.getByRole('button', { name: 'Start call' }).isEnabled(), 'it can be tried again')
    t.ok(await page.getByRole('button', { name: 'Stop' }).isDisabled())
    await page.waitForTimeout(300)
    t.same(sockets, [], 'no socket was opened')
    t.equal(expectStatus(await s.a.request('GET', '/api/v1/calls?channel=calls', { token: s.owner.token }), 200, 'calls').total, 0, 'no call exists')

    await standIns.click()
    await page.waitForURL(`${s.a.url}/call/stand-ins`)
    t.match(await page.locator('h1').textContent(), 'Trying voice without provider keys')
    t.same(
      browser.pageErrors,
      ['401 (Unauthorized)', '400 (Bad Request)'].map((status) => `Failed to load resource: the server responded with a status of ${status}`),
      'only the two refusals the browser itself logs (sign-in 401, token 400): no other error, no CSP violation',
    )
  },
)

t.test(
  'a session outlives its 15-minute access token (refreshed once, in memory); Sign out forgets it and empties the page',
  { skip, timeout: 30_000 },
  async (t) => {
    const s = await callScene(t)
    await s.agent()
    const { page, browser } = await openPage(t, s.a.url)
    await page.getByLabel('Email').fill(s.owner.email)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForSelector('#agent-select option', { state: 'attached', timeout: 10_000 })

    ;(s.a.clock as ManualClock).advance(16 * 60_000)
    t.equal((await s.a.request('GET', '/api/v1/auth/me', { token: s.owner.token })).status, 401, 'access tokens of that time have expired')
    await page.evaluate(() => document.getElementById('agent-select')!.replaceChildren())
    await page.getByRole('button', { name: 'Reload agents' }).click()
    await page.waitForSelector('#agent-select option', { state: 'attached', timeout: 10_000 })
    t.ok(await page.locator('#problem').isHidden(), 'the list came back: the page refreshed its session')
    const refreshed = s.a.logs.filter((l) => l.includes('"/api/v1/auth/refresh"'))
    t.ok(refreshed.length >= 1, 'through POST /api/v1/auth/refresh')

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForSelector('#signin:not([hidden])')
    t.ok(
      s.a.logs.some((l) => l.includes('"/api/v1/auth/logout"')),
      'the session was ended on the server too',
    )
    t.equal(await page.locator('#agent-select option').count(), 0, 'the agents are gone')
    t.equal(await page.locator('#environment option').count(), 0, 'the environments too')
    t.ok(await page.getByRole('button', { name: 'Start call' }).isDisabled())
    t.same(await nothingStored(page), { local: 0, session: 0, cookie: '', url: `${s.a.url}/call` })
    t.same(browser.pageErrors, ['Failed to load resource: the server responded with a status of 401 (Unauthorized)'], 'the one expired-token answer')
  },
)
