// The browser tests drive Debian's headless Chromium through playwright-core (test/support/browser.ts),
// which downloads no browser: install the package when it is missing.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Path of the Chromium the browser tests drive. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Installs Debian's chromium with apt-get when it is not there (retrying while another apt holds the lock). */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  console.log('chromium is missing; installing it with apt-get');
  const install = 'DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium';
  for (let attempt = 1; attempt <= 10; attempt++) {
    try {
      execSync(attempt === 1 ? install : `apt-get update && ${install}`, { stdio: 'inherit', shell: '/bin/bash' });
      if (existsSync(CHROMIUM)) return;
    } catch {
      // The dpkg lock may be held by another install: wait and try again.
      execSync('sleep 15');
    }
  }
  console.error(`could not install chromium (${CHROMIUM}); install it with: apt-get install -y chromium`);
  process.exit(1);
}
