import type { VariantSpec } from './spec.js';

/** Conforming variants of the errors area. */
export const ERRORS_VARIANTS = [
  {
    id: 'error-extra-members',
    area: 'errors',
    description: 'adds details: [] and a traceId to every Error body (the Error schema names what must be there, not all that may)',
    overrides: {
      // Extra members are allowed: the Error schema names what must be there, not all that may be.
      error: (status, code, message, reference) => {
        const error = reference(status, code, message);
        return { ...error, json: { ...error.json, details: [], traceId: `trace-${status}-${code}` } };
      },
    },
  },
  {
    id: 'error-codes-upper',
    area: 'errors',
    description: 'writes every Error code in upper snake case (NOT_FOUND, UNAUTHORIZED, RATE_LIMITED), as Google\'s and Go\'s services do: the values of code are not shown',
    overrides: {
      error: (status, code, message, reference) => reference(status, code.toUpperCase(), message),
    },
  },
] as const satisfies readonly VariantSpec[];
