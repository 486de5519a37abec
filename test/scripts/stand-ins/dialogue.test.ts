import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { callerTurns, DEFAULT_DIALOGUE, Dialogue, DialogueError, MAX_LINE_CHARS, normalize, parseDialogue } from '../../../scripts/stand-ins/dialogue.js'

t.test('a script file: caller lines, each with at most one agent reply; comments and blank lines skipped', async (t) => {
  const turns = parseDialogue(
    ['# a booking', '', 'caller: I need a table.', 'agent: For how many?', '  Caller :  Four of us.  ', 'caller: Thanks.', 'AGENT: Goodbye.'].join('\r\n'),
  )
  t.same(turns, [
    { caller: 'I need a table.', reply: 'For how many?' },
    { caller: 'Four of us.', reply: null },
    { caller: 'Thanks.', reply: 'Goodbye.' },
  ])
})

t.test('a script file that cannot be read as a dialogue is refused naming the line', async (t) => {
  const refused = (text: string, message: RegExp) => t.throws(() => parseDialogue(text), { constructor: DialogueError, message })
  refused('caller: hi\nsomething else', /^line 2: expected "caller: …" or "agent: …"/)
  refused('agent: hello', /^line 1: an agent line before any caller line/)
  refused('caller: hi\nagent: one\nagent: two', /^line 3: a second agent line for one caller line/)
  refused('caller:   ', /^line 1: the caller line is empty/)
  refused(`caller: ${'a'.repeat(MAX_LINE_CHARS + 1)}`, /^line 1: longer than 2000 characters/)
  refused('# only a comment\n\n', /no "caller: …" line/)
})

t.test('each conversation hears the caller lines from the first, round and round, counted on its own', async (t) => {
  const d = new Dialogue(callerTurns(['one', 'two', 'three']))
  const callA = {}
  const callB = {}
  t.same([d.nextLine(callA), d.nextLine(callA)], ['one', 'two'])
  t.equal(d.nextLine(callB), 'one', 'a second call starts at the first line')
  t.same([d.nextLine(callA), d.nextLine(callA)], ['three', 'one'], 'after the last line, the first again')
})

t.test('a reply is found by the caller line it answers, whatever case, punctuation and spacing the transcript took', async (t) => {
  const d = new Dialogue([
    { caller: 'Hello, is this the line?', reply: 'It is.' },
    { caller: 'No reply here.', reply: null },
  ])
  t.equal(d.replyTo('hello  is this the LINE'), 'It is.')
  t.equal(d.replyTo('No reply here.'), null, 'a caller line without a reply: the stand-in echoes')
  t.equal(d.replyTo('Hello, is'), null, 'a partial transcript (a speculative request) gets no scripted reply')
  t.equal(normalize(' Çok  güzel, değil mi? '), 'çok güzel değil mi', 'letters of any script are kept')
})

t.test('the default dialogue says in its replies that they are scripted', async (t) => {
  t.ok(DEFAULT_DIALOGUE.length >= 3)
  t.ok(DEFAULT_DIALOGUE.every((turn) => turn.reply !== null))
  t.match(DEFAULT_DIALOGUE[0]!.reply, /scripted stand-in, not a language model/)
  t.throws(() => new Dialogue([]), { name: 'DialogueError' })
})

t.test('docs/stand-ins.md shows the built-in dialogue as it is', async (t) => {
  const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../../../docs/stand-ins.md'), 'utf8')
  for (const [i, turn] of DEFAULT_DIALOGUE.entries()) t.match(doc, `| ${i + 1} | ${turn.caller} | ${turn.reply} |`)
})
