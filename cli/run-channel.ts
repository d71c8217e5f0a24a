import { randomBytes } from 'node:crypto';
import type { BroadcastChannel } from 'node:worker_threads';
import type { Diagnosis } from '../helpers/http/diagnosis.js';
import type { Exchange } from '../helpers/http/exchange.js';
import type { WaitTally } from '../helpers/http/pacing.js';
import { parseOwnJson } from '../helpers/json.js';
import { openBroadcastChannel, runChannelName, type CliMessage, type WorkerMessage } from '../helpers/run-channel.js';

/**
 * The CLI's end of a run's channel (helpers/run-channel.ts): it listens before the worker starts, gathers what
 * the worker records, and carries the cancellation the other way, whenever it comes. Nothing is written to disk.
 */
export class RunChannel {
  readonly name: string;
  /** Every exchange of the run, in the order the client recorded them, as the worker wrote them (redacted). */
  readonly exchanges: Exchange[] = [];
  /** The client's diagnosis of a target that cannot be judged, if it made one. */
  diagnosis: Diagnosis | undefined;
  /** Every rate-limit wait of the run, as the client last tallied them; none sent means none waited. */
  waits: WaitTally | undefined;
  /** On replay: the requests the recording held no answer for ("METHOD URL"), in the order sent. */
  readonly unmatched: string[] = [];
  readonly #channel: BroadcastChannel;
  #received = 0;
  #cancelled: string | undefined;
  #whenReceived: { count: number; done: () => void } | undefined;
  #closed = false;

  constructor(runId: string) {
    this.name = runChannelName(runId, randomBytes(6).toString('hex'));
    this.#channel = openBroadcastChannel(this.name);
    this.#channel.onmessage = (event: MessageEvent) => this.#receive(event.data as WorkerMessage);
  }

  /** The run is cancelled: the worker hears it now, or, when it starts listening later, at once. */
  cancel(reason: string): void {
    if (this.#cancelled !== undefined) return;
    this.#cancelled = reason;
    this.#send({ kind: 'cancel', reason });
  }

  /**
   * Resolves true once `count` messages have come (vitest's report of the checks says how many the worker
   * sent before each ended), or false when they have not come within `timeoutMs`: a bug of the suite, never a hang.
   */
  received(count: number, timeoutMs: number): Promise<boolean> {
    if (this.#received >= count) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#whenReceived = undefined;
        resolve(false);
      }, timeoutMs);
      this.#whenReceived = { count, done: () => {
        clearTimeout(timer);
        resolve(true);
      } };
    });
  }

  /** How many messages came from the worker. */
  get count(): number {
    return this.#received;
  }

  close(): void {
    this.#closed = true;
    this.#channel.close();
  }

  #receive(message: WorkerMessage): void {
    this.#received += 1;
    switch (message.kind) {
      case 'listening':
        this.#send({ kind: 'ready', ...(this.#cancelled !== undefined ? { cancelled: this.#cancelled } : {}) });
        break;
      case 'exchange':
        this.exchanges.push(parseOwnJson(message.json) as unknown as Exchange);
        break;
      case 'diagnosis':
        this.diagnosis = parseOwnJson(message.json) as unknown as Diagnosis;
        break;
      case 'waits':
        this.waits = message.tally;
        break;
      case 'unmatched':
        this.unmatched.push(message.request);
        break;
    }
    if (this.#whenReceived && this.#received >= this.#whenReceived.count) {
      this.#whenReceived.done();
      this.#whenReceived = undefined;
    }
  }

  #send(message: CliMessage): void {
    // A run that has ended has no worker to tell.
    if (!this.#closed) this.#channel.postMessage(message);
  }
}
