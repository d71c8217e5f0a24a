import type { MarkdownTable } from './markdown.js';

/**
 * A rule's words as the catalog writes them: the passages of the spec it quotes, joined by " | ", where a
 * passage may be a row of one of the spec's tables, its cells joined the same way ("limit | integer | no |
 * Minimum 1, …"). Shown as they are written, a row reads as a string of pipes; read against the spec's
 * own tables, it is a row again, under the header it has there.
 */
export type QuotedPart =
  | { kind: 'passage'; text: string }
  | { kind: 'table'; header: string[]; rows: string[][] };

const SEPARATOR = ' | ';

/**
 * The words as passages and rows of tables. `tables`: the spec's tables, those of the rule's own section first,
 * so that a row several tables hold alike ("401 | Error.") is read as the section's. A row is recognised from two
 * cells on, each the spec's cell as written (backticks aside); its last quoted cell may carry a remark after it.
 */
export function quotedParts(words: string, tables: readonly MarkdownTable[]): QuotedPart[] {
  const segments = words.split(SEPARATOR);
  const parts: QuotedPart[] = [];
  let lastTable: MarkdownTable | undefined;
  for (let index = 0; index < segments.length;) {
    const match = longestRowAt(segments, index, tables);
    if (!match) {
      parts.push({ kind: 'passage', text: segments[index]! });
      lastTable = undefined;
      index += 1;
      continue;
    }
    const row = segments.slice(index, index + match.cells);
    const previous = parts[parts.length - 1];
    if (previous?.kind === 'table' && lastTable === match.table) previous.rows.push(row);
    else parts.push({ kind: 'table', header: match.table.header.map(plainCell), rows: [row] });
    lastTable = match.table;
    index += match.cells;
  }
  // A quoted row may stop short of the table's last columns (name, type and required, without the description):
  // the table shows as many columns as its longest quoted row.
  for (const part of parts) {
    if (part.kind !== 'table') continue;
    const width = Math.max(...part.rows.map((row) => row.length));
    part.header = part.header.slice(0, width);
    part.rows = part.rows.map((row) => [...row, ...Array<string>(width - row.length).fill('')]);
  }
  return parts;
}

function longestRowAt(segments: readonly string[], start: number, tables: readonly MarkdownTable[]): { table: MarkdownTable; cells: number } | undefined {
  let best: { table: MarkdownTable; cells: number } | undefined;
  for (const table of tables) {
    for (const row of table.rows) {
      const cells = cellsMatched(segments, start, row);
      if (cells >= 2 && cells > (best?.cells ?? 0)) best = { table, cells };
    }
  }
  return best;
}

/** How many of the row's cells, from its first, the segments from `start` quote. */
function cellsMatched(segments: readonly string[], start: number, row: readonly string[]): number {
  let cells = 0;
  while (cells < row.length && start + cells < segments.length) {
    const quoted = plainCell(segments[start + cells]!);
    const cell = plainCell(row[cells]!);
    if (quoted === cell) cells += 1;
    // "Pet, including the assigned id. (How soon … not stated.)": the cell, then a remark; "Minimum 1, maximum 100,
    // default 20.": the cell's first sentence only. Either way the quote ends there.
    else return quoted.startsWith(`${cell} `) || cell.startsWith(`${quoted} `) ? cells + 1 : cells;
  }
  return cells;
}

/** A cell's text as read: its Markdown code marks dropped, its spaces collapsed. */
function plainCell(cell: string): string {
  return cell.replace(/`/g, '').replace(/\s+/g, ' ').trim();
}
