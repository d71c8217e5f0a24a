import MarkdownIt from 'markdown-it';
import { trusted, type SafeHtml } from './safe-html.js';

/**
 * The specification's Markdown as HTML for report.html. markdown-it with `html: false` escapes every tag
 * the text holds, so a `<script>` in it stays text; what else could reach the page is shut off here too,
 * because the page must stay inert and self-contained whatever the Markdown says.
 */
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

// An image would be fetched when the page opens (and the CSP would then log an error): none is rendered;
// its alt text and address stay readable as a link.
markdown.disable('image');

// Only addresses a reader may follow by hand: web, mail, and the page's own anchors. markdown-it's own check
// already refuses javascript:, vbscript:, file: and data:; an allow-list also keeps out schemes not yet thought of.
const FOLLOWABLE = /^(https?:|mailto:|#)/i;
markdown.validateLink = (url: string) => FOLLOWABLE.test(url.trim());

// A column aligned in Markdown becomes style="text-align:…" on its cells: a style attribute the page's CSP
// refuses. A class does the same, from the page's own stylesheet.
for (const rule of ['th_open', 'td_open'] as const) {
  markdown.renderer.rules[rule] = (tokens, index, options, _env, self) => {
    const token = tokens[index]!;
    const align = /text-align:\s*(left|center|right)/.exec(String(token.attrGet('style') ?? ''))?.[1];
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
    if (align) token.attrJoin('class', `align-${align}`);
    return self.renderToken(tokens, index, options);
  };
}

// A link leaves the report for the open web: the referrer (which names the report's file) stays behind.
markdown.renderer.rules.link_open = (tokens, index, options, _env, self) => {
  const token = tokens[index]!;
  if (!String(token.attrGet('href') ?? '').startsWith('#')) token.attrSet('rel', 'noopener noreferrer');
  return self.renderToken(tokens, index, options);
};

/** Markdown text rendered as HTML that runs nothing and loads nothing. */
export function markdownHtml(text: string): SafeHtml {
  return trusted(markdown.render(text));
}

/** One line of Markdown (a heading's text: "GET /pets — list (operation `listPets`)") as inline HTML. */
export function markdownInlineHtml(text: string): SafeHtml {
  return trusted(markdown.renderInline(text));
}

/** A table of the Markdown as its cells' source text: its header and its rows. */
export interface MarkdownTable {
  header: string[];
  rows: string[][];
}

/** The tables a Markdown text holds, read by the same parser that renders it, so a cell is what the page shows as one. */
export function markdownTables(text: string): MarkdownTable[] {
  const tables: MarkdownTable[] = [];
  let row: string[] | undefined;
  for (const token of markdown.parse(text, {})) {
    if (token.type === 'table_open') tables.push({ header: [], rows: [] });
    else if (token.type === 'tr_open') row = [];
    else if (token.type === 'inline' && row) row.push(token.content);
    else if (token.type === 'tr_close' && row) {
      const table = tables[tables.length - 1]!;
      if (table.header.length === 0) table.header = row;
      else table.rows.push(row);
      row = undefined;
    }
  }
  return tables;
}
