// `npm run bench:startup`: each service's start time (process spawned → /readyz answers 200) and
// resident memory once ready, run from TypeScript with tsx (development, `npm start`) and as the
// compiled JavaScript of the production image (`npm run build`, then `npm ci --omit=dev` in dist/).
// Every service migrates a fresh database first, so the figures include its migrations.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { dropDatabase, ensureDatabase, generateEdgeKeys } from '@studium/platform';
import { buildWeb } from '../scripts/build-web.ts';
import { ensureServices } from '../scripts/ensure-services.ts';
import { SERVICES } from '../scripts/services.ts';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 3);
/** The edge's key pair for the run (the services refuse to start without one outside development). */
const KEYS = generateEdgeKeys();
const root = resolve(import.meta.dirname, '..');
const dist = join(root, 'dist');
const node = process.execPath;

await ensureServices();
// The edge from TypeScript serves services/edge/assets/; dist/ has its own (below).
await buildWeb();
// A dist/ built before the web assets were part of the build is built again.
if (!existsSync(join(dist, 'node_modules')) || !existsSync(join(dist, 'services/edge/assets/manifest.json'))) {
  execFileSync(join(root, 'node_modules/.bin/tsx'), [join(root, 'scripts/build.ts')], { stdio: 'inherit' });
  execFileSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], { cwd: dist, stdio: 'inherit' });
}

/** Resident set size of a process in MB (Linux /proc). */
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

async function ready(url: string, child: ChildProcess, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`);
    const ok = await fetch(url)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`not ready: ${url}`);
}

async function once(svc: (typeof SERVICES)[number], mode: 'tsx' | 'node'): Promise<{ ms: number; mb: number }> {
  const id = randomBytes(4).toString('hex');
  const databaseUrl = `postgres://postgres@127.0.0.1:5432/studium_boot_${id}`;
  await ensureDatabase(databaseUrl);
  const port = 9400 + Math.floor(Math.random() * 500);
  const env = {
    ...process.env,
    EDGE_SIGNING_KEY: KEYS.privateKey,
    EDGE_PUBLIC_KEY: KEYS.publicKey,
    DATABASE_URL: databaseUrl,
    SUBJECT_PREFIX: `boot${id}`,
    LOG_LEVEL: 'warn',
    STUDIUM_ENV: 'development',
    MAIL_DIR: join(dist, '.mail'),
    ...(svc.healthOffset !== null ? { HEALTH_PORT: String(port) } : { PORT: String(port) }),
  };
  const [cmd, args, cwd] =
    mode === 'tsx'
      ? [join(root, 'node_modules/.bin/tsx'), [join(root, svc.entry)], root]
      : [node, [join(dist, svc.entry.replace(/\.ts$/, '.js'))], dist];
  const started = performance.now();
  const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    await ready(`http://127.0.0.1:${port}/readyz`, child, Date.now() + 60_000);
    const ms = performance.now() - started;
    // tsx runs the service in a child process of its own: measure the whole tree's leaf.
    const pid = mode === 'tsx' ? leafPid(child.pid ?? 0) : (child.pid ?? 0);
    return { ms, mb: rssMb(pid) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await dropDatabase(databaseUrl).catch(() => {});
  }
}

/** The deepest descendant of a process (tsx's runner forks the real node process). */
function leafPid(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  return children.length ? leafPid(Number(children[0])) : pid;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`node ${process.version}, ${RUNS} runs each, median`);
console.log('| service | tsx start (ms) | compiled start (ms) | tsx RSS (MB) | compiled RSS (MB) |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const svc of SERVICES) {
  const runs: Record<'tsx' | 'node', { ms: number; mb: number }[]> = { tsx: [], node: [] };
  for (let i = 0; i < RUNS; i++) {
    for (const mode of ['tsx', 'node'] as const) runs[mode].push(await once(svc, mode));
  }
  const f = (mode: 'tsx' | 'node', k: 'ms' | 'mb') => median(runs[mode].map((r) => r[k])).toFixed(0);
  console.log(`| ${svc.name} | ${f('tsx', 'ms')} | ${f('node', 'ms')} | ${f('tsx', 'mb')} | ${f('node', 'mb')} |`);
}
