// Tools the operations tests run beside the services: Debian's PgBouncer (connection budget,
// start-up, pooler tests) and docker-compose (parses docker-compose.yml without an engine).
// Installed with apt-get when missing, as ensure-chromium.ts does for the browser.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const TOOLS = [
  { binary: '/usr/sbin/pgbouncer', apt: 'pgbouncer' },
  { binary: '/usr/bin/docker-compose', apt: 'docker-compose' },
];

/** Installs what is missing (retrying while another apt holds the lock); exits with the command otherwise. */
export function ensureTestTools(): void {
  const missing = TOOLS.filter((t) => !existsSync(t.binary)).map((t) => t.apt);
  if (!missing.length) return;
  console.log(`${missing.join(', ')} missing; installing with apt-get`);
  const install = `DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  for (let attempt = 1; attempt <= 10; attempt++) {
    try {
      execSync(attempt === 1 ? install : `apt-get update && ${install}`, { stdio: 'inherit', shell: '/bin/bash' });
      if (TOOLS.every((t) => existsSync(t.binary))) return;
    } catch {
      // The dpkg lock may be held by another install: wait and try again.
      execSync('sleep 15');
    }
  }
  console.error(`could not install ${missing.join(', ')}; install with: apt-get install -y ${missing.join(' ')}`);
  process.exit(1);
}
