// report.html as a vendor reads it: a failing run leads each failing rule with one headline and folds its evidence
// beneath, at a desk's width and at a phone's; a certified run reads as it did. Both runs are real ones.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProblem } from '../../helpers/judge/outcome-meaning.js';
import { browserMissing, DESKTOP, launchChromium, ReportTab, screenshotWhole } from '../support/browser.js';
import type { CliRun } from '../support/cli.js';
import { withChildSlot } from '../support/harness.js';
import { certifyInProcess } from '../support/in-process.js';

// A run may first wait for one of the machine's child slots, held by other test files.
const SLOT_WAIT_MS = 5 * 60_000;

// The narrowest phone the issue names (an iPhone SE / mini class screen).
const PHONE = { width: 375, height: 812 };

// Four defects that fail many rules together: pets never stored (the listings, fetches and consistency rules), Error
// bodies without code (every rule that reads one), a gateway's HTML 401 on the store, and a default page of 10.
const DEFECTS = ['create-not-stored', 'errors-without-code', 'store-orders-nginx-401', 'list-default-limit-10'] as const;
// The rate-limit probe and the valid fuzzing add minutes and no failing rule to these defects.
const CHEAPER = ['--rate-limit-budget', '0', '--fuzz-valid-runs', '0'];

const missing = browserMissing();
if (missing) console.warn(`report.html headline tests skipped: ${missing}`);

/** The widest the document is laid out, against the viewport it is shown in. */
function documentWidth(page: Page): Promise<number> {
  return page.locator('html').evaluate((root) => root.scrollWidth);
}

/** Every <details> of the page opened, as a reader who expands every piece of evidence sees it. */
async function openEveryDetails(page: Page): Promise<void> {
  await page.locator('details').evaluateAll((all) => {
    for (const details of all) details.setAttribute('open', '');
  });
}

describe.skipIf(missing !== undefined)('report.html of a failing run, headlines first', () => {
  let browser: Browser;
  let tab: ReportTab;
  let failing: CliRun;
  let certified: CliRun;
  let failingIds: string[];

  beforeAll(async () => {
    [browser, failing, certified] = await Promise.all([
      launchChromium(),
      withChildSlot(() => certifyInProcess({ defects: [...DEFECTS] }, CHEAPER, { timeoutMs: 240_000 })),
      withChildSlot(() => certifyInProcess({}, [], { timeoutMs: 240_000 })),
    ]);
    tab = await ReportTab.in(browser);
    failingIds = failing.report!.rules.filter((rule) => isProblem(rule.status)).map((rule) => rule.id);
    console.info(`report.html of the failing run and its screenshots: ${failing.reportDir}`);
    console.info(`report.html of the certified run and its screenshots: ${certified.reportDir}`);
  }, SLOT_WAIT_MS);

  afterAll(async () => {
    await browser?.close();
  });

  it('runs against a report with at least 20 failing rules, and a certified one', () => {
    expect(failing.code, failing.stderr).toBe(1);
    expect(failingIds.length).toBeGreaterThanOrEqual(20);
    expect(certified.report!.verdict).toBe('certified');
  });

  it('leads each failing rule with one headline no taller than three lines at 1280 px', async () => {
    const { page, fetched, errors } = await tab.open(join(failing.reportDir, 'report.html'), DESKTOP);
    // A headline's lines: the height of its box over its line height (a fixed one: the page sets line-height 1.5).
    const headlines = await page.locator('.rule').evaluateAll((rules) => rules.map((rule) => {
      const headline = rule.querySelectorAll('.headline');
      const first = headline[0];
      return {
        id: rule.id.replace(/^rule-/, ''),
        count: headline.length,
        lines: first ? first.getBoundingClientRect().height / parseFloat(rule.ownerDocument.defaultView!.getComputedStyle(first).lineHeight) : 0,
        text: first?.textContent ?? '',
      };
    }));
    const withHeadline = headlines.filter((rule) => rule.count > 0);
    expect(withHeadline.map((rule) => rule.id)).toEqual(failingIds);
    expect(withHeadline.filter((rule) => rule.count !== 1)).toEqual([]);
    expect(withHeadline.filter((rule) => rule.lines > 3.05).map((rule) => `${rule.id}: ${rule.lines.toFixed(2)} lines: ${rule.text}`)).toEqual([]);
    // The worst of them: a Prism-like ERR-02 once joined 33 findings into one paragraph.
    expect(withHeadline.find((rule) => rule.id === 'ERR-02')!.text).toMatch(/^Expected an Error body with code, message and status; saw .*; and \d+ more findings \(\d+ causes in all\)\.$/);
    expect(withHeadline.find((rule) => rule.id === 'LIST-06')!.text).toBe('Expected a valid Error body; saw /code must be present; and 3 more findings (one cause in all).');

    await page.screenshot({ path: join(failing.reportDir, 'headlines-desktop.png') });
    await screenshotWhole(page, page.locator('#area-errors'), join(failing.reportDir, 'headlines-desktop-errors.png'));
    expect(fetched).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('names every failing rule in the list at the top, each by its headline', async () => {
    const { page } = await tab.open(join(failing.reportDir, 'report.html'), DESKTOP);
    const listed = await page.locator('.to-fix .by-rule > li').allInnerTexts();
    expect(listed.map((line) => line.split(' ')[0])).toEqual(failingIds);
    for (const id of failingIds) {
      const headline = await page.locator(`#rule-${id} .headline`).innerText();
      expect(listed.find((line) => line.startsWith(`${id} `)), id).toMatch(new RegExp(`^${id} (MUST|SHOULD|INFO) (failed|errored): ${headline.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    }
  });

  it('keeps the evidence folded until the reader expands it', async () => {
    const { page } = await tab.open(join(failing.reportDir, 'report.html'), DESKTOP);
    for (const id of failingIds) {
      const rule = page.locator(`#rule-${id}`);
      expect(await rule.locator('details.evidence').count(), id).toBe(1);
      expect(await rule.locator('details.evidence').evaluate((details) => details.hasAttribute('open')), id).toBe(false);
      expect(await rule.locator('.evidence-item:visible, .exchange:visible, .curl:visible').count(), id).toBe(0);
    }
    const rule = page.locator('#rule-ERR-02');
    await rule.locator('details.evidence > summary').click();
    expect(await rule.locator('.evidence-item').first().isVisible()).toBe(true);
    expect(await rule.locator('.curl').first().isVisible()).toBe(true);
  });

  it('fits a 375 px screen: nothing is wider than the viewport, with every piece of evidence open', async () => {
    const { page } = await tab.open(join(failing.reportDir, 'report.html'), PHONE);
    expect(await documentWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await page.screenshot({ path: join(failing.reportDir, 'headlines-phone.png') });
    await screenshotWhole(page, page.locator('.to-fix'), join(failing.reportDir, 'headlines-phone-to-look-at.png'));
    await openEveryDetails(page);
    expect(await documentWidth(page)).toBeLessThanOrEqual(PHONE.width);
    // A long token (a URL, a JSON body) breaks or scrolls inside its own box, never past the headline's.
    const overflowing = await page.locator('.headline, .to-fix li').evaluateAll((elements) => elements.filter((element) => element.scrollWidth > element.clientWidth).map((element) => element.textContent));
    expect(overflowing).toEqual([]);
    await screenshotWhole(page, page.locator('#rule-ERR-02'), join(failing.reportDir, 'headlines-phone-ERR-02.png'));
  });

  it('quotes a row of a spec table as a table under the spec\'s header, with no pipes left in any rule\'s words', async () => {
    const { page } = await tab.open(join(certified.reportDir, 'report.html'), DESKTOP);
    const words = page.locator('#rule-LIST-03 .words');
    expect(await words.locator('th').allInnerTexts()).toEqual(['Query parameter', 'Type', 'Required', 'Rules']);
    expect(await words.locator('td').allInnerTexts()).toEqual(['limit', 'integer', 'no', 'Minimum 1, maximum 100, default 20. Maximum number of animals returned.']);
    const withPipes = await page.locator('.rule .words').evaluateAll((quotes) => quotes.filter((quote) => quote.textContent!.includes('|')).map((quote) => quote.closest('.rule')!.id));
    expect(withPipes).toEqual([]);
    await screenshotWhole(page, page.locator('#rule-CREATE-19'), join(certified.reportDir, 'certified-desktop-CREATE-19.png'));
  });

  it('leaves a certified report as it was: the verdict, no headline, and it fits 375 px', async () => {
    const desktop = await tab.open(join(certified.reportDir, 'report.html'), DESKTOP);
    expect(await desktop.page.locator('#verdict').innerText()).toBe('Certified');
    expect(await desktop.page.locator('.headline, .to-fix').count()).toBe(0);
    await desktop.page.screenshot({ path: join(certified.reportDir, 'certified-desktop.png') });
    expect(desktop.fetched).toEqual([]);
    expect(desktop.errors).toEqual([]);

    const { page } = await tab.open(join(certified.reportDir, 'report.html'), PHONE);
    expect(await documentWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await page.screenshot({ path: join(certified.reportDir, 'certified-phone.png') });
    await openEveryDetails(page);
    expect(await documentWidth(page)).toBeLessThanOrEqual(PHONE.width);
  });
});
