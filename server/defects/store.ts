import type { DefectSpec } from './spec.js';

/** Defects of the store area. */
export const STORE_DEFECTS = [
  { id: 'store-orders-missing', area: 'store', description: 'has no GET /store/orders (404)', rules: ['STORE-01'] },
] as const satisfies readonly DefectSpec[];
