// Headless Chromium for the report.html tests: Debian's chromium package, never a downloaded browser.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Why the browser tests cannot run here, or undefined when they can. Under CI a missing browser is
 * not a reason to skip: the tests run and fail, so a green CI always means they ran.
 */
export function browserMissing(): string | undefined {
  if (existsSync(CHROMIUM) || process.env.CI) return undefined;
  return `${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`;
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing; install Debian's chromium (apt-get update && apt-get install -y --no-install-recommends chromium), as .ci/run does`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** The width report.html is read at on a desk. */
export const DESKTOP = { width: 1280, height: 900 };

/** What a page did since it was opened: anything it tried to fetch besides the document, and any script error. */
export interface Visit {
  page: Page;
  fetched: string[];
  errors: string[];
}

/**
 * The page the tests open the reports in, one after another: starting a page (its browser context and renderer)
 * cost some 0.6 s of CPU, more than loading the report into one. Each opening starts from a blank document, so
 * that nothing of the last test's stays: a load of the same URL over it would be a reload, which restores its form
 * controls (the filters), and the viewport and media are set again.
 */
export class ReportTab {
  private visit: Visit | undefined;
  private documentUrl = '';

  private constructor(private readonly page: Page) {
    page.setDefaultTimeout(30_000); // Generous: the machine is shared, and a screenshot waits for a whole paint.
    page.on('request', (request) => {
      if (request.url() !== this.documentUrl) this.visit?.fetched.push(request.url());
    });
    page.on('pageerror', (error) => this.visit?.errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') this.visit?.errors.push(message.text());
    });
  }

  static async in(browser: Browser): Promise<ReportTab> {
    return new ReportTab(await browser.newPage());
  }

  async open(file: string, viewport = DESKTOP): Promise<Visit> {
    this.visit = undefined;
    await this.page.goto('about:blank');
    await this.page.setViewportSize(viewport);
    await this.page.emulateMedia({ media: null });
    const visit: Visit = { page: this.page, fetched: [], errors: [] };
    this.visit = visit;
    this.documentUrl = pathToFileURL(file).href;
    await this.page.goto(this.documentUrl);
    return visit;
  }
}

/**
 * A screenshot of the whole element. The viewport is first made as tall as the element: Chromium
 * captures beyond the viewport by laying out and painting the whole report (some 19,000 px) again,
 * which took 10 s of CPU a shot here and over 30 s on a loaded CI machine.
 */
export async function screenshotWhole(page: Page, element: Locator, path: string): Promise<void> {
  const viewport = page.viewportSize()!;
  // Scrolled into view, the element keeps its scroll margin above it (the sticky filters' room).
  const height = await element.evaluate((node) => Math.ceil(node.getBoundingClientRect().height + parseFloat(node.ownerDocument.defaultView!.getComputedStyle(node).scrollMarginTop)));
  await page.setViewportSize({ width: viewport.width, height: Math.max(viewport.height, height) });
  await element.screenshot({ path });
  await page.setViewportSize(viewport);
}
