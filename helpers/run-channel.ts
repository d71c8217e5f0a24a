// The one channel between the CLI and the suite worker of a run, a thread of the same process: what the
// worker records goes to the CLI (every exchange, the diagnosis, the tally of rate-limit waits, the requests a
// replay held no answer for), and the cancellation goes to the worker. Each check's verdict travels on
// vitest's own reporter channel (task meta), which alone knows of a check vitest failed or a file it could not
// load; every check's verdict also says how many messages of this channel came before it, so the CLI knows
// when it holds them all (helpers/judge/check.ts, cli/run-channel.ts).
import { BroadcastChannel } from 'node:worker_threads';
import type { WaitTally } from './http/pacing.js';

/** What the worker tells the CLI. Exchanges and the diagnosis go as the redacted, lossless JSON text a report holds. */
export type WorkerMessage =
  | { kind: 'listening' }
  | { kind: 'exchange'; json: string }
  | { kind: 'diagnosis'; json: string }
  | { kind: 'waits'; tally: WaitTally }
  | { kind: 'unmatched'; request: string };

/**
 * What the CLI tells the worker: `ready` answers `listening` (with the cancellation, if the run was cancelled
 * before the worker listened), `cancel` comes whenever the run is cancelled after.
 */
export type CliMessage = { kind: 'ready'; cancelled?: string } | { kind: 'cancel'; reason: string };

/** The channel's name: the run ID, and a token of its own, since a replay (`verify`) takes over the recorded run's ID. */
export function runChannelName(runId: string, token: string): string {
  return `petstore-conformance run ${runId} ${token}`;
}

/** How long the worker waits for the CLI to answer; the CLI listens before the worker starts, so it answers at once. */
const READY_WITHIN_MS = 10_000;

/** A BroadcastChannel that holds no process open: the run ends it, and nothing else must wait for it. */
export function openBroadcastChannel(name: string): BroadcastChannel {
  const channel = new BroadcastChannel(name);
  (channel as BroadcastChannel & { unref(): void }).unref();
  return channel;
}

/** The worker's end: it counts what it sends, and hears the cancellation. */
export class WorkerChannel {
  #posted = 0;
  readonly #channel: BroadcastChannel;
  #unanswered: NodeJS.Timeout | undefined;
  /** Settled once the CLI answered: a check that ran before would not know the run was already cancelled. */
  readonly ready: Promise<void>;

  constructor(name: string, onCancel: (reason: string) => void) {
    this.#channel = openBroadcastChannel(name);
    this.ready = new Promise((resolve, reject) => {
      this.#unanswered = setTimeout(() => reject(new Error(`the CLI did not answer on the run channel within ${READY_WITHIN_MS} ms: a bug of the suite engine, not of the target`)), READY_WITHIN_MS);
      this.#channel.onmessage = (event: MessageEvent) => {
        const message = event.data as CliMessage;
        if (message.kind === 'cancel') onCancel(message.reason);
        if (message.kind !== 'ready') return;
        clearTimeout(this.#unanswered);
        if (message.cancelled !== undefined) onCancel(message.cancelled);
        resolve();
      };
    });
    // Whoever awaits it hears the failure; a channel closed before anyone did must not leave it unhandled.
    this.ready.catch(() => undefined);
    this.post({ kind: 'listening' });
  }

  /** Messages sent so far: the CLI has them all once it has received this many. */
  get posted(): number {
    return this.#posted;
  }

  post(message: WorkerMessage): void {
    this.#posted += 1;
    this.#channel.postMessage(message);
  }

  close(): void {
    clearTimeout(this.#unanswered);
    this.#channel.close();
  }
}
