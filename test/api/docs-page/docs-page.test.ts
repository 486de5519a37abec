import t, { type Test } from 'tap'
import type { Locator, Page, Request } from 'playwright-core'
import { launchChromium, skipWithoutChromium } from '../../helpers/chromium.js'
import { startTestApp } from '../../helpers/app.js'
import { createKey, createWorkflow, newOwner } from '../../helpers/tenancy-fixtures.js'

// The API reference (GET /docs) in real Chromium against the real app, read and used as a
// developer would: every operation listed, request bodies shown as their fields, each
// operation's error codes, and "Try it out" with an API key that stays in the page.

const skip = skipWithoutChromium()
const app = await startTestApp()
t.teardown(() => app.close())
const owner = await newOwner(app)
const { key } = await createKey(app, owner)
const AGENT_NAME = `Docs page agent ${Date.now()}`
await createWorkflow(app, owner, { name: AGENT_NAME })
const doc = (await app.request('GET', '/api/v1/openapi.json')).body
const operationCount = Object.values(doc.paths as Record<string, object>).reduce((n, item) => n + Object.keys(item).length, 0)

interface Opened {
  page: Page
  /** Every request the page made, in order. */
  requests: Request[]
  /** Requests that failed or were answered 4xx/5xx, other than the ones a test sends on purpose. */
  failed: string[]
  pageErrors: string[]
}

async function openDocs(t: Test): Promise<Opened> {
  const browser = await launchChromium()
  t.teardown(() => browser.close())
  const page = await browser.newPage()
  const requests: Request[] = []
  const failed: string[] = []
  page.on('request', (r) => requests.push(r))
  page.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`))
  page.on('response', (r) => {
    if (r.status() >= 400 && !new URL(r.url()).pathname.startsWith('/api/v1/workflows')) failed.push(`${r.status()} ${r.url()}`)
  })
  await page.goto(`${app.url}/docs`)
  await page.locator('.opblock').first().waitFor({ timeout: 30_000 })
  return { page, requests, failed, pageErrors: browser.pageErrors }
}

/**
 * Swagger UI renders a long operation list virtualized (150 tags and operations or more, as this
 * API has): only the blocks near the viewport exist. So a reader's scroll is what finds them: the
 * page is scrolled from the top a screen at a time, and `seen` is told the blocks of each screen.
 * Resolves with the block of `operationId` once it is rendered (or null at the bottom).
 */
async function scrollThrough(page: Page, seen: (ids: string[]) => void, operationId?: string): Promise<Locator | null> {
  await page.evaluate(() => window.scrollTo(0, 0))
  for (let screen = 0; screen < 400; screen++) {
    await page.waitForTimeout(60)
    seen(await page.locator('.opblock').evaluateAll((blocks) => blocks.map((b) => b.id)))
    const block = operationId === undefined ? null : page.locator(`.opblock[id$="-${operationId}"]`)
    if (block && (await block.count())) return block
    const atBottom = await page.evaluate(() => {
      const before = window.scrollY
      window.scrollBy(0, window.innerHeight * 0.8)
      return window.scrollY === before
    })
    if (atBottom) return null
  }
  return null
}

/** An operation's block, scrolled to and opened (its summary clicked unless it is open already). */
async function openOperation(page: Page, operationId: string): Promise<Locator> {
  const block = await scrollThrough(page, () => {}, operationId)
  if (!block) throw new Error(`${operationId} is not on the page`)
  await block.scrollIntoViewIfNeeded()
  if (!(await block.evaluate((e) => e.classList.contains('is-open')))) await block.locator('.opblock-summary-control').click()
  await block.locator('.opblock-body').waitFor()
  return block
}

/** Clicks "Try it out" then "Execute" and returns the live response's status cell and body. */
async function execute(block: Locator): Promise<{ status: string; body: string }> {
  await block.getByRole('button', { name: 'Try it out' }).click()
  await block.getByRole('button', { name: 'Execute' }).click()
  const live = block.locator('.live-responses-table .response')
  await live.waitFor({ timeout: 15_000 })
  const status = (await live.locator('.response-col_status').textContent()) ?? ''
  return { status: status.trim(), body: (await live.locator('.response-col_description').textContent()) ?? '' }
}

t.test('/docs loads every operation with no console error and no failed request, all from this origin', { skip }, async (t) => {
  const { page, requests, failed, pageErrors } = await openDocs(t)
  await page.waitForLoadState('networkidle')
  const listed = new Set<string>()
  await scrollThrough(page, (ids) => ids.forEach((id) => listed.add(id)))
  t.equal(listed.size, operationCount, `all ${operationCount} operations are listed, scrolling down the page`)
  t.ok(operationCount > 100)
  t.same(pageErrors, [], 'no console error (a CSP violation would be one)')
  t.same(failed, [], 'no failed request')
  const origins = new Set(requests.map((r) => new URL(r.url()).origin))
  t.same([...origins], [app.url], 'nothing is fetched from another origin')
  t.ok(
    requests.some((r) => r.url().endsWith('/docs/assets/swagger-ui-bundle.js')),
    'the renderer is the bundle the platform serves',
  )
  t.ok(
    requests.some((r) => r.url().endsWith('/api/v1/openapi.json')),
    'the page reads the document',
  )
  t.match(await page.locator('.docs-header h1').textContent(), 'Ozan API reference')
})

t.test("an operation's request body shows its schema's fields, not a $ref", { skip }, async (t) => {
  const { page, pageErrors } = await openDocs(t)
  const block = await openOperation(page, 'workflows_create')
  const body = block.locator('.opblock-section-request-body')
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered lines are what is checked (each field starts one)
  const text = await body.innerText()
  // The spec's fields of an agent's create request, and the constraint shown beside one of them.
  for (const field of ['name', 'description', 'template_id', 'definition']) t.match(text, new RegExp(`^${field}`, 'm'), `shows ${field}`)
  t.match(text, /WorkflowCreate/, 'names the schema')
  t.match(text, /\[1, 120\] characters/, "shows name's length bounds")
  // Nested objects are expanded too: the graph's variables and nodes.
  t.match(text, /^variables/m)
  t.match(text, /^nodes/m)
  t.notMatch(text, /\$ref|#\/components/, 'no reference string')
  t.same(pageErrors, [])
})

t.test('an operation lists each error status with its codes and an example body', { skip }, async (t) => {
  const { page, pageErrors } = await openDocs(t)
  const block = await openOperation(page, 'workflows_get')
  const rows = block.locator('.responses-wrapper .responses-table:not(.live-responses-table) tr.response')
  const codes = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-code')))
  t.same(codes, ['200', '401', '403', '404', '422', '429'])
  const row = (code: string) => rows.and(page.locator(`[data-code="${code}"]`))
  t.match(await row('401').textContent(), /authentication_required/)
  t.match(await row('403').textContent(), /permission_denied \(needs agents:read\)/)
  t.match(await row('429').textContent(), /rate_limited/)
  // The 404's example is the body the API answers with, shown in the page.
  const notFound = row('404')
  await notFound.getByRole('tab', { name: 'Example Value' }).click()
  const example = await notFound.locator('.example, .microlight, pre').first().textContent()
  t.match(example, /"code": "not_found"/)
  t.match(example, /"message": "The resource was not found\."/)
  t.same(pageErrors, [])
})

t.test('"Try it out" with an API key given to Authorize gets 200, and the key stays in the page', { skip }, async (t) => {
  const { page, requests, pageErrors } = await openDocs(t)
  await page.locator('.scheme-container button.authorize').click()
  const dialog = page.locator('.modal-ux')
  const apiKeyForm = dialog.locator('form').filter({ has: page.locator('h4 code', { hasText: /^ApiKeyAuth$/ }) })
  await apiKeyForm.getByRole('textbox').fill(key)
  // Swagger UI labels its Authorize and Logout buttons "Apply credentials" and "Remove authorization".
  await apiKeyForm.getByRole('button', { name: 'Apply credentials' }).click()
  await apiKeyForm.getByRole('button', { name: 'Remove authorization' }).waitFor()
  await apiKeyForm.getByRole('button', { name: 'Close' }).click()
  await dialog.waitFor({ state: 'detached' })

  const block = await openOperation(page, 'workflows_list')
  const result = await execute(block)
  t.equal(result.status, '200')
  t.match(result.body, AGENT_NAME, "the list shows the organization's agent")
  const sent = requests.filter((r) => new URL(r.url()).pathname === '/api/v1/workflows')
  t.equal(sent.length, 1, 'one request was sent')
  t.equal(await sent[0]!.headerValue('x-api-key'), key, 'the key went in the X-API-Key header')

  for (const r of requests) t.notOk(r.url().includes(key), `${r.url()} has no key`)
  t.notOk(page.url().includes(key), 'the address bar has no key')
  const stored = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie }))
  t.notOk(stored.includes(key), 'nothing stored holds the key')
  t.notOk(
    app.logs.some((line) => line.includes(key)),
    'no server log line holds the key',
  )
  t.ok(
    app.logs.some((line) => line.includes('"path":"/api/v1/workflows"') && line.includes('"status":200')),
    'the server did log the request (so the check above read the right log)',
  )
  t.same(pageErrors, [])

  // A reload forgets it: the same request is refused.
  await page.reload()
  await page.locator('.opblock').first().waitFor({ timeout: 30_000 })
  const again = await execute(await openOperation(page, 'workflows_list'))
  t.equal(again.status, '401', 'after a reload the page holds no key')
})

t.test('"Try it out" without a key shows the 401 and its code in the page', { skip }, async (t) => {
  const { page, requests } = await openDocs(t)
  const block = await openOperation(page, 'workflows_list')
  const result = await execute(block)
  t.equal(result.status, '401')
  t.match(result.body, /"code": "authentication_required"/)
  const sent = requests.filter((r) => new URL(r.url()).pathname === '/api/v1/workflows')
  t.equal(sent.length, 1)
  t.equal(await sent[0]!.headerValue('x-api-key'), null, 'no key was sent')
  t.equal(await sent[0]!.headerValue('authorization'), null, 'no token was sent')
})
