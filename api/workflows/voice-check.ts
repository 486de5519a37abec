import { findProvider } from '../../engine/catalog/index.js'
import type { AgentConfig } from '../../engine/graph-runtime/index.js'
import { ValidationError } from '../http/validation.js'

/** A provider's installed voice ids (GET /providers/tts/{key}/resources' live list), null when unlisted. */
export type InstalledVoices = (provider: string) => Promise<string[] | null>

/**
 * A local provider's voices are whatever this machine has installed (espeak-ng lists some 130),
 * so the config schema checks only a voice's shape and this checks the name when the config is
 * saved: an agent is never saved with a voice its calls would fail on. When the machine cannot
 * list its voices, the catalog's common ones are what a save may use.
 */
export async function checkInstalledVoice(config: AgentConfig | undefined, loc: (string | number)[], installed: InstalledVoices): Promise<void> {
  const voice = config?.tts.voice
  const entry = config && findProvider('tts', config.tts.provider)
  if (voice === undefined || !entry?.installed_voices) return
  const voices = (await installed(entry.key)) ?? entry.voices ?? []
  // The engine asks espeak-ng for the lower-case id (engine/pipeline/providers/tts/espeak.ts).
  if (voices.includes(voice.toLowerCase())) return
  throw new ValidationError([
    {
      type: 'value_error',
      loc: [...loc, 'tts', 'voice'],
      msg: `${entry.key} tts has no voice "${voice}" installed on this server (GET /api/v1/providers/tts/${entry.key}/resources lists them)`,
      input: voice,
    },
  ])
}
