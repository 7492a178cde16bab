// Makes sure NATS (with JetStream), PostgreSQL and Redis answer on this machine; starts them when
// they are installed but stopped, and explains what to install when they are missing.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { connect as tcp } from 'node:net';
import { ensureChromium } from './ensure-chromium.ts';
import { ensureKazakhDictionary } from './ensure-kazakh.ts';
import { ensureTestTools } from './ensure-test-tools.ts';

interface Dep {
  name: string;
  port: number;
  binary: string;
  start: () => string;
  apt: string;
}

const DEPS: Dep[] = [
  {
    name: 'PostgreSQL',
    port: 5432,
    binary: '/usr/bin/pg_ctlcluster',
    start: () => {
      const version = readdirSync('/etc/postgresql')[0];
      return `pg_ctlcluster --skip-systemctl-redirect ${version} main start`;
    },
    apt: 'postgresql',
  },
  {
    name: 'Redis',
    port: 6379,
    binary: '/usr/bin/redis-server',
    start: () =>
      'mkdir -p /var/lib/redis /var/log/redis && redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log',
    apt: 'redis-server',
  },
  {
    name: 'NATS',
    port: 4222,
    binary: '/usr/sbin/nats-server',
    start: () =>
      'mkdir -p /var/lib/nats-server && start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log',
    apt: 'nats-server',
  },
];

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcp({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function waitFor(port: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await reachable(port)) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/** Ensures every dependency answers; exits with an explanation when one cannot be started. */
export async function ensureServices(): Promise<void> {
  // Only local defaults are managed; an operator pointing at other hosts manages them.
  const missing: string[] = [];
  for (const dep of DEPS) {
    if (await reachable(dep.port)) continue;
    if (!existsSync(dep.binary)) {
      missing.push(dep.apt);
      continue;
    }
    console.log(`${dep.name} is installed but not running; starting it`);
    try {
      execSync(dep.start(), { stdio: 'inherit', shell: '/bin/bash' });
    } catch (err) {
      console.error(`could not start ${dep.name}: ${(err as Error).message}`);
    }
    if (!(await waitFor(dep.port, 15_000))) {
      console.error(`${dep.name} did not come up on 127.0.0.1:${dep.port}`);
      process.exit(1);
    }
  }
  if (missing.length) {
    console.error(
      `Studium needs NATS (JetStream), PostgreSQL and Redis on this machine. Missing: ${missing.join(', ')}.\n` +
        `Install them with:  apt-get install -y ${missing.join(' ')}\n` +
        'or run everything in containers with:  docker compose up',
    );
    process.exit(1);
  }
  // Kazakh full-text search of the knowledge base (best effort; see scripts/ensure-kazakh.ts).
  ensureKazakhDictionary();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await ensureServices();
  ensureChromium();
  ensureTestTools();
}
