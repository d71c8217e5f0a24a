import type { VariantSpec } from './spec.js';

/** Conforming variants of the creating area. */
export const CREATING_VARIANTS = [
  { id: 'random-ids', area: 'creating', description: 'assigns random, non-sequential positive 63-bit ids' },
  { id: 'ids-from-zero', area: 'creating', description: 'assigns ids from 0 (an int64 like any other)', options: { firstId: 0n } },
  {
    id: 'strict-bodies',
    area: 'creating',
    description: 'refuses a NewPet with members other than name, categoryId and status with a 400 Error (the spec does not say they are allowed)',
  },
  {
    id: 'name-max-255',
    area: 'creating',
    description: 'refuses a name longer than 255 characters with a 400 Error (the spec states no maximum)',
  },
  { id: 'location-header', area: 'creating', description: 'sends a Location header with every 201' },
  {
    id: 'name-controls-refused',
    area: 'creating',
    description: 'refuses a name holding control characters or U+0000 with a 400 Error (the spec states no character set)',
  },
  {
    id: 'name-unique-400',
    area: 'creating',
    description: 'keeps names unique and refuses a name another pet has with a 400 Error (the spec neither requires nor forbids it)',
  },
] as const satisfies readonly VariantSpec[];
