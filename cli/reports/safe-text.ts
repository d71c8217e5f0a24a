// Text a target wrote, made harmless for where it is shown. A terminal acts on escape sequences (clearing the
// screen, setting the title, writing the clipboard with OSC 52, moving the cursor back over a line), and a
// GitHub runner acts on a log line that begins with `::` (`::error`, `::set-output`, `::add-mask`) or holds `##[`.
// Every report and the terminal show such bytes as visible marks instead, each in the way its medium reads.

import { TERMINAL_CONTROLS } from '../../helpers/http/exchange.js';

/** The text with every control character shown as a visible mark: ␛ for ESC (Unicode's control pictures), [U+009B] for the rest. */
export function visibleControls(text: string, keep: { lineBreaks?: boolean; tabs?: boolean } = { lineBreaks: true, tabs: true }): string {
  return text.replace(TERMINAL_CONTROLS, visibleSymbol).replace(/[\n\r\t]/g, (char) => {
    if (char === '\t') return keep.tabs ? char : '\u2409';
    if (char === '\n') return keep.lineBreaks ? char : '\u2424';
    return '\u240d'; // a carriage return would move the cursor back over the line a reader is reading
  });
}

function visibleSymbol(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code); // ␀ … ␟
  if (code === 0x7f) return '\u2421'; // ␡
  return `[U+${code.toString(16).toUpperCase().padStart(4, '0')}]`;
}

/** A line that begins (after spaces) with `::`, which a GitHub runner reads as a workflow command. */
const WORKFLOW_COMMAND_LINE = /^([ \t]*)::/gm;
/** The older form, which the runner reads anywhere in a line. */
const WORKFLOW_COMMAND_ANYWHERE = /##\[/g;

/**
 * The text with what a GitHub runner would read as a workflow command marked so that it no longer is: the
 * `::` of a line that begins with it, and every `##[`, each written as `mark` gives it (a visible mark on a
 * terminal, a character reference in HTML or XML, an escape in JSON).
 */
export function withoutWorkflowCommands(text: string, mark: { colon: string; bracket: string } = TERMINAL_MARKS): string {
  return text.replace(WORKFLOW_COMMAND_LINE, `$1${mark.colon}:`).replace(WORKFLOW_COMMAND_ANYWHERE, `##${mark.bracket}`);
}

/** On a terminal or in a CI log: the colon and the bracket shown in guillemets, which no runner reads. */
const TERMINAL_MARKS = { colon: '‹:›', bracket: '‹[›' };

/** In HTML and XML: character references, which a reader of the document sees as the characters they stand for. */
export const MARKUP_MARKS = { colon: '&#58;', bracket: '&#91;' };

/** A line printed to a terminal or a CI log, whatever bytes of a target it holds. */
export function terminalText(text: string): string {
  return withoutWorkflowCommands(visibleControls(text));
}

/**
 * JSON text (report.json, exchanges.har, --json) that no terminal and no runner acts on when it is printed: JSON
 * escapes C0 controls already; the other invisible characters and `##[` are written as \u escapes, which read
 * back as the same value. (A line of it never begins with `::`: a string holds no raw line break.)
 */
export function jsonText(text: string): string {
  return text
    .replace(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(WORKFLOW_COMMAND_ANYWHERE, '##\\u005b');
}
