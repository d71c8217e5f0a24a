import type { DefectSpec } from './spec.js';

/** Defects of the versioning area. */
export const VERSIONING_DEFECTS = [
  { id: 'base-path-api', area: 'versioning', description: 'serves under /api instead of /v1', rules: ['VER-01'] },
] as const satisfies readonly DefectSpec[];
