import type { Diagnosis } from '../helpers/http/diagnosis.js';
import type { Exchange } from '../helpers/http/exchange.js';
import type { WaitTally } from '../helpers/http/pacing.js';
import type { Redactor } from '../helpers/http/redact.js';
import type { CheckResult, RunEvent } from '../helpers/engine/events.js';
import { parseOwnJson, stringifyJson } from '../helpers/json.js';
import type { LogRouter } from './terminal.js';

/**
 * What the CLI keeps of a run, from its one event stream: every exchange as the reports hold it (redacted),
 * the diagnosis, the tally of rate-limit waits, each check's result, and on replay the requests the recording
 * held no answer for. It passes what a person watches (results, notices, progress) to the terminal as it comes:
 * each result to `showResult`, which the terminal's detail decides on.
 */
export class RunRecord {
  /** Every exchange of the run, in the order the client recorded them, redacted as the reports write them. */
  readonly exchanges: Exchange[] = [];
  readonly results: CheckResult[] = [];
  /** The client's diagnosis of a target that cannot be judged, redacted, if it made one. */
  diagnosis: Diagnosis | undefined;
  /** Every rate-limit wait of the run, as the client last tallied them; none means none waited. */
  waits: WaitTally | undefined;
  /** On replay: the requests the recording held no answer for ("METHOD URL"), in the order sent. */
  readonly unmatched: string[] = [];

  constructor(private readonly redactor: Redactor, private readonly log: LogRouter, private readonly showResult: (result: CheckResult) => void) {}

  readonly hear = (event: RunEvent): void => {
    switch (event.kind) {
      case 'exchange':
        this.exchanges.push(this.redacted(event.exchange));
        break;
      case 'diagnosis':
        this.diagnosis = this.redacted(event.diagnosis);
        break;
      case 'waits':
        this.waits = event.tally;
        break;
      case 'unmatched':
        this.unmatched.push(event.request);
        break;
      case 'notice':
        this.log.line(event.text);
        break;
      case 'progress':
        this.log.progress(`${event.rule ? `${event.rule} ` : ''}${event.phase}: ${event.done} ${event.unit}${event.total === undefined ? '' : ` (at most ${event.total})`}`);
        break;
      case 'check-started':
      case 'sent':
        break;
      case 'check-ended':
        this.results.push(event.result);
        this.log.endPhase();
        // Once the target is found unjudgeable every check left stops at once: the summary says why, once.
        if (!this.log.stopped) this.showResult(event.result);
        break;
    }
  };

  /** A value as the reports hold it: its JSON text redacted (a target may echo the key anywhere), read back losslessly. */
  private redacted<T>(value: T): T {
    return parseOwnJson(this.redactor.redact(stringifyJson(value))) as unknown as T;
  }
}
