import type { CancellationWatch } from './cancellation.js';

/**
 * The run's time and its waits, by which rate-limit windows, read lag and the time budget are judged: the
 * recording's on replay (ReplaySource, where a wait passes at once), the real one otherwise. Checks read it
 * through the client (`ctx.client.now()`, `ctx.client.pause()`), never from Date.now().
 */
export interface RunClock {
  now(): number;
  /** A wait that is over at once when the run is cancelled. */
  sleep(ms: number): Promise<void>;
}

/** The real clock; its waits end early, as RunCancelled, once the run is cancelled. */
export function liveClock(cancellation?: CancellationWatch): RunClock {
  return {
    now: () => Date.now(),
    sleep: (ms) => (cancellation ? cancellation.sleep(ms) : new Promise((resolve) => setTimeout(resolve, ms))),
  };
}
