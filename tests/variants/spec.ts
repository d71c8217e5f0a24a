// A variant is a server that differs from the reference only in a way the spec allows; the gallery certifies
// each, so that no check accuses a conforming server. It is written exactly as a defect is (see
// tests/defects/spec.ts): one entry in `tests/variants/<group>.ts` with the seams it overrides, and settings
// where the freedom is a setting (a plan's limit, ids from 0).
import type { Area } from '../../helpers/spec/catalog.js';
import type { Overrides } from '../../server/seams.js';
import type { ServerSettings } from '../../server/settings.js';

export interface VariantSpec {
  id: string;
  /** `transport` touches every operation rather than one suite. */
  area: Area | 'transport';
  /** What the server does differently, and the freedom of the spec that allows it. */
  description: string;
  options?: Partial<ServerSettings>;
  /** The variant itself: the seams it overrides. A variant made of settings alone has none. */
  overrides?: Overrides;
}
