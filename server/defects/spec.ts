import type { Area } from '../../helpers/spec/catalog.js';
import type { ServerSettings } from '../settings.js';

export type { Area } from '../../helpers/spec/catalog.js';

export interface DefectSpec {
  id: string;
  area: Area;
  /** What the server does wrong, and the framework habit or coding mistake that ships it. */
  description: string;
  /** Rule IDs of spec/rules.yaml a conformance run must report as failed under this defect. */
  rules: readonly string[];
  /**
   * Rules that may also fail, depending on the seed: a generated body (FUZZ-01, FUZZ-02) or a generated
   * sequence (FUZZ-03, and the whole-run rules that judge its answers too) can happen to hit the defect.
   * Never counted as a catch (that is `rules`, judged by deterministic cases), never a false alarm.
   */
  byChance?: readonly string[];
  /** Settings without which the defect would not show (they never override what the caller sets). */
  options?: Partial<ServerSettings>;
  /** CLI options without which no check can see the defect (a rule that runs only on request). */
  cliArgs?: readonly string[];
}
