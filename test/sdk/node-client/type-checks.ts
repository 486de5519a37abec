// Checked by `tsc -p tsconfig.json` (npm test), never run: the client's types follow the generated
// paths, so a wrong path, a missing parameter or a wrong body does not compile.
import type { OzanClient } from '../../../sdk/node/src/index.js'

export async function typeChecks(c: OzanClient): Promise<void> {
  const wf = await c.POST('/api/v1/workflows', { body: { name: 'Agent' } })
  const id: string = wf.id
  const detail = await c.GET('/api/v1/workflows/{workflow_uuid}', { params: { path: { workflow_uuid: id } } })
  const archived: boolean = detail.archived
  void archived
  const token = await c.POST('/api/v1/calls/web-token', { body: { workflow_uuid: id } })
  const wsUrl: string = token.ws_url
  void wsUrl
  // A 204 answers nothing.
  const nothing: undefined = await c.DELETE('/api/v1/workflows/{workflow_uuid}', { params: { path: { workflow_uuid: id } } })
  void nothing
  // Optional init: a list without required parameters.
  await c.GET('/api/v1/sessions')
  for await (const call of c.paginate('/api/v1/calls', { params: { query: { limit: 10, channel: 'sessions' } } })) {
    const uuid: string = call.call_uuid
    void uuid
  }
  for await (const page of c.pages('/api/v1/sessions')) {
    const total: number | null = page.total
    void total
  }
  const { data, headers } = await c.request('get', '/api/v1/sessions', { params: { query: { limit: 5 } } })
  void data.length
  void headers.get('x-total-count')
  // Raw bodies name their media type.
  const voiceTurn = () =>
    c.POST('/api/v1/workflows/{workflow_uuid}/sessions/{session_uuid}/voice', {
      params: { path: { workflow_uuid: id, session_uuid: id } },
      body: new Uint8Array(0),
      contentType: 'audio/wav',
    })
  void voiceTurn

  // @ts-expect-error: no such path
  await c.GET('/api/v1/no-such-path')
  // @ts-expect-error: the path parameter is required
  await c.GET('/api/v1/workflows/{workflow_uuid}')
  // @ts-expect-error: a body that lacks the required name
  await c.POST('/api/v1/workflows', { body: {} })
  // @ts-expect-error: a query parameter of the wrong type
  await c.GET('/api/v1/calls', { params: { query: { limit: 'ten' } } })
  // @ts-expect-error: a channel the list does not know
  await c.GET('/api/v1/calls', { params: { query: { channel: 'fax' } } })
  // @ts-expect-error: GET is not an operation of this path
  await c.GET('/api/v1/calls/web-token')
  // @ts-expect-error: not a paged list
  c.paginate('/api/v1/workflows/{workflow_uuid}', { params: { path: { workflow_uuid: id } } })
  // @ts-expect-error: a raw body needs its media type
  await c.POST('/api/v1/workflows/{workflow_uuid}/sessions/{session_uuid}/voice', { params: { path: { workflow_uuid: id, session_uuid: id } }, body: 'x' })
}
