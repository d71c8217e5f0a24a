import { MARKUP_MARKS, visibleControls, withoutWorkflowCommands } from './safe-text.js';

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

/**
 * Text safe in element content and in quoted attribute values. Control characters and bidirectional overrides
 * are shown as visible symbols (cli/safe-text.ts): a hostile response must not be able to hide or reorder the
 * text a reader judges it by, nor carry an escape sequence into a terminal it is copied to.
 */
export function escapeText(text: string): string {
  const escaped = visibleControls(text)
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
  return withoutWorkflowCommands(escaped, MARKUP_MARKS);
}
