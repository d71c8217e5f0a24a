/**
 * Milliseconds to wait according to a Retry-After value (RFC 9110 §10.2.3: delta-seconds or an HTTP-date),
 * or undefined when the value is neither.
 */
export function parseRetryAfter(value: string | undefined, nowMs = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // HTTP-date is IMF-fixdate (or an obsolete form): it always names a weekday or month, never bare digits.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** Which of the two RFC 9110 forms a Retry-After value takes. */
export function retryAfterForm(value: string): 'delta-seconds' | 'http-date' | 'invalid' {
  const text = value.trim();
  if (/^\d+$/.test(text)) return 'delta-seconds';
  return parseRetryAfter(text) === undefined ? 'invalid' : 'http-date';
}
