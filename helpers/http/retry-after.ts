// Retry-After (RFC 9110 §10.2.3) and HTTP-date (RFC 9110 §5.6.7), parsed by the grammar rather than
// by Date.parse, which reads an asctime date in the local time zone and accepts forms HTTP does not.

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const LONG_WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = WEEKDAYS.join('|');
const MONTH = MONTHS.join('|');
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

const IMF_FIXDATE = new RegExp(`^(?:${DAY}), (\\d{2}) (${MONTH}) (\\d{4}) ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^(?:${LONG_WEEKDAYS.join('|')}), (\\d{2})-(${MONTH})-(\\d{2}) ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^(?:${DAY}) (${MONTH}) ( \\d|\\d{2}) ${TIME} (\\d{4})$`);

export type RetryAfterForm = 'delta-seconds' | 'http-date' | 'invalid';

/** Epoch milliseconds of an HTTP-date in any of its three RFC 9110 forms, or undefined. */
export function parseHttpDate(value: string, nowMs = Date.now()): number | undefined {
  const text = value.trim();
  let match = IMF_FIXDATE.exec(text);
  if (match) return utc(match[3]!, match[2]!, match[1]!, match.slice(4, 7));
  match = RFC850_DATE.exec(text);
  if (match) {
    // RFC 9110: a two-digit year more than 50 years in the future means the most recent past year with those digits.
    const yy = Number(match[3]);
    const thisYear = new Date(nowMs).getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + yy;
    if (year > thisYear + 50) year -= 100;
    return utc(String(year), match[2]!, match[1]!, match.slice(4, 7));
  }
  match = ASCTIME_DATE.exec(text);
  if (match) return utc(match[6]!, match[1]!, match[2]!.trim(), match.slice(3, 6));
  return undefined;
}

function utc(year: string, month: string, day: string, [hours, minutes, seconds]: (string | undefined)[]): number | undefined {
  const at = Date.UTC(Number(year), MONTHS.indexOf(month), Number(day), Number(hours), Number(minutes), Number(seconds));
  // Rejects 31 Feb and 25:00: Date.UTC would roll them over into another valid date.
  const check = new Date(at);
  return check.getUTCDate() === Number(day) && check.getUTCHours() === Number(hours) && Number(seconds) <= 60 ? at : undefined;
}

/** Which of the two RFC 9110 forms a Retry-After value takes. */
export function retryAfterForm(value: string): RetryAfterForm {
  const text = value.trim();
  if (/^\d+$/.test(text)) return 'delta-seconds';
  return parseHttpDate(text) === undefined ? 'invalid' : 'http-date';
}

/**
 * Milliseconds to wait according to a Retry-After value (delta-seconds or an HTTP-date),
 * or undefined when the value is neither.
 */
export function parseRetryAfter(value: string | undefined, nowMs = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = parseHttpDate(text, nowMs);
  return at === undefined ? undefined : Math.max(0, at - nowMs);
}

/**
 * How long a response's Retry-After asks the client to wait. An HTTP-date is also read against the response's
 * own Date header, and the longer wait wins, so that a server clock behind ours cannot bring us back early.
 * Date has one-second resolution: the shortest wait it allows is taken, so agreeing clocks add nothing.
 */
export function retryAfterWaitMs(headers: Readonly<Record<string, string>>, nowMs: number): number | undefined {
  const byOurClock = parseRetryAfter(headers['retry-after'], nowMs);
  if (byOurClock === undefined || retryAfterForm(headers['retry-after']!) === 'delta-seconds') return byOurClock;
  const serverNow = headers.date === undefined ? undefined : parseHttpDate(headers.date, nowMs);
  const byServerClock = serverNow === undefined ? undefined : parseRetryAfter(headers['retry-after'], serverNow + 1000);
  return Math.max(byOurClock, byServerClock ?? 0);
}
