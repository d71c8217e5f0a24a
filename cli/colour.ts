// Colour on a terminal, by the conventions people set once for every tool: --no-color, then FORCE_COLOR
// (https://force-color.org; "0" and "false" turn it off, as Node reads it), then NO_COLOR (https://no-color.org),
// then whether the stream is a terminal that has colours (which also reads TERM=dumb). The escape codes are
// Node's own table (util.inspect.colors), applied to lines already made inert (cli/reports/safe-text.ts):
// colour is added after a target's bytes are neutralised, never taken from them.
import { inspect } from 'node:util';

/** Whether lines written to `stream` are coloured. `flag` is --no-color's false, or undefined when not given. */
export function wantsColour(stream: { isTTY?: boolean; hasColors?: (env?: NodeJS.ProcessEnv) => boolean }, env: NodeJS.ProcessEnv, flag: boolean | undefined): boolean {
  if (flag === false) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return !['0', 'false'].includes(force.toLowerCase());
  if (env.NO_COLOR) return false;
  // An empty NO_COLOR asks for nothing (no-color.org), but Node's own reading takes any NO_COLOR as no colour.
  const { NO_COLOR: _empty, ...rest } = env;
  return stream.isTTY === true && (stream.hasColors?.(rest) ?? false);
}

type Style = keyof typeof inspect.colors;

function styled(text: string, ...styles: Style[]): string {
  return styles.reduce<string>((inner, style) => {
    const [open, close] = inspect.colors[style]!;
    return `\x1b[${open}m${inner}\x1b[${close}m`;
  }, text);
}

/** Each mark a line of the run starts with (a rule's outcome, a verdict), and how it is shown. */
const MARKS: ReadonlyArray<[RegExp, Style[]]> = [
  [/^CERTIFIED(?=:)/, ['green', 'bold']],
  [/^(?:NOT CERTIFIED|NOT JUDGED)(?=:)/, ['red', 'bold']],
  [/^INCOMPLETE\b[^:]*(?=:)/, ['yellow', 'bold']],
  [/^ *(?:FAIL|ERR |BUG |SUITE ERROR|NOW PASSING)/, ['red']],
  [/^ *PASS\b/, ['green']],
  [/^ *(?:KNOWN|SKIP|N\/A )/, ['yellow']],
  [/^ *INFO\b/, ['cyan']],
];

/** A line with its leading mark coloured; a progress note ("  … waiting") dimmed; anything else as it is. */
export function paint(line: string): string {
  if (/^ {2}… /.test(line)) return styled(line, 'dim');
  for (const [mark, styles] of MARKS) {
    const found = mark.exec(line);
    if (found) {
      const start = found[0].length - found[0].trimStart().length;
      return `${line.slice(0, start)}${styled(found[0].slice(start), ...styles)}${line.slice(found[0].length)}`;
    }
  }
  return line;
}
