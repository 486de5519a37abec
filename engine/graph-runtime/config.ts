import { z } from 'zod'
import { findProvider, type ServiceType } from '../catalog/index.js'
import { AnalysisConfig } from './analysis-config.js'

/** Words that acknowledge without taking the turn; they do not interrupt the agent by default. */
export const DEFAULT_BACKCHANNELS = [
  'uh-huh',
  'mm-hmm',
  'mhm',
  'yeah',
  'yes',
  'okay',
  'ok',
  'right',
  'sure',
  'i see',
  'evet',
  'hı hı',
  'hıhı',
  'tamam',
  'peki',
  'anladım',
  'aynen',
]

/** What a locally installed voice is called (espeak-ng's Language column: `en-us`, `tr`, `cmn-latn-pinyin`). */
export const INSTALLED_VOICE_NAME = /^[a-z0-9][a-z0-9-]*$/i

/**
 * The agent's runtime configuration (the spec's ConfigUpdate; its fields are "not shown" there).
 * PUT /config replaces the whole config; omitted fields take these defaults.
 */
export const AgentConfig = z
  .object({
    language: z
      .string()
      .regex(/^[a-z]{2}(-[A-Z]{2})?$/, 'A language tag such as en-US or tr-TR')
      .default('en-US'),
    first_speaker: z.enum(['agent', 'user']).default('agent'),
    stt: z
      .object({
        provider: z.enum(['deepgram', 'openai']).default('deepgram'),
        model: z.string().min(1).max(100).optional(),
        language: z.string().max(20).optional(),
      })
      .default({ provider: 'deepgram' }),
    llm: z
      .object({
        provider: z.enum(['openai']).default('openai'),
        model: z.string().min(1).max(100).optional(),
        temperature: z.number().min(0).max(2).default(0.7),
        max_tokens: z.number().int().min(1).max(8192).default(512),
      })
      .default({ provider: 'openai', temperature: 0.7, max_tokens: 512 }),
    tts: z
      .object({
        provider: z.enum(['espeak', 'deepgram', 'openai']).default('espeak'),
        voice: z.string().min(1).max(100).optional(),
        model: z.string().min(1).max(100).optional(),
        speed: z.number().min(0.5).max(2).default(1),
      })
      .default({ provider: 'espeak', speed: 1 }),
    turn_taking: z
      .object({
        strategy: z
          .enum(['text_adaptive', 'silence'])
          .default('text_adaptive')
          .describe(
            'silence: end of turn after endpointing_ms of silence; text_adaptive: that wait shortened after a complete sentence or question and lengthened after a trailing conjunction or filler (tr, en).',
          ),
        endpointing_ms: z.number().int().min(50).max(5000).default(300),
        interruption_min_words: z.number().int().min(0).max(10).default(2),
        interruption_min_duration_ms: z.number().int().min(0).max(3000).default(400),
        backchannel_words: z.array(z.string().trim().min(1).max(40)).max(100).default(DEFAULT_BACKCHANNELS),
        preemptive_generation: z.boolean().default(true),
      })
      .default({
        strategy: 'text_adaptive',
        endpointing_ms: 300,
        interruption_min_words: 2,
        interruption_min_duration_ms: 400,
        backchannel_words: DEFAULT_BACKCHANNELS,
        preemptive_generation: true,
      }),
    max_call_duration_s: z
      .number()
      .int()
      .min(10)
      .max(4 * 3600)
      .default(1800),
    silence_timeout_s: z.number().int().min(3).max(600).default(20),
    recording: z.boolean().default(false),
    analysis: AnalysisConfig.optional(),
  })
  .superRefine((c, ctx) => {
    // Closed lists in the catalog are enforced; open-ended ones (null) accept any name.
    const check = (stage: ServiceType, provider: string, field: 'model' | 'voice', value: string | undefined) => {
      const entry = findProvider(stage, provider)
      if (field === 'voice' && entry?.installed_voices) {
        // Checked against the machine's own list when saved; here only the shape the engine's
        // command line accepts (a name, never an option such as `--foo`).
        if (value !== undefined && !INSTALLED_VOICE_NAME.test(value))
          ctx.addIssue({ code: 'custom', path: [stage, field], message: `"${value}" is not a voice name (letters, digits and dashes)`, input: value })
        return
      }
      const allowed = field === 'model' ? entry?.models : entry?.voices
      if (value !== undefined && allowed && !allowed.includes(value))
        ctx.addIssue({
          code: 'custom',
          path: [stage, field],
          message: `${provider} ${stage} has no ${field} "${value}" (one of: ${allowed.join(', ')})`,
          input: value,
        })
    }
    check('stt', c.stt.provider, 'model', c.stt.model)
    const sttLanguages = findProvider('stt', c.stt.provider)?.languages ?? []
    if (c.stt.language !== undefined && sttLanguages.length && !sttLanguages.includes(c.stt.language))
      ctx.addIssue({
        code: 'custom',
        path: ['stt', 'language'],
        message: `${c.stt.provider} stt has no language "${c.stt.language}" (one of: ${sttLanguages.join(', ')})`,
        input: c.stt.language,
      })
    check('tts', c.tts.provider, 'voice', c.tts.voice)
    check('tts', c.tts.provider, 'model', c.tts.model)
  })
  .meta({ id: 'ConfigUpdate', description: 'Agent configuration: providers, language, turn-taking, limits (see docs/agents.md).' })

export type AgentConfig = z.output<typeof AgentConfig>

export const DEFAULT_CONFIG: AgentConfig = AgentConfig.parse({})
