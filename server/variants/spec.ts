import type { Area } from '../../helpers/spec/catalog.js';
import type { ServerSettings } from '../settings.js';

export interface VariantSpec {
  id: string;
  /** `transport` touches every operation rather than one suite. */
  area: Area | 'transport';
  /** What the server does differently, and the freedom of the spec that allows it. */
  description: string;
  options?: Partial<ServerSettings>;
}
