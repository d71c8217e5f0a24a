import type { DefectSpec } from './spec.js';

/** Defects of the store area. */
export const STORE_DEFECTS = [
  { id: 'store-orders-missing', area: 'store', description: 'has no GET /store/orders (404)', rules: ['STORE-01'] },
  {
    id: 'store-orders-post-only',
    area: 'store',
    description: 'maps /store/orders for POST only (a Spring @PostMapping), so a GET answers 405 Method Not Allowed',
    rules: ['STORE-01'],
  },
  {
    id: 'store-orders-unimplemented',
    area: 'store',
    description: 'answers GET /store/orders with 500: a generated server stub left unimplemented throws, and the framework answers 500',
    rules: ['ERR-04'],
  },
] as const satisfies readonly DefectSpec[];
