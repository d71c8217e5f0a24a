// The specification the verdicts cite travels with the package, stays the shared text word for word, and
// every rule's section in report.html links to its place in it; the CLI stays executable and --help complete.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toHtml } from '../../cli/reports/html.js';
import { specAnchorFor, specSections } from '../../cli/reports/spec-text.js';
import { buildProgram } from '../../cli/options.js';
import { loadCatalog } from '../../helpers/spec/catalog.js';
import { packagePath } from '../../helpers/package-root.js';
import { sampleReport } from '../support/sample-report.js';

const SHARED = resolve(packagePath(), '..', 'shared', 'petstore-interface-spec.md');

describe('spec/petstore-interface-spec.md', () => {
  it.skipIf(!existsSync(SHARED))('is the shared specification, byte for byte', () => {
    expect(readFileSync(packagePath('spec', 'petstore-interface-spec.md'), 'utf8')).toBe(readFileSync(SHARED, 'utf8'));
  });

  it('is linked from the README', () => {
    expect(readFileSync(packagePath('README.md'), 'utf8')).toContain('](spec/petstore-interface-spec.md');
  });

  it('has a section for every section of the catalog that cites it', () => {
    const sections = specSections();
    const cited = [...new Set(loadCatalog().rules.filter((rule) => !rule.source).map((rule) => rule.section))];
    expect(cited.filter((section) => !specAnchorFor(section, sections))).toEqual([]);
    // "GET /pets" is its own heading, not the start of "GET /pets/{petId}".
    expect(specAnchorFor('Endpoints › GET /pets', sections)).toMatch(/^spec-endpoints-get-pets-list-animals/);
  });
});

describe('report.html', () => {
  it('links each rule\'s section to the specification printed in the page', () => {
    const page = toHtml(sampleReport());
    const links = [...page.matchAll(/<cite><a href="#([^"]+)">Endpoints › POST \/pets<\/a>/g)].map((match) => match[1]);
    expect(links.length).toBeGreaterThan(0);
    for (const anchor of links) expect(page).toContain(`<div class="spec-section" id="${anchor}"><h3>Endpoints › POST /pets — add an animal`);
  });
});

describe('the CLI', () => {
  it('is executable after a build', () => {
    expect(statSync(packagePath('dist', 'cli', 'main.js')).mode & 0o111).toBe(0o111);
  });

  it('lists every exit code and the area names in --help', () => {
    const help = buildProgram('0.0.0').helpInformation() + (() => {
      let after = '';
      buildProgram('0.0.0').configureOutput({ writeOut: (text) => (after += text) }).outputHelp();
      return after;
    })();
    for (const code of [0, 1, 2, 3, 4, 5]) expect(help).toMatch(new RegExp(`\\n {2}${code} {2}\\S`));
    for (const area of Object.keys(loadCatalog().areas)) expect(help).toContain(area);
    expect(help).toMatch(/3 {2}the target cannot be judged/);
    expect(help).toMatch(/\n {2}130, 143 {2}cancelled by SIGINT or SIGTERM/);
  });
});
