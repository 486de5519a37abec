/**
 * What `npm run stand-ins` prints once they listen: that they are scripted fakes, where each one
 * answers, the dialogue, and exactly how to point an organization at them. Pure text.
 */
import type { Turn } from './dialogue.js'

export interface Endpoints {
  openaiUrl: string
  deepgramUrl: string
  openaiKey: string
  deepgramKey: string
  apiUrl: string
}

/** The PUT /api/v1/credentials bodies that point an organization at the stand-ins (docs/api.md, credentials). */
export function credentialBodies(e: Endpoints) {
  return [
    { provider: 'deepgram', fields: { api_key: e.deepgramKey, base_url: e.deepgramUrl } },
    { provider: 'openai', fields: { api_key: e.openaiKey, base_url: e.openaiUrl } },
  ] as const
}

/** One shell word: single quotes, a quote inside written '\'' */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`
}

/** The curl command storing one credential; the API key stays a shell variable, never a value. */
export function credentialCurl(apiUrl: string, body: unknown, indent = ''): string {
  return [
    `${indent}curl -s -X PUT ${shellQuote(`${apiUrl}/api/v1/credentials`)} -H "x-api-key: $OZAN_API_KEY" -H 'content-type: application/json' \\`,
    `${indent}  -d ${shellQuote(JSON.stringify(body))}`,
  ].join('\n')
}

export function banner(e: Endpoints, turns: readonly Turn[], configuring: boolean): string {
  const [deepgram, openai] = credentialBodies(e)
  const dialogue = turns.flatMap((t, i) => [
    `  ${i + 1}. caller: ${t.caller}`,
    `     agent:  ${t.reply ?? `You said: ${t.caller}   (no scripted reply: the echo)`}`,
  ])
  const store = configuring
    ? ['       (--configure: this command stores them now, see below.)']
    : [
        credentialCurl(e.apiUrl, deepgram, '       '),
        credentialCurl(e.apiUrl, openai, '       '),
        '     or let this command do it: npm run stand-ins -- --configure --api-key "$OZAN_API_KEY"',
      ]
  return [
    'Provider stand-ins are running. They are NOT real providers: local fakes that speak the',
    "providers' wire protocols and answer from a SCRIPT. They recognize no speech and understand nothing.",
    '',
    `  OpenAI stand-in    ${e.openaiUrl}   key ${e.openaiKey}`,
    '    chat completions (scripted replies, else "You said: …"), embeddings, speech (a tone, not a voice),',
    '    transcriptions (the next caller line)',
    `  Deepgram stand-in  ${e.deepgramUrl}   key ${e.deepgramKey}`,
    `    live transcription ${e.deepgramUrl.replace(/^http/, 'ws')}/v1/listen (the next caller line for each stretch of speech),`,
    '    Aura speech /v1/speak (a tone, not a voice)',
    '',
    'The dialogue. Whatever you say, each stretch of your speech (until a pause) is "heard" as the',
    "call's next caller line, from the first, round and round; the chat stand-in answers that line:",
    ...dialogue,
    '',
    'Point an organization at them:',
    '  1. Start Ozan so the outbound guard lets provider base URLs reach loopback:',
    '       OZAN_ALLOW_PRIVATE_CIDRS=127.0.0.0/8 npm start',
    '  2. Store its credentials (an API key with credentials:write in $OZAN_API_KEY). They replace the',
    "     organization's deepgram and openai credentials; DELETE /api/v1/credentials/{provider} removes them.",
    ...store,
    '     Instead of the openai credential, the operator may run Ozan with',
    `       OZAN_OPENAI_API_KEY=${e.openaiKey} OZAN_OPENAI_BASE_URL=${e.openaiUrl}`,
    '     (trusted, no range needed). Deepgram has no platform-wide setting: it needs the credential.',
    '  3. Talk: an agent with stt "deepgram" and tts "espeak" (the defaults; the stand-ins\' speech is a tone),',
    `     published, on the test-call page ${e.apiUrl}/call or over a web-call token. Walk-through: docs/stand-ins.md`,
    '',
    'Ctrl-C stops them.',
  ].join('\n')
}
