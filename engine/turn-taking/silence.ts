import { Endpointer, type EndpointerOptions } from './endpointer.js'

export type SilenceOptions = EndpointerOptions

/**
 * End of turn after a fixed silence (default 300 ms) once the STT has finalized the words — the
 * baseline every other strategy is measured against. The rules live in Endpointer.
 */
export class SilenceStrategy extends Endpointer {
  constructor(options: Partial<SilenceOptions> = {}) {
    super(options)
  }

  protected waitMs(): number {
    return this.options.silenceMs
  }
}
