// The figures of the README and its docs/ of what the project holds agree with what it holds: a count of rules, defects or variants
// that drifts (the README said 69 rules where --list showed 94) misleads the reader of every other figure.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../helpers/package-root.js';
import { activeRules } from '../../helpers/spec/catalog.js';
import { DEFECTS } from '../defects/catalog.js';
import { VARIANTS } from '../variants/catalog.js';

/** The README and the pages of docs/ it sends a reader to, as one text. */
const README = [packagePath('README.md'), ...readdirSync(packagePath('docs')).filter((name) => name.endsWith('.md')).map((name) => packagePath('docs', name))]
  .map((path) => readFileSync(path, 'utf8')).join('\n');

/** Every number the README puts before the words that name what it counts. */
function figures(pattern: RegExp): number[] {
  return [...README.matchAll(pattern)].map((match) => Number(match[1]));
}

describe('the README', () => {
  it('gives the number of rules the catalog holds wherever it counts them', () => {
    const counted = figures(/\ball (\d+) rules\b/g);
    expect(counted.length).toBeGreaterThan(0);
    expect(new Set(counted)).toEqual(new Set([activeRules().length]));
  });

  it('gives the number of defects of the mutation harness and of variants of the gallery', () => {
    expect(figures(/once per defect in `[^`]+` \((\d+),/g)).toEqual([DEFECTS.length]);
    expect(figures(/every conforming variant in `[^`]+` \((\d+):/g)).toEqual([VARIANTS.length]);
  });
});
