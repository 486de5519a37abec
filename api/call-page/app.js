/**
 * The test-call page's script (GET /call/app.js, loaded by GET /call under a CSP that allows no
 * inline script). It signs in through the real API (POST /api/v1/auth/login, or an API key checked
 * with GET /api/v1/auth/me), lists the environments and the agents of the chosen one, mints a
 * web-call token (POST /api/v1/calls/web-token) and holds the call with the browser library the
 * server serves at /client/v1/ozan-web.js.
 *
 * What the page signed in with lives in `auth` below and nowhere else: never in localStorage,
 * sessionStorage, a cookie or the URL, so reloading the page forgets it. Requests send no cookies.
 */

const LIBRARY_URL = '/client/v1/ozan-web.js'
/** The lists' largest page (docs/api.md "Lists and paging"). */
const PAGE_LIMIT = 200
/** Pages followed per list: 25 × 200 = 5,000 agents in one picker is plenty. */
const MAX_PAGES = 25

const $ = (id) => document.getElementById(id)
const el = {
  loginForm: $('login-form'),
  email: $('email'),
  password: $('password'),
  login: $('login'),
  keyForm: $('key-form'),
  apiKey: $('api-key'),
  useKey: $('use-key'),
  signin: $('signin'),
  account: $('account'),
  who: $('who'),
  signout: $('signout'),
  problem: $('problem'),
  environment: $('environment'),
  agent: $('agent-select'),
  reload: $('reload'),
  agentNote: $('agent-note'),
  microphone: $('microphone'),
  start: $('start'),
  stop: $('stop'),
  muteMic: $('mute-mic'),
  muteAgent: $('mute-agent'),
  status: $('status'),
  callId: $('call-id'),
  callerLevel: $('caller-level'),
  agentLevel: $('agent-level'),
  mutedHint: $('muted-hint'),
  transcript: $('transcript'),
  latency: document.querySelector('#latency tbody'),
}

/**
 * `{ kind: 'session', accessToken, refreshToken, label }` or `{ kind: 'key', apiKey, label }`;
 * null when signed out. Page memory only.
 */
let auth = null
/** The library's WebCall class, once imported. */
let WebCall = null
/** The call in progress (connecting … speaking), or null. */
let call = null
/** A token is being minted. */
let minting = false
/** A sign-in or list request is running. */
let busy = false
/** The refresh in flight, shared: a refresh token works once, and reusing one ends the session. */
let refreshing = null

/** An API answer that was not 2xx, with the server's own words. */
class ApiFailure extends Error {
  constructor(status, code, message) {
    super(message)
    this.status = status
    this.code = code
  }
}

/** The server's error body in words: `{ error: { code, message } }`, 422 `detail[]`, or 404/405 `detail`. */
function failureOf(res, body) {
  const error = body?.error
  if (error && typeof error.message === 'string') {
    const retry = res.headers.get('retry-after')
    return new ApiFailure(res.status, String(error.code ?? 'error'), retry ? `${error.message} (try again in ${retry} s)` : error.message)
  }
  if (Array.isArray(body?.detail)) {
    const words = body.detail.map((d) => `${Array.isArray(d.loc) ? d.loc.join('.') : ''}: ${d.msg}`).join('; ')
    return new ApiFailure(res.status, 'validation_error', `The server refused the request: ${words}`)
  }
  if (typeof body?.detail === 'string') return new ApiFailure(res.status, 'http_error', `${res.status} ${body.detail}`)
  return new ApiFailure(res.status, 'http_error', `The server answered ${res.status} ${res.statusText}.`)
}

function authHeaders() {
  if (auth?.kind === 'session') return { authorization: `Bearer ${auth.accessToken}` }
  if (auth?.kind === 'key') return { 'x-api-key': auth.apiKey }
  return {}
}

/** One API request; resolves `{ body, headers }` for 2xx, else rejects with an ApiFailure. */
async function api(method, path, o = {}) {
  const headers = { accept: 'application/json', ...(o.anonymous ? {} : authHeaders()) }
  if (o.body !== undefined) headers['content-type'] = 'application/json'
  if (o.environmentId) headers['x-environment-id'] = o.environmentId
  let res
  try {
    res = await fetch(path, {
      method,
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      credentials: 'omit',
      cache: 'no-store',
    })
  } catch {
    throw new ApiFailure(0, 'network_error', 'The server did not answer. Is Ozan still running?')
  }
  // An access token lives 15 minutes: refresh once and try again.
  if (res.status === 401 && !o.anonymous && !o.retried && auth?.kind === 'session' && (await refreshSession())) {
    return api(method, path, { ...o, retried: true })
  }
  const text = await res.text()
  let body = null
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    body = null
  }
  if (!res.ok) throw failureOf(res, body)
  return { body, headers: res.headers }
}

function refreshSession() {
  const held = auth
  if (held?.kind !== 'session') return Promise.resolve(false)
  refreshing ??= api('POST', '/api/v1/auth/refresh', { anonymous: true, body: { refresh_token: held.refreshToken } })
    .then(({ body }) => {
      if (auth !== held) return false
      held.accessToken = body.access_token
      held.refreshToken = body.refresh_token
      return true
    })
    .catch(() => false)
    .finally(() => {
      refreshing = null
    })
  return refreshing
}

/** Every row of a paged list, following `Link: <…>; rel="next"` (at most MAX_PAGES pages). */
async function listAll(path, environmentId) {
  const rows = []
  let next = `${path}${path.includes('?') ? '&' : '?'}limit=${PAGE_LIMIT}`
  let total = null
  for (let page = 0; next && page < MAX_PAGES; page++) {
    const { body, headers } = await api('GET', next, { environmentId })
    rows.push(...body)
    total = Number(headers.get('x-total-count') ?? rows.length)
    next = /<([^>]+)>\s*;\s*rel="next"/.exec(headers.get('link') ?? '')?.[1] ?? null
  }
  return { rows, total }
}

// ---- what the page shows ------------------------------------------------------------------

function text(tag, words, className) {
  const node = document.createElement(tag)
  node.textContent = words
  if (className) node.className = className
  return node
}

function link(href, words) {
  const a = text('a', words)
  a.href = href
  return a
}

/** Hints for the codes a person can act on; the server's message comes first and names the fix. */
function hintsFor(code) {
  switch (code) {
    case 'provider_not_configured':
    case 'credential_missing':
      return [
        [
          'Store the missing credential with ',
          text('code', 'PUT /api/v1/credentials'),
          ' (an API key or session that may manage the organization; fields in the ',
          link('/docs', 'API reference'),
          '), or ask the operator to set the server-wide key the message names.',
        ],
        [link('/call/stand-ins', 'No provider keys? Try the stand-ins (scripted replies, not real providers)'), ': ', text('code', 'npm run stand-ins'), '.'],
      ]
    case 'no_published_version':
      return [['Publish the agent first: ', text('code', 'POST /api/v1/workflows/{id}/publish'), '.']]
    case 'mic_permission_denied':
      return [["Allow this page to use the microphone (the browser's site settings), then start the call again."]]
    default:
      return []
  }
}

function showProblem(what, failure) {
  const code = failure?.code ?? 'error'
  const message = failure?.message ?? String(failure)
  const head = document.createElement('p')
  head.append(text('strong', `${what}: `), message, ' ', text('code', `(${code})`))
  const parts = [head]
  for (const hint of hintsFor(code)) {
    const p = document.createElement('p')
    p.append(...hint)
    parts.push(p)
  }
  el.problem.dataset.code = code
  el.problem.replaceChildren(...parts)
  el.problem.hidden = false
}

function clearProblem() {
  el.problem.hidden = true
  el.problem.replaceChildren()
  delete el.problem.dataset.code
}

const STATUS_WORDS = {
  idle: 'not started',
  minting: 'asking the server for a call token…',
  connecting: 'connecting…',
  listening: 'listening: speak now',
  thinking: 'thinking…',
  speaking: 'the agent is speaking',
}

function setStatus(status, words) {
  el.status.dataset.status = status
  el.status.textContent = words ?? STATUS_WORDS[status] ?? status
}

/** Every control is enabled exactly when it can act. */
function refreshControls() {
  const signedIn = auth !== null
  const live = call !== null
  el.login.disabled = busy || signedIn || el.email.value.trim() === '' || el.password.value === ''
  el.useKey.disabled = busy || signedIn || el.apiKey.value.trim() === ''
  el.environment.disabled = busy || !signedIn || live || minting || el.environment.options.length === 0
  el.agent.disabled = busy || !signedIn || live || minting || el.agent.options.length === 0
  el.reload.disabled = busy || !signedIn || live || minting
  const picked = el.agent.selectedOptions[0]
  el.start.disabled = busy || !signedIn || live || minting || !WebCall || !picked || picked.disabled
  el.stop.disabled = !live
  el.muteMic.disabled = !live
  el.muteAgent.disabled = !live
  el.signout.disabled = busy
}

// ---- signing in ---------------------------------------------------------------------------

async function signedIn(next) {
  auth = next
  el.signin.hidden = true
  el.account.hidden = false
  el.who.textContent = next.label
  await loadEnvironments()
}

async function loginWithPassword(event) {
  event.preventDefault()
  if (el.login.disabled) return
  clearProblem()
  busy = true
  refreshControls()
  try {
    const { body } = await api('POST', '/api/v1/auth/login', { anonymous: true, body: { email: el.email.value.trim(), password: el.password.value } })
    el.password.value = ''
    busy = false
    await signedIn({
      kind: 'session',
      accessToken: body.access_token,
      refreshToken: body.refresh_token,
      label: `${body.user.email} in ${body.user.organization.name} (${body.user.role ?? 'no role'})`,
    })
  } catch (err) {
    showProblem('Sign-in failed', err)
  } finally {
    busy = false
    refreshControls()
  }
}

async function loginWithKey(event) {
  event.preventDefault()
  if (el.useKey.disabled) return
  clearProblem()
  busy = true
  refreshControls()
  const candidate = { kind: 'key', apiKey: el.apiKey.value.trim(), label: '' }
  el.apiKey.value = ''
  try {
    auth = candidate
    const { body } = await api('GET', '/api/v1/auth/me')
    candidate.label = `an API key of ${body.organization.name}`
    busy = false
    await signedIn(candidate)
  } catch (err) {
    if (auth === candidate) auth = null
    showProblem('The API key was refused', err)
  } finally {
    busy = false
    refreshControls()
  }
}

async function signOut() {
  const held = auth
  await call?.stop()
  auth = null
  if (held?.kind === 'session') {
    // Ends the session on the server too; a failure changes nothing here, the tokens are dropped.
    await fetch('/api/v1/auth/logout', { method: 'POST', headers: { authorization: `Bearer ${held.accessToken}` }, credentials: 'omit' }).catch(() => undefined)
  }
  el.signin.hidden = false
  el.account.hidden = true
  el.who.textContent = ''
  el.environment.replaceChildren()
  el.agent.replaceChildren()
  el.agentNote.textContent = ''
  clearProblem()
  refreshControls()
}

// ---- environments and agents --------------------------------------------------------------

async function loadEnvironments() {
  busy = true
  refreshControls()
  try {
    const { rows: projects } = await listAll('/api/v1/projects')
    const groups = projects.map((project) => {
      const group = document.createElement('optgroup')
      group.label = project.is_default ? `${project.name} (default project)` : project.name
      for (const env of project.environments) {
        const option = text('option', env.is_default ? `${env.name} (default)` : env.name)
        option.value = env.id
        option.dataset.slug = env.slug
        option.selected = env.is_default
        group.append(option)
      }
      return group
    })
    el.environment.replaceChildren(...groups)
  } catch (err) {
    showProblem('The environments could not be listed', err)
    el.environment.replaceChildren()
  } finally {
    busy = false
  }
  await loadAgents()
}

async function loadAgents() {
  if (!auth) return
  busy = true
  refreshControls()
  el.agentNote.textContent = 'Loading agents…'
  try {
    const environmentId = el.environment.value || undefined
    const { rows, total } = await listAll('/api/v1/workflows', environmentId)
    const options = rows.map((agent) => {
      const published = agent.published_version !== null
      const option = text('option', published ? `${agent.name} (version ${agent.published_version})` : `${agent.name} (not published)`)
      option.value = agent.id
      option.disabled = !published
      return option
    })
    el.agent.replaceChildren(...options)
    const first = options.find((o) => !o.disabled)
    if (first) first.selected = true
    const shown = rows.length < total ? `the newest ${rows.length} of ${total} agents` : `${rows.length} agent${rows.length === 1 ? '' : 's'}`
    el.agentNote.textContent =
      rows.length === 0
        ? 'This environment has no agents. Create one with POST /api/v1/workflows and publish it.'
        : first
          ? `${shown} in this environment.`
          : `${shown}, none published: publish one (POST /api/v1/workflows/{id}/publish) to call it.`
  } catch (err) {
    el.agent.replaceChildren()
    el.agentNote.textContent = ''
    showProblem('The agents could not be listed', err)
  } finally {
    busy = false
    refreshControls()
  }
}

// ---- microphones --------------------------------------------------------------------------

async function loadMicrophones() {
  if (!WebCall) return
  const chosen = el.microphone.value
  let devices = []
  try {
    devices = await WebCall.listInputDevices()
  } catch {
    devices = []
  }
  const options = [text('option', 'Default microphone')]
  options[0].value = ''
  devices.forEach((d, i) => {
    if (d.deviceId === '' || d.deviceId === 'default') return
    const option = text('option', d.label || `Microphone ${i + 1}`)
    option.value = d.deviceId
    options.push(option)
  })
  el.microphone.replaceChildren(...options)
  el.microphone.value = options.some((o) => o.value === chosen) ? chosen : ''
}

function pickMicrophone() {
  // Mid-call, a named device replaces the microphone (a refusal arrives as `error`); "Default"
  // has no portable id to switch back to, so it applies from the next call.
  if (call && el.microphone.value) call.setInputDevice(el.microphone.value).catch(() => undefined)
}

// ---- the call -----------------------------------------------------------------------------

/** Transcript lines in conversation order: by turn number, the caller's words before the reply. */
function lineOrder(turnId, role, seq) {
  const n = /^turn-(\d+)$/.exec(turnId)
  return [n ? Number(n[1]) : Number.MAX_SAFE_INTEGER, role === 'user' ? 0 : 1, seq]
}
const before = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]
let lineSeq = 0

function showTranscript(e) {
  const key = `${e.role}:${e.turnId}`
  // A partial is replaced by the next line of its turn and role; a final line stays.
  let li = [...el.transcript.children].find((line) => line.dataset.key === key && line.dataset.final === 'false')
  if (!li) {
    li = document.createElement('li')
    li.dataset.key = key
    li.dataset.order = JSON.stringify(lineOrder(e.turnId, e.role, lineSeq++))
    const order = JSON.parse(li.dataset.order)
    const after = [...el.transcript.children].find((line) => before(order, JSON.parse(line.dataset.order)) < 0)
    el.transcript.insertBefore(li, after ?? null)
  }
  li.className = `${e.role}${e.final ? '' : ' partial'}${e.interrupted ? ' interrupted' : ''}`
  li.dataset.role = e.role
  li.dataset.turn = e.turnId
  li.dataset.final = String(e.final)
  li.dataset.interrupted = String(e.interrupted)
  const parts = [text('span', e.role === 'user' ? 'You: ' : 'Agent: ', 'who'), text('span', e.text, 'words')]
  if (!e.final) parts.push(text('span', ' (hearing…)', 'mark'))
  if (e.interrupted) parts.push(text('span', ' (interrupted)', 'mark'))
  li.replaceChildren(...parts)
}

const ms = (v) => (typeof v === 'number' ? String(Math.round(v)) : '—')

function showMetrics(m) {
  const tr = document.createElement('tr')
  tr.dataset.turn = m.turnId
  const th = text('th', m.turnId)
  th.scope = 'row'
  tr.append(th, ...[m.voiceToVoiceMs, m.endpointingMs, m.sttMs, m.llmFirstTokenMs, m.ttsFirstByteMs, m.engineMs, m.bargeInStopMs].map((v) => text('td', ms(v))))
  el.latency.append(tr)
}

function setPressed(button, pressed) {
  button.setAttribute('aria-pressed', String(pressed))
}

async function startCall() {
  if (el.start.disabled) return
  clearProblem()
  const workflowId = el.agent.value
  const environmentId = el.environment.value || undefined
  minting = true
  setStatus('minting')
  refreshControls()
  let minted
  try {
    ;({ body: minted } = await api('POST', '/api/v1/calls/web-token', { environmentId, body: { workflow_uuid: workflowId } }))
  } catch (err) {
    // Refused before any socket: the server's message says what to configure.
    minting = false
    setStatus('idle', 'not started: the server refused the call')
    showProblem('The call could not start', err)
    refreshControls()
    return
  }
  minting = false
  el.transcript.replaceChildren()
  el.latency.replaceChildren()
  el.callId.textContent = ''
  lineSeq = 0
  const current = new WebCall({ token: minted.token, wsUrl: minted.ws_url, ...(el.microphone.value && { inputDeviceId: el.microphone.value }) })
  call = current
  setPressed(el.muteMic, false)
  setPressed(el.muteAgent, false)
  current.on('status', (status) => {
    if (status !== 'ended') setStatus(status)
  })
  current.on('connected', ({ callId }) => {
    el.callId.textContent = `(call ${callId})`
    // Device labels are readable once the microphone was granted.
    void loadMicrophones()
  })
  current.on('transcript', showTranscript)
  current.on('metrics', showMetrics)
  current.on('volume', (v) => {
    el.callerLevel.value = v.caller
    el.agentLevel.value = v.agent
    el.mutedHint.textContent = current.micMuted && v.caller > 0.3 ? 'You are muted.' : ''
  })
  current.on('transfer', ({ target }) => {
    const li = text('li', `The call was handed on to ${target}.`, 'system')
    li.dataset.order = JSON.stringify([Number.MAX_SAFE_INTEGER, 2, lineSeq++])
    el.transcript.append(li)
  })
  current.on('error', (e) => showProblem('Call error', e))
  current.on('ended', ({ reason, closeCode }) => {
    if (call === current) call = null
    setStatus('ended', `ended (${reason}${closeCode === null ? '' : `, close ${closeCode}`})`)
    el.callerLevel.value = 0
    el.agentLevel.value = 0
    el.mutedHint.textContent = ''
    setPressed(el.muteMic, false)
    setPressed(el.muteAgent, false)
    refreshControls()
  })
  setStatus('connecting')
  refreshControls()
  // Failures arrive as `error` and `ended` above.
  await current.start().catch(() => undefined)
}

function stopCall() {
  if (!call) return
  el.stop.disabled = true
  void call.stop()
}

function toggleMicMute() {
  if (!call) return
  call.setMicMuted(!call.micMuted)
  setPressed(el.muteMic, call.micMuted)
}

function toggleAgentMute() {
  if (!call) return
  call.setAssistantMuted(!call.assistantMuted)
  setPressed(el.muteAgent, call.assistantMuted)
}

// ---- start-up -----------------------------------------------------------------------------

el.loginForm.addEventListener('submit', loginWithPassword)
el.keyForm.addEventListener('submit', loginWithKey)
for (const input of [el.email, el.password, el.apiKey]) input.addEventListener('input', refreshControls)
el.signout.addEventListener('click', () => void signOut())
el.environment.addEventListener('change', () => void loadAgents())
el.agent.addEventListener('change', refreshControls)
el.reload.addEventListener('click', () => void loadAgents())
el.microphone.addEventListener('change', pickMicrophone)
el.start.addEventListener('click', () => void startCall())
el.stop.addEventListener('click', stopCall)
el.muteMic.addEventListener('click', toggleMicMute)
el.muteAgent.addEventListener('click', toggleAgentMute)
navigator.mediaDevices?.addEventListener?.('devicechange', () => void loadMicrophones())
setStatus('idle')
refreshControls()

try {
  ;({ WebCall } = await import(LIBRARY_URL))
  await loadMicrophones()
} catch (err) {
  showProblem('The call library could not be loaded', {
    code: 'library_unavailable',
    message: `${LIBRARY_URL} did not load (${err instanceof Error ? err.message : err}); the server's client/dist may be missing (npm run build:client).`,
  })
}
refreshControls()
document.documentElement.dataset.ready = 'true'
