import t from 'tap'
import { startOpenAiStandIn } from '../../../../../engine/pipeline/providers/stand-ins/index.js'

// The stand-in refuses a response_format OpenAI would refuse (400 invalid_request_error, OpenAI's
// wording), so a client building structured-output requests is held to the real rules.

const KEY = 'sk-standin-format-key'
const base = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }
const closed = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false }

t.test('response_format is checked as OpenAI checks it', async (t) => {
  const s = await startOpenAiStandIn({ apiKey: KEY })
  t.teardown(() => s.close())
  const post = async (response_format: unknown) => {
    const res = await fetch(`${s.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ ...base, response_format }),
    })
    return { status: res.status, body: (await res.json()) as { error?: { message: string; param: string | null; type: string } } }
  }
  const format = (json_schema: unknown) => ({ type: 'json_schema', json_schema })

  t.equal((await post(format({ name: 'ok', schema: closed, strict: true }))).status, 200, 'a strict, closed schema')
  t.equal((await post(format({ name: 'ok', schema: { type: 'object', properties: { a: {} } } }))).status, 200, 'an open schema without strict')
  t.equal((await post({ type: 'json_object' })).status, 200)

  t.match(await post({ type: 'yaml' }), { status: 400, body: { error: { param: 'response_format.type', type: 'invalid_request_error' } } })
  t.match(await post({ type: 'json_schema' }), { status: 400, body: { error: { param: 'response_format.json_schema' } } })
  t.match(await post(format({ name: 'bad name', schema: closed })), { status: 400, body: { error: { param: 'response_format.json_schema.name' } } })
  t.match(await post(format({ name: 'x', schema: { type: 'array' } })), {
    status: 400,
    body: { error: { message: /must be a JSON Schema of 'type: "object"'/ } },
  })
  t.match(await post(format({ name: 'x', strict: true, schema: { ...closed, additionalProperties: true } })), {
    status: 400,
    body: { error: { message: /context=\(\), 'additionalProperties' is required to be supplied and to be false/ } },
  })
  const nested = { ...closed, properties: { a: { type: 'object', properties: { b: { type: 'string' } }, required: [], additionalProperties: false } } }
  t.match(await post(format({ name: 'x', strict: true, schema: nested })), {
    status: 400,
    body: { error: { message: /context=\('properties', 'a'\), 'required' is required .* Missing 'b'/ } },
  })
})
