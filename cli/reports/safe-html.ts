/**
 * HTML built from a tagged template that escapes every interpolated value unless it is itself
 * markup made here. Report text includes a target's raw bytes, so escaping cannot be left to
 * remembering it at each of the hundred places a value is written.
 */
export class SafeHtml {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let markup = strings[0] ?? '';
  values.forEach((value, index) => {
    markup += render(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(markup);
}

/** Markup from a trusted constant (the page's own CSS and script). */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeText(String(value));
}

// C0 controls and bidirectional overrides are shown as visible symbols: a hostile response must not
// be able to hide or reorder the text a reader judges it by.
const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g;

/** Text safe in element content and in quoted attribute values. */
export function escapeText(text: string): string {
  return text
    .replace(INVISIBLE, visibleSymbol)
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function visibleSymbol(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code); // ␀ … ␟, Unicode's control pictures
  if (code === 0x7f) return '\u2421'; // ␡
  return `[U+${code.toString(16).toUpperCase()}]`;
}
