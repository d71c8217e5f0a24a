import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toHtml } from '../../cli/reports/html.js';
import { browserMissing, launchChromium, ReportTab, screenshotWhole } from '../support/browser.js';
import type { CliRun } from '../support/cli.js';
import { certifyInProcess } from '../support/in-process.js';
import { withChildSlot } from '../support/harness.js';
import { HOSTILE_SPEC_MARKDOWN, sampleReport } from '../support/sample-report.js';
import { specSections } from '../../cli/reports/spec-text.js';
import { scratchDir } from '../support/scratch.js';

// A run may first wait for one of the machine's child slots, held by other test files.
const SLOT_WAIT_MS = 5 * 60_000;

const missing = browserMissing();
if (missing) console.warn(`report.html browser tests skipped: ${missing}`);

const PHONE = { width: 390, height: 844 };

describe.skipIf(missing !== undefined)('report.html in headless Chromium', () => {
  let browser: Browser;
  let tab: ReportTab;
  let run: CliRun;
  let reportHtml: string;

  beforeAll(async () => {
    [browser, run] = await Promise.all([
      launchChromium(),
      // The page is the subject, not the process that wrote it: the run is one in this process.
      withChildSlot(() => certifyInProcess({ defects: ['list-default-limit-10'] }, ['--only', 'listing'], { timeoutMs: 120_000 })),
    ]);
    tab = await ReportTab.in(browser);
    reportHtml = join(run.reportDir, 'report.html');
    console.info(`report.html and its screenshots: ${run.reportDir}`);
  }, SLOT_WAIT_MS);

  afterAll(async () => {
    await browser?.close();
  });

  it('shows the verdict, and a failed rule whose evidence is visible once expanded', async () => {
    const { page, fetched, errors } = await tab.open(reportHtml);
    expect(await page.locator('#verdict').innerText()).toBe('Not certified');
    // A default page of 10 fails LIST-02 and, with a status filter, LIST-14.
    expect(await page.locator('.verdict-why').innerText()).toBe('2 MUST rules failed.');

    const rule = page.locator('#rule-LIST-02');
    expect(await rule.locator('.badge').first().innerText()).toMatch(/^failed$/i);
    expect(await rule.locator('.headline').innerText()).toContain('saw 10 pets');
    const response = rule.locator('.http-response');
    expect(await response.isVisible()).toBe(false);

    await rule.locator('details.evidence > summary').click();
    expect(await response.isVisible()).toBe(true);
    expect(await response.innerText()).toMatch(/^HTTP\/1\.1 200 OK\n/);
    expect(await response.innerText()).toContain('date: ‹masked: varies per request›');
    expect(await rule.locator('.expected-seen').innerText()).toMatch(/Expected\s+exactly 20 pets without limit \(the target holds at least \d+\)\s+Seen\s+10 pets/);
    expect(await rule.locator('.http-request').innerText()).toContain('authorization: Bearer $PETSTORE_API_KEY');
    expect(await rule.locator('.curl').innerText()).toMatch(/^curl -i -X GET '.*\/v1\/pets' .*"Authorization: Bearer \$PETSTORE_API_KEY"$/);

    await page.screenshot({ path: join(run.reportDir, 'report-desktop.png') });
    await screenshotWhole(page, rule, join(run.reportDir, 'report-desktop-LIST-02.png'));
    expect(fetched).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('shows the specification rendered from its Markdown, its tables as tables, a rule\'s section link landing there', async () => {
    const { page, errors } = await tab.open(reportHtml);
    const table = page.locator('#spec table').first();
    expect(await page.locator('#spec table').count()).toBeGreaterThanOrEqual(5);
    expect(await table.locator('th').first().innerText()).toBe('Environment');
    expect(await page.locator('#spec').innerText()).not.toMatch(/^\s*\|.*\|\s*$/m);
    await page.locator('#rule-LIST-02 blockquote cite a').click();
    await page.locator('#spec-limits-page-size').waitFor({ state: 'visible', timeout: 5_000 });
    await screenshotWhole(page, page.locator('#spec .spec-section:has(table)').nth(1), join(run.reportDir, 'report-spec.png'));
    expect(errors).toEqual([]);
  });

  it('fits a phone screen: nothing is wider than the viewport, even with evidence open', async () => {
    const { page } = await tab.open(reportHtml, PHONE);
    await page.screenshot({ path: join(run.reportDir, 'report-phone.png') });
    await page.locator('#rule-LIST-02 details.evidence > summary').click();
    const widest = await page.evaluate('document.documentElement.scrollWidth');
    expect(widest).toBeLessThanOrEqual(PHONE.width);
    await screenshotWhole(page, page.locator('#rule-LIST-02'), join(run.reportDir, 'report-phone-LIST-02.png'));
  });

  it('filters the rules by outcome and by level', async () => {
    const { page } = await tab.open(reportHtml);
    const visibleIds = () => page.locator('.rule:visible .rule-id').allInnerTexts();
    await page.getByLabel('Failed or errored (2)').check();
    expect(await visibleIds()).toEqual(['LIST-02', 'LIST-14']);
    expect(await page.locator('.filters output').innerText()).toBe(`2 of ${run.report!.rules.length} rules shown`);

    await page.locator('.filters input[value=skipped]').check();
    await page.locator('.filters input[value=MUST]').uncheck();
    await page.locator('.filters input[value=SHOULD]').uncheck();
    const skippedInfo = run.report!.rules.filter((rule) => rule.status === 'skipped' && rule.level === 'INFO').map((rule) => rule.id);
    expect(skippedInfo.length).toBeGreaterThan(0);
    expect(await visibleIds()).toEqual(skippedInfo);
  });

  it('opens the evidence of a rule linked from the "to look at" list', async () => {
    const { page } = await tab.open(reportHtml);
    await page.locator('.to-fix a[href="#rule-LIST-02"]').click();
    // The page opens it on hashchange, an event that may come after the click has returned.
    await page.locator('#rule-LIST-02 .http-response').waitFor({ state: 'visible', timeout: 5_000 });
  });

  it('prints every piece of evidence expanded, without the filters', async () => {
    const { page } = await tab.open(reportHtml);
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('#rule-LIST-02 .http-response').isVisible()).toBe(true);
    expect(await page.locator('.filters').isVisible()).toBe(false);
    const pdf = await page.pdf({ format: 'A4' });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('runs nothing and loads nothing a hostile server sent, and shows its bytes as text', async () => {
    const dir = scratchDir('petstore-hostile-html-');
    const file = join(dir, 'report.html');
    const specFile = join(dir, 'spec.md');
    writeFileSync(specFile, HOSTILE_SPEC_MARKDOWN);
    writeFileSync(file, toHtml(sampleReport(), specSections(specFile)));
    const { page, fetched, errors } = await tab.open(file);
    await page.locator('#rule-CREATE-03 details.evidence > summary').click();
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('#rule-CREATE-03 .http-response').innerText()).toContain('{"name":"</pre><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">","note":"[U+202E]evil␇"}');
    expect(await page.locator('#rule-CREATE-03 .headline').innerText()).toBe('name was not echoed <b>exactly</b>.');
    expect(await page.locator('#rule-FUZZ-01 .counterexample').count()).toBe(1);
    await page.locator('#rule-FUZZ-01 details.evidence > summary').click();
    expect(await page.locator('#rule-FUZZ-01 .counterexample').innerText()).toMatch(/Fuzzing seed 424242, mutation categoryId as a string \(fast-check counterexample path 3:0:1\)\. Shrunk body:\s+\{"name":"a","categoryId":"1"\}/);
    // The spec's own Markdown: its tags are text, its script links no links, its image a link that loads nothing.
    expect(await page.locator('#spec').innerText()).toContain('<script>window.__pwned=4</script>');
    expect(await page.locator('#spec a').evaluateAll((links) => links.map((link) => link.getAttribute('href')))).toEqual(['http://127.0.0.1:9/pixel.png']);
    expect(await page.locator('#spec img').count()).toBe(0);
    await screenshotWhole(page, page.locator('#rule-CREATE-03'), join(dir, 'hostile-CREATE-03.png'));
    expect(fetched).toEqual([]);
    expect(errors).toEqual([]);
  });
});
