import type { Exchange } from './exchange.js';

/**
 * Why the client gave a request no answer to judge. These are facts of the run, stated by the HTTP layer;
 * what each means for a rule (skipped or errored) is the judging layer's reading (helpers/judge/outcome.ts).
 * - `cancelled`: the run was cancelled (SIGINT, SIGTERM, an AbortSignal).
 * - `budget`: --max-requests or --max-duration is spent.
 * - `wait-too-long`: the rate-limit window frees up later than the run may wait.
 * - `transport`: the target could not be talked to (refused, reset, timed out, unreadable).
 * - `rate-limited`: the target kept answering 429 after every backoff.
 * - `not-judgeable`: the first answers showed a wrong base URL or a refused key.
 * - `read-only`: --read-only sends only reads, and the request is not one.
 */
export type NoAnswerReason = 'cancelled' | 'budget' | 'wait-too-long' | 'transport' | 'rate-limited' | 'not-judgeable' | 'read-only';

/** The base of every error by which the client says a request got no answer a check can judge. */
export abstract class NoAnswer extends Error {
  abstract readonly reason: NoAnswerReason;

  /** `exchange`: the request that showed why, when there was one. */
  constructor(message: string, readonly exchange?: Exchange) {
    super(message);
  }
}
