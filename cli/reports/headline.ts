import { causesOf, type Cause } from '../../helpers/judge/outcome-meaning.js';
import type { RuleResult } from './report.js';

// A headline must stay a line or two at a desktop's width whatever a server sent: a `seen` can hold a whole body.
// The full text is in the evidence beneath it.
const EXPECTED_SEEN_CHARS = 90;
const MESSAGE_CHARS = 200;

/**
 * What a failing rule leads with: one sentence of what was expected and what was seen, and how many more findings
 * (of how many causes) the evidence beneath holds, instead of every finding joined into one paragraph.
 */
export interface Headline {
  /** "Expected exactly 20 pets without limit; saw 10 pets", without its full stop. */
  statement: string;
  /** "and 32 more findings (5 causes in all)", when there are more findings than the one stated. */
  more?: string;
}

export function headlineOf(rule: Pick<RuleResult, 'message' | 'evidence'>): Headline {
  const causes = causesOf(rule.evidence);
  const leading = largestCause(causes);
  if (!leading) return { statement: withoutFullStop(shortened(rule.message ?? 'no finding was recorded', MESSAGE_CHARS)) };
  const { evidence } = leading;
  // The cause key is expected and seen without the body or the case; a finding that recorded none reads as its message.
  const statement = evidence.cause
    ? `Expected ${shortened(evidence.cause.expected, EXPECTED_SEEN_CHARS)}; saw ${shortened(evidence.cause.seen, EXPECTED_SEEN_CHARS)}`
    : withoutFullStop(shortened(evidence.message, MESSAGE_CHARS));
  const others = rule.evidence.length - 1;
  if (others === 0) return { statement };
  const findings = `${others} more ${others === 1 ? 'finding' : 'findings'}`;
  return { statement, more: `and ${findings} (${causes.length === 1 ? 'one cause' : `${causes.length} causes`} in all)` };
}

/** "Expected …; saw …; and 3 more findings (one cause in all).": the headline as one sentence of text. */
export function headlineText(headline: Headline): string {
  return `${headline.statement}${headline.more ? `; ${headline.more}` : ''}${fullStop(headline.more ?? headline.statement)}`;
}

/** The full stop a headline ends with, unless its text already ends a sentence (a cut one ends with an ellipsis). */
export function fullStop(text: string): string {
  return /[.!?…]$/.test(text) ? '' : '.';
}

function withoutFullStop(text: string): string {
  return text.replace(/\.$/, '');
}

/** The cause most findings share, the first of them on a tie: the one fix that clears the most. */
function largestCause(causes: readonly Cause[]): Cause | undefined {
  return causes.reduce<Cause | undefined>((best, cause) => (!best || cause.count > best.count ? cause : best), undefined);
}

/** At most `max` characters, cut at a space near the end where there is one, marked with an ellipsis. */
function shortened(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(line); // By code point: a cut through a surrogate pair would show a broken character.
  if (chars.length <= max) return line;
  const cut = chars.slice(0, max).join('');
  const space = cut.lastIndexOf(' ');
  return `${space > max * 0.75 ? cut.slice(0, space) : cut}…`;
}
