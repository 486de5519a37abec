import t from 'tap'
import { checkTemplate, renderTemplate } from '../../../engine/graph-runtime/index.js'

// Templates are Mustache (the issue: "a well-kept template library, not hand-rolled string
// replacement"), rendered as plain text for speech, so nothing is HTML-escaped.

const vars = (text: string) => [...checkTemplate(text).variables].sort()

t.test('a template names the first segment of every variable it reads', async (t) => {
  t.same(vars('Hello {{name}}, your order {{order.id}} ships {{ order.date }}.'), ['name', 'order'])
  t.same(vars('{{{raw}}} {{&amp}} {{^missing}}none{{/missing}}'), ['amp', 'missing', 'raw'], 'triple, ampersand and inverted sections read too')
  t.same(vars('Plain text, no placeholders.'), [])
  t.equal(checkTemplate('Hi {{name}}').error, null)
})

t.test('comments and the current item {{.}} are no variables', async (t) => {
  t.same(vars('{{! a note for editors }}{{#items}}{{.}}, {{/items}}'), ['items'])
})

t.test('names inside a section are the section item’s; inside an inverted section they are variables', async (t) => {
  t.same(vars('{{#order}}{{item}} for {{price}}{{/order}}'), ['order'])
  t.same(vars('{{#a}}{{#b}}{{c}}{{/b}}{{/a}}'), ['a'], 'nested sections')
  // An inverted section renders only when its name is empty, so names inside resolve outside it.
  t.same(vars('{{^order}}Sorry {{name}}, no order{{/order}}'), ['name', 'order'])
})

t.test('a template that does not parse returns the parser error', async (t) => {
  t.match(checkTemplate('{{#open}} never closed'), { error: /Unclosed section "open"/ })
  t.match(checkTemplate('{{#a}}x{{/b}}'), { error: /Unclosed section "a"/ })
  t.match(checkTemplate('Hi {{name'), { error: /Unclosed tag/ })
})

t.test('partials are refused', async (t) => {
  t.same(checkTemplate('Terms: {{> terms}}').error, 'Partials ({{> name}}) are not supported')
  t.same(checkTemplate('{{#a}}{{> inner}}{{/a}}').error, 'Partials ({{> name}}) are not supported', 'also inside a section')
})

t.test('rendering fills variables and dotted paths', async (t) => {
  t.equal(
    renderTemplate('Hi {{name}}, call {{system.caller_number}}', { name: 'Ayşe', system: { caller_number: '+905551112233' } }),
    'Hi Ayşe, call +905551112233',
  )
  t.equal(renderTemplate('{{#items}}{{.}};{{/items}}', { items: ['a', 'b'] }), 'a;b;')
  t.equal(renderTemplate('[{{missing}}]', {}), '[]', 'an unset variable renders empty')
})

t.test('rendering does not HTML-escape: speech is not HTML', async (t) => {
  t.equal(renderTemplate('{{who}}', { who: 'Tom & Jerry <3' }), 'Tom & Jerry <3')
  t.equal(renderTemplate('{{q}}', { q: `"quoted" 'single' /slash/ \`tick\` =` }), `"quoted" 'single' /slash/ \`tick\` =`)
  t.equal(renderTemplate('{{n}} {{b}}', { n: 42, b: false }), '42 false', 'numbers and booleans as text')
})
