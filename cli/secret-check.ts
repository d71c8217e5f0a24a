import { readFileSync } from 'node:fs';
import { KEY_PLACEHOLDER, Redactor } from '../helpers/http/redact.js';
import { packagePath } from '../helpers/package-root.js';

// What a secret must be before a run may send it: a value an HTTP header can carry. A key that is not one
// fails inside the HTTP client, on every request, where it once left a run waiting forever; here it is one
// line before anything is sent, and the line never shows the key.

/** Longer than any API key or JWT a server issues, and than the 8 KiB most servers take as a whole header. */
export const MAX_SECRET_LENGTH = 8192;

/**
 * Why `secret` cannot be sent as the value of an HTTP header (RFC 9110 §5.5: visible ASCII, spaces and tabs
 * inside, bytes 0x80–0xFF), or undefined when it can. `name` is how the person gave it (PETSTORE_API_KEY,
 * --api-key). Whitespace at either end is refused too: HTTP strips it, so the server would see another key.
 */
export function fieldValueProblem(secret: string, name: string): string | undefined {
  if (secret.length > MAX_SECRET_LENGTH) return `${name} is ${secret.length} characters long, more than the ${MAX_SECRET_LENGTH} any API key needs: is it the right value?`;
  const trailing = /[\r\n]+$/.exec(secret);
  if (trailing) {
    return `${name} ends with a line break (${escapedCharacters(trailing[0])}), which no HTTP header can carry: the secret was stored with its newline; store it without (printf %s "$KEY", not echo)`;
  }
  if (/[\r\n]/.test(secret)) return `${name} holds a line break inside it, which no HTTP header can carry: give the key alone, on one line`;
  const control = /[\u0000-\u0008\u000a-\u001f\u007f]/.exec(secret);
  if (control) return `${name} holds a control character (${codePoint(control[0])}), which no HTTP header can carry: give the key as the server issued it`;
  const wide = /[^\u0000-\u00ff]/u.exec(secret);
  if (wide) {
    return `${name} holds a character no HTTP header can carry (${codePoint(wide[0])}, outside Latin-1): was it pasted through a word processor? Give the key as the server issued it`;
  }
  if (/^[ \t]|[ \t]$/.test(secret)) return `${name} begins or ends with a space or tab, which HTTP drops: the server would see another key; give the key without it`;
  return undefined;
}

/** "\n", "\r\n": what a line break is, as a person would type it. */
function escapedCharacters(text: string): string {
  return [...text].map((character) => (character === '\n' ? '\\n' : character === '\r' ? '\\r' : codePoint(character))).join('');
}

function codePoint(character: string): string {
  return `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * The words the suite writes its own lines with, beside the spec's: every report says what was expected and what
 * was seen, names outcomes and verdicts, and the names of the pets the suite creates.
 */
const SUITE_WORDS = [
  'expected', 'saw', 'seen', 'passed', 'failed', 'skipped', 'errored', 'suite-error', 'certified', 'not-certified', 'incomplete', 'not-judged',
  'judged', 'rule', 'rules', 'finding', 'findings', 'cause', 'request', 'requests', 'response', 'reproduce', 'curl', 'seed', 'replay',
  'conformance', 'petstore-conformance', 'PETSTORE_API_KEY', 'rex', 'fido', 'Bearer', 'Basic', 'Token', 'localhost',
  // The options, which the summary and the reports name.
  '--base-url', '--api-key', '--report-dir', '--only', '--skip', '--read-only', '--strict', '--require-complete', '--timeout',
  '--max-requests', '--max-duration', '--concurrency', '--rate-limit-reserve', '--rate-limit-budget', '--verify-recovery', '--seed',
  '--fuzz-runs', '--fuzz-valid-runs', '--explore-runs', '--max-response-bytes', '--read-lag', '--ca-file', '--json', '--reporter',
  '--baseline', '--write-baseline', '--header', '--cert', '--cert-key',
].join(' ');

/** The texts every report is written with: the spec (report.html carries it), the catalog, the interface, the suite's own words. */
function vocabulary(): Array<{ where: string; text: string }> {
  const spec = (name: string) => ({ where: `spec/${name}`, text: readFileSync(packagePath('spec', name), 'utf8') });
  return [spec('petstore-interface-spec.md'), spec('rules.yaml'), spec('openapi.yaml'), { where: 'the words of the suite\'s own lines', text: SUITE_WORDS }];
}

/**
 * Why `secret` cannot be a key of a run whose reports must stay readable and keep it: it is also a word those
 * reports are written with (`available`, a pet's status), so that every such word would become $PETSTORE_API_KEY,
 * and the reader learn the key from what the placeholder stands in for. Undefined when it is no such word.
 */
export function vocabularyProblem(secret: string, name: string, placeholder = KEY_PLACEHOLDER): string | undefined {
  const redactor = new Redactor([secret]);
  const source = vocabulary().find(({ text }) => redactor.finds(text));
  if (!source) return undefined;
  const remedy = placeholder === KEY_PLACEHOLDER ? 'use the key the server issued' : 'a value this common cannot be kept out of the reports';
  return `${name} is also a word the reports are written with (it occurs in ${source.where}): replaced by ${placeholder} there, it would garble every report and tell its reader the ${placeholder === KEY_PLACEHOLDER ? 'key' : 'value'}; ${remedy}`;
}
