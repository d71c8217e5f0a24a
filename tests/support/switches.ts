// The defect and variant catalogs as server options: the mutation harness, the gallery, the tests and
// `npm run serve -- --defect <id>` switch them on by id. Like the catalogs, this file ships only with the
// source repository; the package's reference server takes overrides (server/seams.ts), never ids.
import { defectById, isDefectId, type DefectId } from '../defects/catalog.js';
import type { ReferenceServerOptions } from '../../server/options.js';
import type { ServerSettings } from '../../server/settings.js';
import type { FrontKind } from './fronts.js';
import { isVariantId, variantById, type VariantId } from '../variants/catalog.js';

export { isDefectId, isVariantId, type DefectId, type VariantId };

export interface SwitchedServerOptions extends ReferenceServerOptions {
  defects?: readonly DefectId[];
  variants?: readonly VariantId[];
}

/**
 * The server options that switch on these defects and variants: each one's overrides, after any given,
 * and each one's settings under the caller's (an explicit option always wins, so a test can still shrink a
 * window).
 */
export function withSwitches(options: SwitchedServerOptions): ReferenceServerOptions {
  const { defects = [], variants = [], ...rest } = options;
  const switched = [...defects.map(defectById), ...variants.map(variantById)];
  const settings: ServerSettings = Object.assign({}, ...switched.map((entry) => entry.options ?? {}), withoutUndefined(rest));
  const overrides = [...(rest.overrides ?? []), ...switched.flatMap((entry) => (entry.overrides ? [entry.overrides] : []))];
  return { ...settings, overrides };
}

/** The front a defect among these stands behind, if one does (DefectSpec.front). */
export function frontOf(options: SwitchedServerOptions): FrontKind | undefined {
  return (options.defects ?? []).map(defectById).find((defect) => defect.front !== undefined)?.front;
}

// `{ port: undefined }` from a CLI parser must not erase a switch's setting.
function withoutUndefined(options: ReferenceServerOptions): ReferenceServerOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}
