// What the tests that read the project's own code share: its modules, and one module parsed as TypeScript
// (oxc-parser, whose tree is ESTree's with TypeScript's nodes added, offsets in UTF-16 code units).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseSync, type Comment, type Program, type Span } from 'oxc-parser';
import { packagePath } from '../../helpers/package-root.js';

/** The TypeScript modules under `folders`, as paths from the project root, sorted. */
export function projectModules(folders: readonly string[]): string[] {
  return folders.flatMap((folder) => readdirSync(packagePath(folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(folder, file)))
    .sort();
}

export interface ParsedModule {
  program: Program;
  /** A node's source text, as written. */
  text(node: Span): string;
  /** A node's source text with its comments blanked out: what the code says, not what is said about it. */
  code(node: Span): string;
  /** The 1-based line a node starts on. */
  line(node: Span): number;
}

/** `source` parsed as the TypeScript module `file`; a syntax error fails the scan rather than hiding code from it. */
export function parseModule(file: string, source: string): ParsedModule {
  const { program, comments, errors } = parseSync(file, source, { lang: 'ts', sourceType: 'module' });
  if (errors.length > 0) throw new Error(`${file} does not parse: ${errors.map((error) => error.message).join('; ')}`);
  const text = (node: Span) => source.slice(node.start, node.end);
  return {
    program,
    text,
    code: (node) => blankComments(text(node), node.start, comments),
    line: (node) => source.slice(0, node.start).split('\n').length,
  };
}

function blankComments(text: string, offset: number, comments: readonly Comment[]): string {
  let code = text;
  for (const comment of comments) {
    const start = comment.start - offset;
    const end = comment.end - offset;
    if (start >= 0 && end <= text.length) code = code.slice(0, start) + ' '.repeat(end - start) + code.slice(end);
  }
  return code;
}
