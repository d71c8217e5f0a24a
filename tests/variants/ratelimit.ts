import { secondsUntilReset } from '../../server/gate.js';
import type { VariantSpec } from './spec.js';

/** Conforming variants of the ratelimit area. */
export const RATELIMIT_VARIANTS = [
  {
    id: 'errors-not-counted',
    area: 'ratelimit',
    description: 'counts only successful requests (express-rate-limit\'s skipFailedRequests): the spec leaves open which requests the limits apply to',
    overrides: {
      limiterPolicy: (reference) => ({ ...reference(), countOnlySuccess: true }),
    },
  },
  {
    id: 'sliding-window',
    area: 'ratelimit',
    description: 'limits by a sliding log: each request counts for a window\'s length, and X-RateLimit-Reset (when the oldest counted request drops out) moves forward as requests age',
    // A short window, so that requests age out and the Reset moves within one run.
    options: { rateLimit: { limit: 100, windowMs: 2_000 } },
    overrides: {
      limiterPolicy: (reference) => ({ ...reference(), slidingLog: true }),
    },
  },
  {
    id: 'token-bucket',
    area: 'ratelimit',
    description: 'limits by a token bucket of the Pro plan\'s 300, refilled continuously (over 20 s here, so that it refills within a run, yet slowly enough, at 15 a second, that a probe on a loaded machine still empties it): Remaining is what the bucket holds, rounded down, so it may stand still or rise between two requests, and X-RateLimit-Reset is when it is full again (the spec states the plans, not the algorithm)',
    options: { rateLimit: { limit: 300, windowMs: 20_000 } },
    overrides: {
      limiterPolicy: (reference) => ({ ...reference(), tokenBucket: true }),
    },
  },
  {
    id: 'limit-by-address',
    area: 'ratelimit',
    description: 'limits by client address, not by key (a reverse proxy\'s limit_req keyed on the remote address): requests without a valid key spend the key\'s window too',
    // The unkeyed requests spend the window too, some 60 past the harness's 400: at that limit a run sat out a
    // minute's window (61 s). 500 holds them, and the 429 probe still reaches its 429.
    options: { rateLimit: { limit: 500, windowMs: 60_000 } },
    overrides: {
      rateLimitBucket: (request) => `addr:${request.ip}`,
    },
  },
  {
    id: 'ratelimit-draft-headers-too',
    area: 'ratelimit',
    description: 'sends the IETF draft\'s RateLimit and RateLimit-Policy headers beside X-RateLimit-* on every response (express-rate-limit with standardHeaders and legacyHeaders both on)',
    overrides: {
      rateLimitHeaders: (admission, reference, server) => ({
        ...reference(admission),
        'ratelimit-policy': `${admission.limit};w=${Math.round(server.settings.rateLimit.windowMs / 1000)}`,
        ratelimit: `limit=${admission.limit}, remaining=${admission.remaining}, reset=${secondsUntilReset(admission)}`,
      }),
    },
  },
  {
    id: 'per-operation-buckets',
    area: 'ratelimit',
    description: 'counts POST /pets in a bucket of its own with a limit of its own (500 writes a minute beside 1,000 requests), each response carrying its own bucket\'s headers, the two windows ending together at the minute (an API gateway\'s per-route limits); the spec leaves open which operations the limits apply to',
    overrides: {
      rateLimitBucket: (request, key, reference) => (request.method === 'POST' && key !== undefined ? `${reference(request, key)}:writes` : reference(request, key)),
      limiterPolicy: (reference) => ({ ...reference(), bucketLimits: [{ endsWith: ':writes', limit: 500 }], alignedWindows: true }),
    },
  },
] as const satisfies readonly VariantSpec[];
