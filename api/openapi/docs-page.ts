/**
 * A dependency-free reference page: it fetches the OpenAPI document and lists every operation
 * with its auth, parameters, body and responses. No CDN is needed, so it works offline.
 */
export const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Ozan API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:960px;padding:24px;color:#1b1f24}
h1{margin-top:0}h2{border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:32px}
.op{border:1px solid #e3e3e3;border-radius:6px;margin:12px 0;padding:10px 14px}
.m{display:inline-block;min-width:64px;font-weight:700;text-transform:uppercase}
.get{color:#0a7}.post{color:#06c}.put,.patch{color:#b70}.delete{color:#c33}
code{background:#f4f4f4;padding:1px 4px;border-radius:3px}small{color:#666}
pre{background:#f7f7f7;padding:8px;overflow:auto;font-size:13px}
</style></head><body><h1>Ozan API reference</h1>
<p>Machine-readable document: <a href="/api/v1/openapi.json"><code>/api/v1/openapi.json</code></a> (OpenAPI 3.1).</p>
<div id="ops">Loading…</div>
<script>
const esc = s => String(s).replace(/[&<>"]/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]))
fetch('/api/v1/openapi.json').then(r => r.json()).then(doc => {
  const byTag = {}
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item)) (byTag[op.tags[0]] ??= []).push({ path, method, op })
  let html = ''
  for (const [tag, ops] of Object.entries(byTag)) {
    html += '<h2>' + esc(tag) + '</h2>'
    for (const { path, method, op } of ops) {
      const auth = op.security.length === 0 ? 'no auth' : op.security.map(s => Object.keys(s)[0]).join(' or ')
      html += '<div class="op"><span class="m ' + method + '">' + method + '</span> <code>' + esc(path) + '</code> <small>' + esc(auth) +
        (op['x-permission'] ? ' · needs ' + esc(op['x-permission']) : '') + '</small><div>' + esc(op.summary) + '</div>'
      if (op.description) html += '<p>' + esc(op.description) + '</p>'
      if (op.parameters.length) html += '<div>Parameters: ' + op.parameters.map(p => '<code>' + esc(p.in + ' ' + p.name) + '</code>').join(' ') + '</div>'
      if (op.requestBody) html += '<div>Body: <code>' + esc(Object.entries(op.requestBody.content).map(([m, c]) => m + ' ' + JSON.stringify(c.schema)).join(' | ')) + '</code></div>'
      html += '<div>Responses: ' + Object.entries(op.responses).map(([s, r]) => '<code>' + s + '</code> ' + esc(r.description)).join(' · ') + '</div></div>'
    }
  }
  document.getElementById('ops').innerHTML = html
})
</script></body></html>`
