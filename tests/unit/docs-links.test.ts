// Every link of the README and of docs/ to a file of the repository leads somewhere: the file exists, and the
// heading an anchor names is in it. The README was split into docs/ by topic; a link left pointing at a section
// that moved sends a newcomer nowhere.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../helpers/package-root.js';
import { buildProgram } from '../../cli/options.js';
import { REPORTER_NAMES } from '../../cli/reports/names.js';

const PAGES = [packagePath('README.md'), ...readdirSync(packagePath('docs')).filter((name) => name.endsWith('.md')).map((name) => packagePath('docs', name))];

/** The anchors GitHub gives a page's headings (outside code blocks): lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(path: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (heading) anchors.add(heading[1]!.toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-'));
  }
  return anchors;
}

describe('the README and docs/', () => {
  it('link only to files that exist and to headings those files hold', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      const text = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [file, anchor] = target!.split('#') as [string, string | undefined];
        const path = file === '' ? page : join(dirname(page), file);
        const name = `${relative(packagePath(), page)} → ${target}`;
        if (!existsSync(path)) broken.push(`${name}: no such file`);
        else if (anchor !== undefined && path.endsWith('.md') && !anchorsOf(path).has(anchor)) broken.push(`${name}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('keep the README short: a newcomer finds the two commands and where to read on', () => {
    expect(readFileSync(packagePath('README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(250);
  });
});

describe('docs/running.md', () => {
  it('has a row in its options table for every option of the command line, and names every report file --reporter takes', () => {
    const table = readFileSync(packagePath('docs', 'running.md'), 'utf8').split('\n').filter((line) => line.startsWith('| `--'));
    const documented = new Set(table.flatMap((row) => [...row.split('|')[1]!.matchAll(/`(--[a-z-]+)/g)].map(([, flag]) => flag)));
    const flags = buildProgram('0.0.0').options.map((option) => option.long!);
    expect(flags.filter((flag) => !documented.has(flag))).toEqual([]);
    const reporterRow = table.find((row) => row.startsWith('| `--reporter'))!;
    expect(REPORTER_NAMES.filter((name) => !reporterRow.includes(`\`${name}\``))).toEqual([]);
  });
});
