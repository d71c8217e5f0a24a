import type { Diagnosis } from './diagnosis.js';
import type { Exchange } from './exchange.js';
import type { WaitTally } from './pacing.js';

/**
 * What the client of a run tells whoever runs it, as it happens: typed events on the run's one stream
 * (helpers/engine/events.ts adds the checks' own), never lines of text for a reader to parse.
 */
export type ClientEvent =
  /** A request leaves (its answer comes as an `exchange`): method and URL as recorded, the key as $PETSTORE_API_KEY. */
  | { kind: 'sent'; rule?: string; method: string; url: string }
  /** A request and what came back, as recorded (not yet redacted: the consumer redacts what it keeps). */
  | { kind: 'exchange'; exchange: Exchange }
  /** The first answers show the target cannot be judged (a wrong base URL, a refused key, a refusing proxy). */
  | { kind: 'diagnosis'; diagnosis: Diagnosis }
  /** Every rate-limit wait of the run so far, tallied after each wait. */
  | { kind: 'waits'; tally: WaitTally }
  /** A line for the person watching: a rate-limit wait begins, a budget is spent, the target stopped answering. */
  | { kind: 'notice'; text: string }
  /** One more step of a long phase (a generated body sent, a probe request), at most a few a second. */
  | { kind: 'progress'; rule?: string; phase: string; done: number; unit: string; total?: number }
  /** On replay: a request the recording holds no answer for, as "METHOD URL", redacted. */
  | { kind: 'unmatched'; request: string };

export type ClientEvents = (event: ClientEvent) => void;
