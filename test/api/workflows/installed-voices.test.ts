import t, { type Test } from 'tap'
import { AgentConfig } from '../../../engine/graph-runtime/index.js'
import { checkInstalledVoice } from '../../../api/workflows/voice-check.js'
import { ValidationError } from '../../../api/http/validation.js'
import { startTestApp } from '../../helpers/app.js'
import { createWorkflow, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'

// Issue 22: GET /providers/tts/espeak/resources lists the voices espeak-ng has installed (some 130),
// and a config may use any of them: it is checked against that list when saved, so an agent is
// never saved with a voice its calls would fail on. Other providers keep their closed lists.

const W = '/api/v1/workflows'

async function setup(t: Test) {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  return { a, owner, send: (method: string, path: string, body?: unknown) => a.request(method, path, { token: owner.token, body }) }
}

t.test('a voice espeak-ng has installed but the catalog does not name is saved; one it lacks is 422 at tts.voice', async (t) => {
  const { a, owner, send } = await setup(t)
  const listed = expectStatus(await send('GET', '/api/v1/providers/tts/espeak/resources'), 200, 'resources')
  t.equal(listed.source, 'live', 'espeak-ng is installed here (CI installs it)')
  const ids = (listed.voices as { id: string }[]).map((v) => v.id)
  t.ok(ids.includes('pt-br') && ids.includes('it'), 'the machine has voices beyond the catalog’s six')

  const id = await createWorkflow(a, owner)
  const saved = await send('PUT', `${W}/${id}/config`, { tts: { provider: 'espeak', voice: 'pt-br' } })
  t.equal(saved.status, 200)
  t.equal(saved.body.config.tts.voice, 'pt-br')

  const refused = await send('PUT', `${W}/${id}/config`, { tts: { provider: 'espeak', voice: 'xx-nowhere' } })
  t.equal(refused.status, 422)
  t.match(refused.body.detail, [{ loc: ['body', 'tts', 'voice'], msg: /espeak tts has no voice "xx-nowhere" installed/, input: 'xx-nowhere' }])
  t.equal(expectStatus(await send('GET', `${W}/${id}`), 200, 'get').config.tts.voice, 'pt-br', 'the refused config was not saved')

  const option = await send('PUT', `${W}/${id}/config`, { tts: { provider: 'espeak', voice: '--quiet' } })
  t.equal(option.status, 422, 'a name shaped like an option is refused by the schema before any listing')
  t.match(option.body.detail, [{ loc: ['body', 'tts', 'voice'], msg: /not a voice name/ }])
})

t.test('creating an agent checks its config the same way, at body.config.tts.voice', async (t) => {
  const { send } = await setup(t)
  const ok = await send('POST', W, { name: 'Italian desk', config: { language: 'it', tts: { provider: 'espeak', voice: 'it' } } })
  t.equal(ok.status, 201)
  const bad = await send('POST', W, { name: 'Nowhere desk', config: { tts: { voice: 'alloy' } } })
  t.equal(bad.status, 422, 'espeak is the default provider, and it has no voice "alloy"')
  t.match(bad.body.detail, [{ loc: ['body', 'config', 'tts', 'voice'] }])
  t.equal(expectStatus(await send('GET', W), 200, 'list').length, 1, 'only the accepted agent exists')
})

t.test('when the machine cannot list its voices, a save may use the catalog’s common ones only', async (t) => {
  const unlisted = async () => null
  await t.resolves(checkInstalledVoice(AgentConfig.parse({ tts: { voice: 'tr' } }), ['body'], unlisted))
  await t.rejects(checkInstalledVoice(AgentConfig.parse({ tts: { voice: 'pt-br' } }), ['body'], unlisted), ValidationError)
  await t.resolves(
    checkInstalledVoice(AgentConfig.parse({ tts: { provider: 'openai', voice: 'nova' } }), ['body'], unlisted),
    'closed lists are the schema’s job',
  )
  await t.resolves(
    checkInstalledVoice(AgentConfig.parse({ tts: { voice: 'EN-US' } }), ['body'], async () => ['en-us']),
    'ids compare as the engine asks for them, lower case',
  )
})
