import { parseHttpDate, retryAfterWaitMs } from './retry-after.js';
import { NoAnswer } from './no-answer.js';

/** The X-RateLimit-* headers of one response, each kept only when it is a non-negative integer. */
export interface RateLimitHeaders {
  limit?: number;
  remaining?: number;
  /** As sent: Unix seconds on a conforming server. */
  reset?: number;
}

/** Reset values below this are seconds until the reset, not a Unix timestamp (1e9 s is September 2001). */
export const UNIX_TIME_FLOOR = 1e9;

/** Reads the three rate-limit headers; one that is absent or not a plain integer is left out. */
export function readRateLimitHeaders(headers: Readonly<Record<string, string>>): RateLimitHeaders {
  return {
    limit: integerHeader(headers['x-ratelimit-limit']),
    remaining: integerHeader(headers['x-ratelimit-remaining']),
    reset: integerHeader(headers['x-ratelimit-reset']),
  };
}

function integerHeader(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

/** What the pacer knows of one credential's window, from the last X-RateLimit-* headers it saw. */
interface Window {
  limit?: number;
  remaining?: number;
  /** X-RateLimit-Reset in Unix seconds, as the server said it: it names the window. */
  reset?: number;
  /** When that window ends by our clock. */
  resetAtMs?: number;
  /** Requests sent whose response has not come back: they count against Remaining already. */
  inflight: number;
  /** No request on this credential before this time (a 429's Retry-After, a backoff). */
  blockedUntilMs: number;
  blockReason?: string;
  /** The end of the last wait announced, so that four queued requests print one line, not four. */
  announcedUntilMs: number;
  /** Acquires waiting for a response to tell them about a new window. */
  waiters: Array<() => void>;
  /** X-RateLimit-Reset as last sent, when it named a moment already past: pacing then waits only its margin, request after request. */
  resetPast?: string;
  /** Remaining in the first response of the current window seen, and how many of the run's requests (on any credential) it may not count yet. */
  base?: { remaining: number; ownSince: number };
  /** Remaining fell further than this run's own requests can explain: another client spends the same key. */
  shared?: boolean;
  /**
   * Set only when an answer the server served (not a 429) showed the unexplained fall. A 429's Remaining 0 is
   * the refusal being judged (RATE-14), so it alone is no evidence of another client.
   */
  sharedSeenServed?: boolean;
}

/** Every wait pacing imposed on the run, announced or not: report.json's rateLimitWaits. */
export interface WaitTally {
  count: number;
  totalMs: number;
  /** Why, by reason, the longest total first. */
  reasons: Array<{ reason: string; count: number; totalMs: number }>;
}

export interface PacerOptions {
  /** Requests kept in hand in every window. */
  reserve: number;
  /** Longest single wait the run accepts; a longer one ends the run's use of that credential. */
  maxWaitMs: number;
  /** The run's end (--max-duration, epoch ms): a wait that would outlast it is not begun. */
  deadlineMs?: number;
  maxRetries: number;
  backoffBaseMs: number;
  backoffCapMs: number;
  /** Tells the person at the terminal why nothing is happening. */
  onWait: (message: string) => void;
  /** Hears the tally after every wait, for the run's report. */
  onWaited?: (tally: WaitTally) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  random?: () => number;
  /**
   * A replay: never wait for an answer in flight before sending (the replay sends each request when the live run
   * did, and an answer in flight may be waiting for the very request that would wait for it). Timed waits stay: they
   * move the run's clock as the live run's did.
   */
  neverAwaitsAnswers?: boolean;
}

export interface Response {
  status: number;
  headers: Readonly<Record<string, string>>;
}

/** A rate-limit window would end later than the run may wait: the rule is skipped, not failed. */
export class RateLimitWaitTooLong extends NoAnswer {
  override name = 'RateLimitWaitTooLong';
  readonly reason = 'wait-too-long';
}

// Reset is rounded to whole seconds and clocks differ: a window is taken to end a little after it says.
const RESET_MARGIN_MS = 250;
// Requests left in a window below which they go one at a time.
const ONE_AT_A_TIME_FROM = 8;
// Waits shorter than this are not worth a line on the terminal.
const ANNOUNCE_FROM_MS = 1000;
// Short waits that add up to this are said once: a run held back for a minute 250 ms at a time must not be silent.
const HELD_BACK_FROM_MS = 5000;

/**
 * Paces requests by the rate-limit headers, per credential, so that a run never trips the limit it is
 * measuring: it keeps `reserve` requests of every window in hand, honours every 429's Retry-After, backs off
 * exponentially on an unplanned 429, and sends nothing on a credential while that credential waits.
 */
export class Pacer {
  private readonly windows = new Map<string, Window>();
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly waited = { count: 0, totalMs: 0, unannouncedMs: 0, coveredUntilMs: 0, heldBackSaid: false, byReason: new Map<string, { count: number; totalMs: number }>() };

  constructor(private readonly options: PacerOptions) {
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  /**
   * Waits until a request on this credential may be sent, then counts it as in flight. The 429 probe
   * (`overLimit`) may spend the reserve and go past Remaining 0, but it too waits out a Retry-After.
   */
  async acquire(credential: string, { overLimit = false }: { overLimit?: boolean } = {}): Promise<void> {
    const window = this.window(credential);
    for (let sleeps = 0; ; sleeps++) {
      const waitMs = this.waitNeeded(window, overLimit);
      if (waitMs === 0 || (waitMs === 'response' && this.options.neverAwaitsAnswers)) break;
      if (waitMs === 'response') {
        await new Promise<void>((resolve) => window.waiters.push(resolve));
        continue;
      }
      if (waitMs > this.options.maxWaitMs) {
        throw new RateLimitWaitTooLong(`${labelOf(credential)}: the rate limit frees up in ${seconds(waitMs)} s, longer than the ${seconds(this.options.maxWaitMs)} s a run waits`);
      }
      this.assertBeforeDeadline(credential, waitMs);
      const announced = this.announce(credential, window, waitMs);
      const reason = this.reasonFor(window);
      this.tally(credential, waitMs, reason, announced, sleeps === 0);
      await this.waitOut(waitMs, reason);
    }
    window.inflight += 1;
    // Any of the run's requests may be what a window lost: a server that counts by client address puts the
    // run's requests without a valid key in the key's window too, and that is not another client.
    for (const counted of this.windows.values()) if (counted.base) counted.base.ownSince += 1;
  }

  /** A wait that would end after --max-duration is not begun: the checks left are skipped instead. */
  private assertBeforeDeadline(credential: string, waitMs: number): void {
    if (this.options.deadlineMs !== undefined && this.now() + waitMs > this.options.deadlineMs) {
      throw new RateLimitWaitTooLong(`${labelOf(credential)}: waiting ${seconds(waitMs)} s for the rate limit would outlast the run's --max-duration`);
    }
  }

  /** Records a response's rate-limit headers (none after a transport failure) and frees its in-flight slot. */
  release(credential: string, response?: Response): void {
    const window = this.window(credential);
    window.inflight = Math.max(0, window.inflight - 1);
    if (response) this.learn(credential, window, response);
    for (const wake of window.waiters.splice(0)) wake();
  }

  /**
   * After an unplanned 429: blocks the credential for the longer of Retry-After and an exponential backoff
   * with jitter, and returns how long that is; undefined once `attempt` (1-based) passes the retries allowed.
   */
  backoffAfter429(credential: string, attempt: number): number | undefined {
    if (attempt > this.options.maxRetries) return undefined;
    const window = this.window(credential);
    const now = this.now();
    const step = Math.min(this.options.backoffCapMs, this.options.backoffBaseMs * 2 ** (attempt - 1));
    // "Equal jitter": at least half the step, never more than the cap.
    const backoffMs = step / 2 + (step / 2) * this.random();
    if (now + backoffMs > window.blockedUntilMs) {
      window.blockedUntilMs = now + backoffMs;
      window.blockReason = `unplanned 429, exponential backoff before retry ${attempt} of ${this.options.maxRetries}`;
    }
    return window.blockedUntilMs - now;
  }

  /** Waits, announced, for the credential's current window to end: the 429 probe wants a whole window. */
  async untilWindowEnds(credential: string, why: string): Promise<void> {
    const window = this.window(credential);
    const waitMs = (window.resetAtMs ?? 0) - this.now();
    if (waitMs <= 0) return;
    if (waitMs > this.options.maxWaitMs) {
      throw new RateLimitWaitTooLong(`${labelOf(credential)}: the rate-limit window ends in ${seconds(waitMs)} s, longer than the ${seconds(this.options.maxWaitMs)} s a run waits`);
    }
    this.assertBeforeDeadline(credential, waitMs);
    const announced = this.announce(credential, window, waitMs, why);
    this.tally(credential, waitMs, why, announced, true);
    await this.waitOut(waitMs, why);
  }

  /**
   * Sleeps through a wait the tally has counted whole. A wait cut short (the run is cancelled: the sleep ends early,
   * as RunCancelled) is counted for the time it lasted: a run cancelled 3.65 s into a 30 s wait waited 3.65 s.
   */
  private async waitOut(waitMs: number, reason: string): Promise<void> {
    try {
      await this.sleep(waitMs);
    } catch (error) {
      const notWaited = Math.round(this.waited.coveredUntilMs - this.now());
      if (notWaited > 0) {
        this.waited.totalMs = Math.max(0, this.waited.totalMs - notWaited);
        const byReason = this.waited.byReason.get(reason);
        if (byReason) byReason.totalMs = Math.max(0, byReason.totalMs - notWaited);
        this.waited.coveredUntilMs = this.now();
        this.options.onWaited?.(this.waits());
      }
      throw error;
    }
  }

  /** Every wait so far, announced or not; totalMs is the time during which at least one request waited. */
  waits(): WaitTally {
    const reasons = [...this.waited.byReason].map(([reason, { count, totalMs }]) => ({ reason, count, totalMs }))
      .sort((a, b) => b.totalMs - a.totalMs);
    return { count: this.waited.count, totalMs: this.waited.totalMs, reasons };
  }

  /**
   * Counts a wait (a request held back, however many times it sleeps). Once the short ones nobody heard of
   * add up to a few seconds, says so, once, with the reason that cost the most: a person watching a slow run
   * learns why it is slow.
   */
  private tally(credential: string, waitMs: number, reason: string, announced: boolean, newRequest: boolean): void {
    // Requests queued together wait out the same window: the run is held back once, not once per request.
    const now = this.now();
    const rounded = Math.round(Math.max(0, now + waitMs - Math.max(now, this.waited.coveredUntilMs)));
    this.waited.coveredUntilMs = Math.max(this.waited.coveredUntilMs, now + waitMs);
    // A request that sleeps again (the window it waited for brought no fresh headers yet) is still one wait.
    const counted = newRequest ? 1 : 0;
    this.waited.count += counted;
    this.waited.totalMs += rounded;
    const byReason = this.waited.byReason.get(reason) ?? { count: 0, totalMs: 0 };
    byReason.count += counted;
    byReason.totalMs += rounded;
    this.waited.byReason.set(reason, byReason);
    if (!announced) this.waited.unannouncedMs += rounded;
    this.options.onWaited?.(this.waits());
    if (this.waited.heldBackSaid || this.waited.unannouncedMs < HELD_BACK_FROM_MS) return;
    this.waited.heldBackSaid = true;
    const main = this.waits().reasons[0]!;
    this.options.onWait(`rate-limit pacing has held this run back ${seconds(this.waited.totalMs)} s so far in ${this.waited.count} waits, ${seconds(this.waited.unannouncedMs)} s of it in waits too short to announce one by one (${labelOf(credential)}): ${main.reason}; the run goes on at this pace`);
  }

  /** Why the credential waits now, in words that group alike waits (no values that change from one to the next). */
  private reasonFor(window: Window): string {
    if (window.blockedUntilMs > this.now()) return window.blockReason?.startsWith('unplanned 429') ? 'unplanned 429, exponential backoff' : 'answered 429, waiting for Retry-After';
    if (window.resetPast !== undefined) return `X-RateLimit-Remaining ${window.remaining === 0 ? '0' : 'within the reserve'} with an X-RateLimit-Reset already past (${window.resetPast}), so each request waits for a window said to be over`;
    return `X-RateLimit-Remaining spent (${this.options.reserve} kept in reserve), waiting for X-RateLimit-Reset`;
  }

  /** The window as last seen, for the checks and the tests. */
  snapshot(credential: string): Readonly<Omit<Window, 'waiters'>> {
    const { waiters: _waiters, ...rest } = this.window(credential);
    return { ...rest };
  }

  /** Milliseconds to wait, 'response' to wait for a response in flight, or 0 to go. */
  private waitNeeded(window: Window, overLimit: boolean): number | 'response' {
    const now = this.now();
    if (window.blockedUntilMs > now) return window.blockedUntilMs - now;
    if (overLimit || window.remaining === undefined) return 0;
    const spare = window.remaining - window.inflight - this.options.reserve;
    // The last few of a window go one at a time: a key shared with another client (parallel pipelines) drains
    // the window unseen, and a full --concurrency sent into its end would come back as a burst of 429s. Once
    // the key is seen shared, all of them do: the other client can empty the window at any moment (its 429
    // probe does), and every request then in flight is a 429 that a banning server holds against the key.
    if (spare > ONE_AT_A_TIME_FROM && !window.shared) return 0;
    if (spare > 0) return window.inflight > 0 ? 'response' : 0;
    if (window.resetAtMs !== undefined && now < window.resetAtMs) return window.resetAtMs - now;
    // The window should have reset, but nothing has shown the new one yet; it may also be a sliding window
    // that frees one request at a time. One request at a time, then, until a response says more.
    return window.inflight > 0 ? 'response' : 0;
  }

  private learn(credential: string, window: Window, { status, headers }: Response): void {
    const now = this.now();
    const { limit, remaining, reset } = readRateLimitHeaders(headers);
    if (limit !== undefined) window.limit = limit;
    if (reset === undefined) {
      if (remaining !== undefined) window.remaining = remaining;
    } else {
      const absolute = reset >= UNIX_TIME_FLOOR;
      // A server that sends seconds-until-reset (non-conforming, RATE-05) is still paced correctly.
      const resetSeconds = absolute ? reset : Math.ceil((now + reset * 1000) / 1000);
      const resetAtMs = (absolute ? this.localTime(reset * 1000, now, headers.date) : now + reset * 1000) + RESET_MARGIN_MS;
      window.resetPast = resetAtMs - RESET_MARGIN_MS > now ? undefined : reset === 0 ? 'X-RateLimit-Reset: 0' : 'X-RateLimit-Reset at or before the answer';
      if (window.reset === undefined || resetSeconds > window.reset) {
        window.reset = resetSeconds;
        window.resetAtMs = resetAtMs;
        if (remaining !== undefined) window.remaining = remaining;
        // Requests still in flight may be counted after this Remaining: they are ours to explain it by.
        window.base = remaining === undefined ? undefined : { remaining, ownSince: this.inflightEverywhere() };
      } else if (resetSeconds === window.reset) {
        window.resetAtMs = Math.max(window.resetAtMs ?? 0, resetAtMs);
        if (remaining !== undefined) {
          // Responses overtake each other: within a window the lowest Remaining is the true one.
          window.remaining = Math.min(window.remaining ?? remaining, remaining);
          this.noticeSharing(credential, window, remaining, status);
        }
      }
      // An earlier Reset is a late response from a window already over: nothing to learn from it.
    }
    if (status === 429) this.block429(window, headers, now);
  }

  private inflightEverywhere(): number {
    let inflight = 0;
    for (const window of this.windows.values()) inflight += window.inflight;
    return inflight;
  }

  /** A window that lost more than this run sent into it is spent by someone else too; said once, kept for the run. */
  private noticeSharing(credential: string, window: Window, remaining: number, status: number): void {
    if (!window.base || window.base.remaining - remaining <= window.base.ownSince) return;
    if (status !== 429) window.sharedSeenServed = true;
    if (window.shared) return;
    window.shared = true;
    this.options.onWait(`X-RateLimit-Remaining (${labelOf(credential)}) fell from ${window.base.remaining} to ${remaining} while this run sent at most ${window.base.ownSince} requests: another client spends the same limit, so from now on its requests go one at a time`);
  }

  /** Every 429, planned or not, stops the credential until Retry-After (or the window's end when there is none). */
  private block429(window: Window, headers: Readonly<Record<string, string>>, now: number): void {
    window.remaining = 0;
    const retryMs = retryAfterWaitMs(headers, now);
    const fallback = window.resetAtMs !== undefined && window.resetAtMs > now ? window.resetAtMs : now + this.options.backoffBaseMs;
    const until = retryMs !== undefined ? now + retryMs : fallback;
    if (until > window.blockedUntilMs) {
      window.blockedUntilMs = until;
      window.blockReason = retryMs !== undefined ? `answered 429, Retry-After: ${headers['retry-after']!.trim()}` : 'answered 429 without a usable Retry-After';
    }
  }

  /**
   * A server time in our clock. With a Date header, a server clock behind ours is corrected for (to within
   * Date's one second); a clock ahead of ours only makes us wait longer, which is safe.
   */
  private localTime(serverMs: number, now: number, date: string | undefined): number {
    const serverNow = date === undefined ? undefined : parseHttpDate(date, now);
    return serverNow === undefined ? serverMs : Math.max(serverMs, now + serverMs - serverNow - 1000);
  }

  /** Says a wait of a second or more as it starts; true when this wait is covered by a line the person saw. */
  private announce(credential: string, window: Window, waitMs: number, reason?: string): boolean {
    const until = this.now() + waitMs;
    if (waitMs < ANNOUNCE_FROM_MS) return false;
    if (until <= window.announcedUntilMs) return true;
    window.announcedUntilMs = until;
    const why = reason ?? (window.blockedUntilMs > this.now()
      ? window.blockReason ?? 'answered 429'
      : `X-RateLimit-Remaining ${window.remaining} of ${window.limit ?? '?'}, ${this.options.reserve} kept in reserve`);
    // Said as the wait starts, in words a person reads first: how long, and why (the tally counts it for the report).
    this.options.onWait(`waiting ${seconds(waitMs)} s for the rate limit (${labelOf(credential)}): ${why}; until ${new Date(until).toISOString().slice(11, 19)}Z`);
    return true;
  }

  private window(credential: string): Window {
    let window = this.windows.get(credential);
    if (!window) {
      window = { inflight: 0, blockedUntilMs: 0, announcedUntilMs: 0, waiters: [] };
      this.windows.set(credential, window);
    }
    return window;
  }
}

function labelOf(credential: string): string {
  if (credential === 'key') return 'API key';
  if (credential === 'anonymous') return 'requests without a valid key';
  return credential;
}

/** The notice a wait is announced with as it starts (Pacer.announce): "waiting 52.0 s for the rate limit (API key): …". */
const WAIT_NOTICE = /^waiting (\d+(?:\.\d+)?) s for the rate limit\b/;

/**
 * How long the wait a notice announces lasts, in milliseconds, or undefined for any other notice: the terminal totals
 * the waits and the heartbeat says how much of one is left, both from the line the person saw.
 */
export function announcedWaitMs(notice: string): number | undefined {
  const wait = WAIT_NOTICE.exec(notice);
  return wait ? Math.round(Number(wait[1]) * 1000) : undefined;
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}
