import type { RunEvent } from '../helpers/engine/events.js';
import { announcedWaitMs, type WaitTally } from '../helpers/http/pacing.js';

/** Longest a CI log goes without a line while the run works or waits. */
export const HEARTBEAT_EVERY_MS = 10_000;
/** How often the heartbeat looks whether the log has gone quiet that long. */
const LOOK_EVERY_MS = 1_000;

/** A request sent and not answered yet. */
interface InFlight {
  rule?: string;
  what: string;
  sentAt: number;
}

/**
 * Keeps a CI log alive: where no terminal shows a status line, a run that works or waits for a while (a pacing
 * target that holds every request back a quarter second, a read that waits for a lagging replica, a slow answer)
 * prints, at least every HEARTBEAT_EVERY_MS, one line saying what it is doing and what it waits for. It reads
 * the run's event stream only: the checks running (check-started, check-ended), the requests in flight (sent,
 * exchange), the rate-limit waits (waits) and the last progress step.
 */
export class Heartbeat {
  private readonly startedAt: number;
  private lastLineAt: number;
  private readonly running = new Map<string, number>();
  private readonly inFlight = new Map<string, InFlight[]>();
  private answered = 0;
  private lastAnswerAt: number | undefined;
  private waits: WaitTally | undefined;
  /** The tally at the last heartbeat: what waited since is what the next one reports. */
  private waitsSaid: WaitTally | undefined;
  private progress: string | undefined;
  /** A rate-limit wait announced as it began (a notice), and when it ends: the tally hears of it only once it has. */
  private announcedWait: { until: number } | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly print: (line: string) => void, private readonly now: () => number = Date.now) {
    this.startedAt = now();
    this.lastLineAt = this.startedAt;
  }

  /** Looks every second whether the log has gone quiet, until `stop`; the timer never holds the process open. */
  start(): void {
    this.timer = setInterval(() => this.tick(), LOOK_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Any line the run printed: the log is alive until HEARTBEAT_EVERY_MS after it. */
  printed(): void {
    this.lastLineAt = this.now();
  }

  readonly hear = (event: RunEvent): void => {
    switch (event.kind) {
      case 'check-started':
        this.running.set(event.rule, this.now());
        break;
      case 'check-ended':
        this.running.delete(event.result.meta.ruleId);
        break;
      case 'sent': {
        const key = `${event.method} ${event.url}`;
        this.inFlight.set(key, [...(this.inFlight.get(key) ?? []), { rule: event.rule, what: `${event.method} ${pathOf(event.url)}`, sentAt: this.now() }]);
        break;
      }
      case 'exchange': {
        const key = `${event.exchange.request.method} ${event.exchange.request.url}`;
        const waiting = this.inFlight.get(key) ?? [];
        waiting.shift();
        if (waiting.length === 0) this.inFlight.delete(key);
        this.answered += 1;
        this.lastAnswerAt = this.now();
        break;
      }
      case 'waits':
        this.waits = event.tally;
        break;
      case 'notice': {
        const waitMs = announcedWaitMs(event.text);
        if (waitMs !== undefined) this.announcedWait = { until: this.now() + waitMs };
        break;
      }
      case 'progress':
        this.progress = `${event.rule ? `${event.rule} ` : ''}${event.phase}: ${event.done} ${event.unit}`;
        break;
      default:
        break;
    }
  };

  /** Prints the heartbeat when the log has been quiet HEARTBEAT_EVERY_MS: what runs, what is in flight, what waits. */
  tick(): void {
    const now = this.now();
    if (now - this.lastLineAt < HEARTBEAT_EVERY_MS) return;
    this.print(this.line(now));
    this.lastLineAt = now;
    this.waitsSaid = this.waits;
  }

  private line(now: number): string {
    const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
    const parts: string[] = [];
    const checks = [...this.running].sort(([, a], [, b]) => a - b);
    if (checks.length > 0) {
      const shown = checks.slice(0, 4).map(([rule, since]) => `${rule} (${seconds(now - since)})`).join(', ');
      parts.push(`running ${shown}${checks.length > 4 ? ` and ${checks.length - 4} more` : ''}`);
    }
    if (this.progress) parts.push(`last step: ${this.progress}`);
    const waited = this.waitedSince();
    if (waited) parts.push(waited);
    const waiting = this.announcedWait && this.announcedWait.until > now ? this.announcedWait.until - now : undefined;
    if (waiting !== undefined) parts.push(`waiting for the rate limit, ${seconds(waiting)} to go`);
    const flying = [...this.inFlight.values()].flat().sort((a, b) => a.sentAt - b.sentAt);
    if (flying.length > 0) {
      const oldest = flying[0]!;
      parts.push(`waiting for ${flying.length === 1 ? 'the answer' : `${flying.length} answers`} from the target, the oldest to ${oldest.what}${oldest.rule ? ` (${oldest.rule})` : ''} sent ${seconds(now - oldest.sentAt)} ago`);
    } else if (!waited && waiting === undefined && checks.length > 0) {
      parts.push(this.lastAnswerAt === undefined ? 'no request in flight' : `no request in flight; the last answer came ${seconds(now - this.lastAnswerAt)} ago`);
    }
    const doing = parts.length > 0 ? parts.join('; ') : 'between checks';
    return `  … ${seconds(now - this.startedAt)} in, ${this.answered} ${this.answered === 1 ? 'answer' : 'answers'} so far: ${doing}`;
  }

  /** The rate-limit waits since the last heartbeat, when there were any: how many, how long, and the main reason. */
  private waitedSince(): string | undefined {
    if (!this.waits) return undefined;
    const count = this.waits.count - (this.waitsSaid?.count ?? 0);
    const totalMs = this.waits.totalMs - (this.waitsSaid?.totalMs ?? 0);
    if (count <= 0 && totalMs <= 0) return undefined;
    const said = new Map((this.waitsSaid?.reasons ?? []).map((reason) => [reason.reason, reason.totalMs]));
    const main = [...this.waits.reasons].sort((a, b) => (b.totalMs - (said.get(b.reason) ?? 0)) - (a.totalMs - (said.get(a.reason) ?? 0)))[0];
    return `held back by the rate limit ${(totalMs / 1000).toFixed(1)} s in ${count} ${count === 1 ? 'wait' : 'waits'} since the last line${main ? ` (${main.reason})` : ''}`;
  }
}

/** "/v1/pets?limit=1" of a URL: a log line needs no scheme and host. */
function pathOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}
