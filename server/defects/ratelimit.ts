import type { DefectSpec } from './spec.js';

/** Defects of the ratelimit area. */
export const RATELIMIT_DEFECTS = [
  {
    id: 'rate-headers-missing-on-errors',
    area: 'ratelimit',
    // The probe's 429 is an error response too, and RATE-10 judges its headers.
    description: 'leaves the X-RateLimit headers off error responses (the 429 included)',
    rules: ['FUZZ-03', 'RATE-01', 'RATE-10'],
  },
  { id: 'rate-remaining-frozen', area: 'ratelimit', description: 'always reports X-RateLimit-Remaining equal to the limit', rules: ['RATE-04', 'RATE-10', 'RATE-14'] },
  { id: 'rate-reset-delta-seconds', area: 'ratelimit', description: 'sends X-RateLimit-Reset as seconds until the reset', rules: ['FUZZ-03', 'RATE-05'] },
  {
    id: 'rate-remaining-above-limit',
    area: 'ratelimit',
    description: 'reports X-RateLimit-Remaining above X-RateLimit-Limit (until it reaches 0)',
    rules: ['FUZZ-03', 'RATE-03'],
  },
  { id: 'rate-limit-header-decimal', area: 'ratelimit', description: 'sends X-RateLimit-Limit as "1000.0"', rules: ['FUZZ-03', 'RATE-02'] },
  { id: 'rate-429-no-retry-after', area: 'ratelimit', description: 'sends 429 without Retry-After', rules: ['RATE-08'] },
  { id: 'rate-429-text-body', area: 'ratelimit', description: 'sends 429 with a text/plain "Too Many Requests" body', rules: ['RATE-09'] },
  { id: 'rate-never-429', area: 'ratelimit', description: 'never enforces the limit (headers still count down)', rules: ['RATE-07'] },
  { id: 'rate-429-remaining-nonzero', area: 'ratelimit', description: 'reports X-RateLimit-Remaining 1 on a 429', rules: ['RATE-10'] },
  {
    id: 'rate-window-never-resets',
    area: 'ratelimit',
    description: 'keeps answering 429 after Retry-After has passed (a limited credential never gets a fresh window)',
    rules: ['RATE-11'],
    // Recovery is checked only on request; a short window keeps the wait for Retry-After to seconds.
    options: { rateLimit: { limit: 1000, windowMs: 5_000 } },
    cliArgs: ['--verify-recovery'],
  },
  {
    id: 'rate-reset-milliseconds',
    area: 'ratelimit',
    description: 'sends X-RateLimit-Reset in milliseconds: JavaScript\'s Date.now() + window, not divided by 1000',
    rules: ['FUZZ-03', 'RATE-05'],
  },
  {
    id: 'rate-reset-http-date',
    area: 'ratelimit',
    description: 'sends X-RateLimit-Reset as an HTTP-date, the Retry-After formatter reused (toUTCString) for a header that wants a Unix timestamp',
    rules: ['FUZZ-03', 'RATE-02'],
  },
  {
    id: 'rate-429-remaining-negative',
    area: 'ratelimit',
    description: 'reports X-RateLimit-Remaining -1 on a 429: limit - count with the refused request counted and no clamp at 0',
    rules: ['RATE-10'],
  },
  {
    id: 'rate-headers-draft-only',
    area: 'ratelimit',
    description: 'sends only the IETF draft\'s RateLimit and RateLimit-Policy headers, no X-RateLimit-* (express-rate-limit with legacyHeaders: false)',
    rules: ['FUZZ-03', 'RATE-01'],
  },
  {
    id: 'rate-retry-after-fractional',
    area: 'ratelimit',
    description: 'sends Retry-After as fractional seconds ("57.312"): Python\'s reset_at - time.time() formatted without rounding',
    rules: ['RATE-08'],
  },
  {
    id: 'rate-remaining-before-count',
    area: 'ratelimit',
    description: 'writes X-RateLimit-Remaining from the count read before the request is added to it (the header hook runs before the counter\'s), one too many: the 429 comes right after an answer that said 1 left',
    rules: ['RATE-14'],
  },
  {
    id: 'rate-enforced-below-limit',
    area: 'ratelimit',
    description: 'refuses at a gateway whose limit is 5 below the X-RateLimit-Limit the application counts down to (two configurations of one plan), its 429 saying Remaining 0: a 429 while the answer before said 5 left',
    rules: ['RATE-14'],
  },
  {
    id: 'rate-remaining-stale-on-get-pet',
    area: 'ratelimit',
    description: 'answers GET /pets/{petId} with the X-RateLimit-Remaining read before that request was counted (its route\'s header hook runs before the limiter\'s): the next answer shows Remaining fallen by two',
    rules: ['RATE-15'],
  },
  {
    id: 'rate-remaining-frozen-on-get-pet',
    area: 'ratelimit',
    description: 'answers GET /pets/{petId} with X-RateLimit-Remaining from a limiter instance of its own that is never incremented (always the limit), while the global one counts the request',
    rules: ['RATE-04', 'RATE-15'],
  },
  {
    id: 'rate-headers-skip-get-pet',
    area: 'ratelimit',
    description: 'sends no X-RateLimit-* on GET /pets/{petId}: the header plugin is registered on the /pets routes only',
    rules: ['FUZZ-03', 'RATE-01'],
  },
  {
    id: 'rate-headers-skip-post',
    area: 'ratelimit',
    description: 'sends no X-RateLimit-* on POST /pets answers: the headers are added by a decorator on the GET handlers',
    rules: ['FUZZ-03', 'RATE-01'],
  },
  {
    id: 'rate-headers-skip-401',
    area: 'ratelimit',
    description: 'sends no X-RateLimit-* on a 401: the auth middleware answers before the rate-limit middleware runs',
    rules: ['RATE-01'],
  },
] as const satisfies readonly DefectSpec[];
