/**
 * The API reference page's start-up script (GET /docs/assets/docs.js, loaded by GET /docs under a
 * CSP that allows no inline script). It fetches the OpenAPI document from the server that served
 * the page and hands it to Swagger UI (window.SwaggerUIBundle, from /docs/assets/swagger-ui-bundle.js).
 *
 * A key typed into "Authorize" stays in Swagger UI's in-memory state: persistAuthorization is off,
 * so nothing reaches localStorage, and the key travels only in the X-API-Key (or Authorization)
 * header of the requests the reader sends; reloading the page forgets it.
 */

const base = location.origin

function showProblem(message) {
  const root = document.getElementById('swagger-ui')
  root.textContent = ''
  const p = document.createElement('p')
  p.className = 'docs-problem'
  p.setAttribute('role', 'alert')
  p.textContent = message
  root.append(p)
}

async function start() {
  let spec
  try {
    const res = await fetch(`${base}/api/v1/openapi.json`, { credentials: 'omit' })
    if (!res.ok) throw new Error(`HTTP ${res.status}`)
    spec = await res.json()
  } catch (err) {
    showProblem(`The OpenAPI document could not be loaded (${err.message}).`)
    return
  }
  // The document names OZAN_PUBLIC_URL; "Try it out" goes to the server that served this page
  // instead, the only origin the page's CSP lets it reach.
  spec.servers = [{ url: base, description: 'This server' }]
  window.SwaggerUIBundle({
    spec,
    dom_id: '#swagger-ui',
    // The API's own presets without the standalone top bar, whose URL box could load another document.
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    // Never phone swagger.io's validator (the page's CSP would refuse it anyway).
    validatorUrl: null,
    // Configuration from the query string could point the page at another document.
    queryConfigEnabled: false,
    persistAuthorization: false,
    withCredentials: false,
    tryItOutEnabled: false,
    // Request and response bodies open on their schema (every field, nested objects expanded) rather than a sample.
    defaultModelRendering: 'model',
    defaultModelExpandDepth: 6,
    defaultModelsExpandDepth: 0,
    displayOperationId: true,
    displayRequestDuration: true,
    showExtensions: true,
    showCommonExtensions: true,
    filter: true,
    deepLinking: true,
  })
}

start()
