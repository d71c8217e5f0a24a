// Headless Chromium for the report.html tests: Debian's chromium package, never a downloaded browser.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
