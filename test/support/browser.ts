import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { CHROMIUM } from '../../scripts/ensure-chromium.ts';

export { CHROMIUM };

/**
 * Headless Debian Chromium driven by playwright-core (the project's one browser driver; it
 * downloads no browser of its own). Every browser test launches through here.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: install it with "apt-get install -y chromium" (npm test does so) or set CHROMIUM_PATH`,
    );
  }
  // --no-sandbox: tests run as root in CI, where Chromium's sandbox refuses to start.
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}
