import type { DefectId } from './defects.js';
import type { ResolvedOptions } from './options.js';
import type { PetStore } from './pet-store.js';
import type { FixedWindowLimiter } from './rate-limiter.js';
import type { VariantId } from './variants.js';

/** What every handler and hook of one server instance shares. */
export interface Context {
  settings: ResolvedOptions;
  store: PetStore;
  limiter: FixedWindowLimiter;
  /** Whether a defect switch is on: the one question every defect `if` asks. */
  has(id: DefectId): boolean;
  /** Whether a conforming variant is on. */
  variant(id: VariantId): boolean;
}
