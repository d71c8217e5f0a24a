import type { ClientEvent } from '../http/client-events.js';
import type { RuleMeta } from '../judge/outcome.js';

/** One judged check: its rule's record, and how long the check took. */
export interface CheckResult {
  meta: RuleMeta;
  durationMs: number;
}

/**
 * The run's one stream: what the client tells (every exchange, wait, notice, progress step and the diagnosis)
 * and what the engine tells (each check as it starts and as it ends). The terminal, the reports, `verify`, the
 * programmatic API and the vitest adapter all read it; none of them reads another channel.
 */
export type RunEvent =
  | ClientEvent
  | { kind: 'check-started'; rule: string }
  /** A check's outcome, passed on in catalog order: each once every check before it in its suite has ended. */
  | { kind: 'check-ended'; result: CheckResult };

export type RunEvents = (event: RunEvent) => void;
