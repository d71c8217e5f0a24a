// The words and figures a run writes, held to a few rules that a reader notices at once when they break: "1 pets",
// "a unfiltered page", "status 500 to no body", "5006.699951171875 ms". Only the suite's own words are read: quoted
// text (a name, a body, a header value the target sent) and curl lines are left out, since they are the target's.
import type { Report } from '../../cli/reports/report.js';

/** Nouns the reports count: a count of one takes the singular. */
const COUNTED = 'pets|requests|rules|answers|waits|findings|causes|pages|exchanges|responses|views|ids|bodies|times|steps|items|creates|reads|POSTs|sequences|commands|mutations|bytes|seconds|errors|keys|headers|statuses|names|shapes|attempts|violations';

const PROBLEMS: ReadonlyArray<{ what: string; pattern: RegExp }> = [
  { what: 'a plural after 1', pattern: new RegExp(`(?<![\\d.,])\\b1 (${COUNTED})\\b`) },
  { what: '"a" before a vowel', pattern: /(?<![\w-])[Aa] (?![Uu]ni|[Uu]se|[Oo]ne|[Ee]u|[Uu]r|U[A-Z])[aeiouAEIOU][a-z]/ },
  { what: '"to no body"', pattern: /\bto no body\b/ },
  { what: 'a figure with a float\'s tail', pattern: /\b\d+\.\d{4,}\b/ },
  { what: 'milliseconds with decimals', pattern: /\b\d+\.\d{2,} ?ms\b/ },
];

/** Text with what the target wrote taken out: quoted strings (JSON, shell), and `code`. */
function ownWords(text: string): string {
  return text
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/'(?:[^'\\]|\\.)*'/g, "''")
    .replace(/`[^`]*`/g, '``')
    .replace(/\bbody \{.*$/g, '');
}

/** Each problem of one text, as "what: the words around it". */
export function wordingProblems(text: string): string[] {
  const own = ownWords(text);
  return PROBLEMS.flatMap(({ what, pattern }) => {
    const match = pattern.exec(own);
    return match ? [`${what}: …${own.slice(Math.max(0, match.index - 40), match.index + 40)}…`] : [];
  });
}

/** Every problem of a run's words: each rule's message, observations and findings, and the terminal's lines but curl's. */
export function runWordingProblems(run: { stdout: string; report?: Report }): string[] {
  const texts: Array<[string, string]> = [];
  for (const rule of run.report?.rules ?? []) {
    if (rule.message) texts.push([rule.id, rule.message]);
    for (const note of rule.observations) texts.push([rule.id, note]);
    for (const evidence of rule.evidence) texts.push([rule.id, [evidence.message, evidence.expected ?? '', evidence.seen ?? ''].join(' | ')]);
  }
  const own = run.stdout.split('\n').filter((line) => !/^\s*(reproduce: |replay: |script:|curl |\{ printf|# )/.test(line));
  for (const line of own) texts.push(['terminal', line]);
  return [...new Set(texts.flatMap(([where, text]) => wordingProblems(text).map((problem) => `${where}: ${problem}`)))];
}
