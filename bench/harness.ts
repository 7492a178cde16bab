import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type Principal, publish_course, type Release } from '@studium/contracts';
import {
  type Bus,
  type BusTrust,
  dropDatabase,
  ensureDatabase,
  generateEdgeKeys,
  principalSigner,
  principalVerifier,
  replyVerifier,
  streamNames,
} from '@studium/platform';
import { buildFromDir, publishBuilt } from '@studium/release';
import type { NatsConnection } from 'nats';
import pg from 'pg';
import { buildWeb } from '../scripts/build-web.ts';
import { natsPid } from './cpu.ts';

const root = resolve(import.meta.dirname, '..');

/**
 * A bench run's own place: a fresh database and subject prefix (named after `tag` and a random id),
 * and the environment every service of the run starts with (no rate limit: the bench is the load;
 * its own edge key pair, with `trust` for the bench's own requests that carry a principal).
 */
export async function benchPlace(tag: string) {
  const id = randomBytes(4).toString('hex');
  const prefix = `bench${tag}${id}`;
  const databaseUrl = `postgres://postgres@127.0.0.1:5432/studium_bench${tag}_${id}`;
  await ensureDatabase(databaseUrl);
  // BENCH_PG_LOG=1: every statement of the run's database goes to the server's log with its
  // duration (where the database's time goes, without pg_stat_statements); costs the run some speed.
  if (process.env.BENCH_PG_LOG) await databaseSetting(databaseUrl, 'log_min_duration_statement', '0');
  // BENCH_PG_SET=name=value,…: settings of the run's database (experiments: plan_cache_mode …).
  for (const pair of (process.env.BENCH_PG_SET ?? '').split(',').filter(Boolean)) {
    const [name = '', value = ''] = pair.split('=');
    await databaseSetting(databaseUrl, name, value);
  }
  const keys = generateEdgeKeys();
  const replyKeys = generateEdgeKeys();
  const trust: BusTrust = {
    signer: principalSigner(keys.privateKey),
    verifier: principalVerifier(keys.publicKey),
    replyVerifier: replyVerifier(replyKeys.publicKey),
  };
  const env: Record<string, string> = {
    EDGE_SIGNING_KEY: keys.privateKey,
    EDGE_PUBLIC_KEY: keys.publicKey,
    ENROLLMENT_SIGNING_KEY: replyKeys.privateKey,
    ENROLLMENT_PUBLIC_KEY: replyKeys.publicKey,
    DATABASE_URL: databaseUrl,
    SUBJECT_PREFIX: prefix,
    LOG_LEVEL: 'info',
    PORT: '0',
    RATE_LIMIT_PER_MINUTE: '100000000',
    // A bench is a local run: the development file-URL key is allowed.
    STUDIUM_ENV: 'development',
  };
  return { id, prefix, databaseUrl, env, trust };
}

async function databaseSetting(databaseUrl: string, setting: string, value: string): Promise<void> {
  if (!/^[a-z_]+$/.test(setting) || !/^[A-Za-z0-9_.]+$/.test(value)) throw new Error(`bad setting ${setting}=${value}`);
  const name = new URL(databaseUrl).pathname.slice(1);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`alter database "${name}" set ${setting} = '${value}'`);
  } finally {
    await client.end();
  }
}

/** Node options of a service: `BENCH_PROFILE=lessons,edge` writes a CPU profile of each into .bench-profiles/<name>/. */
export function profileArgs(name: string): string[] {
  return (process.env.BENCH_PROFILE ?? '').split(',').includes(name)
    ? ['--cpu-prof', '--cpu-prof-dir', resolve(root, '.bench-profiles', name)]
    : [];
}

/** A started service's health server, which serves its /metrics; `process` names the process it runs in. */
export interface ServiceHealth {
  service: string;
  process: string;
  url: string;
}

/** The health servers the `service started` lines in `output` name (HEALTH_PORT=0: a free port each). */
function healthOf(output: string, processName: string): ServiceHealth[] {
  const out: ServiceHealth[] = [];
  for (const m of output.matchAll(/"service":"([a-z-]+)"[^\n]*"health":(\d+)[^\n]*"msg":"service started"/g)) {
    out.push({ service: m[1] as string, process: processName, url: `http://127.0.0.1:${m[2]}/metrics` });
  }
  return out;
}

/**
 * Starts the named services and then the edge, each as its own process with `env` (profiled as
 * BENCH_PROFILE says), adding them to `children`; returns the edges' base URLs (one here), every
 * process's pid by name (with the machine's nats-server when one runs), for the CPU meters, and
 * every service's health server (each started with HEALTH_PORT=0), for their /metrics. With
 * `together` > 0 (BENCH_TOGETHER=n) they all run in each of that many processes, named `together`
 * (profiled as `together`), `together2`, …, whose services call each other in-process
 * (bench/together.ts); the processes share the work as replicas do (queue groups, durables, SKIP
 * LOCKED relays), and the bench spreads its students over their edges.
 */
export async function startServices(
  services: readonly string[],
  env: Record<string, string>,
  children: ChildProcess[],
  together = 0,
) {
  // The edge serves the built web assets only (scripts/build-web.ts).
  await buildWeb();
  const pids: Record<string, number> = {};
  const health: ServiceHealth[] = [];
  const nats = natsPid();
  const served = { ...env, HEALTH_PORT: '0' };
  if (together > 0) {
    const bases: string[] = [];
    for (let i = 1; i <= together; i++) {
      const name = i === 1 ? 'together' : `together${i}`;
      const one = await spawnTs(
        'bench/together.ts',
        { ...served, BENCH_SERVICES: services.join(',') },
        /Server listening at http:\/\/127\.0\.0\.1:(\d+)/,
        i === 1 ? profileArgs('together') : [],
      );
      children.push(one.child);
      pids[name] = one.child.pid ?? 0;
      bases.push(`http://127.0.0.1:${one.match[1]}`);
      health.push(...healthOf(one.output, name));
    }
    if (nats) pids.nats = nats;
    return { bases, pids, health };
  }
  for (const name of services) {
    const { child, output } = await spawnTs(
      `services/${name}/src/main.ts`,
      served,
      /service started/,
      profileArgs(name),
    );
    children.push(child);
    pids[name] = child.pid ?? 0;
    health.push(...healthOf(output, name));
  }
  const edge = await spawnTs(
    'services/edge/src/main.ts',
    env,
    /Server listening at http:\/\/127\.0\.0\.1:(\d+)/,
    profileArgs('edge'),
  );
  children.push(edge.child);
  pids.edge = edge.child.pid ?? 0;
  if (nats) pids.nats = nats;
  return { bases: [`http://127.0.0.1:${edge.match[1]}`], pids, health };
}

/**
 * Starts a TypeScript entry point as a child process and waits for a line matching `ready`;
 * `output` is what it wrote until then (stdout and stderr).
 */
export function spawnTs(
  entry: string,
  env: Record<string, string>,
  ready: RegExp,
  nodeArgs: string[] = [],
): Promise<{ child: ChildProcess; match: RegExpMatchArray; output: string }> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', resolve(root, entry)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolvePromise, reject) => {
    let out = '';
    let started = false;
    // Output is kept until the ready line (for the error if the child dies first), then drained.
    const onData = (chunk: Buffer) => {
      if (started) return;
      out += chunk.toString();
      const match = out.match(ready);
      if (match) {
        started = true;
        const output = out;
        out = '';
        resolvePromise({ child, match, output });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code}:\n${out}`)));
  });
}

// The client transport hands one long-lived AbortSignal to every POST, and undici keeps an abort
// listener on it until that request is garbage-collected: past 1500 of them each call would also
// build and print a MaxListenersExceededWarning. The bench never aborts a call, so send no signal.
const fetchWithoutSignal: typeof fetch = (input, init) => fetch(input, { ...init, signal: undefined });

/** An SDK 2.x client over Streamable HTTP, as an agent connects (with a bearer token when given). */
export async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit, fetch: fetchWithoutSignal }));
  return client;
}

export interface Stats {
  p50: number;
  p99: number;
  perSecond: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Runs `total` calls with `inFlight` of them concurrent; latencies in ms. */
export async function measure(call: () => Promise<unknown>, total: number, inFlight: number): Promise<Stats> {
  const { latencies, seconds } = await sample(call, total, inFlight);
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), perSecond: total / seconds };
}

/**
 * Measures several cases in alternating rounds, so that a slow spell of the machine (two cores
 * shared by client, servers, NATS and PostgreSQL) falls on every case alike.
 */
export async function measureInterleaved(
  calls: Array<() => Promise<unknown>>,
  total: number,
  inFlight: number,
  rounds = 10,
): Promise<Stats[]> {
  const all = calls.map(() => ({ latencies: [] as number[], seconds: 0 }));
  const per = Math.ceil(total / rounds);
  for (let r = 0; r < rounds; r++) {
    for (const [i, call] of calls.entries()) {
      const s = await sample(call, per, inFlight);
      all[i].latencies.push(...s.latencies);
      all[i].seconds += s.seconds;
    }
  }
  return all.map(({ latencies, seconds }) => {
    latencies.sort((a, b) => a - b);
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), perSecond: latencies.length / seconds };
  });
}

async function sample(call: () => Promise<unknown>, total: number, inFlight: number) {
  const latencies: number[] = [];
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (issued < total) {
        issued++;
        const t = performance.now();
        const result = (await call()) as { isError?: boolean };
        if (result?.isError) throw new Error(`call failed: ${JSON.stringify(result)}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

/**
 * Ends a bench: stops its service processes (SIGTERM, up to 5 s for them to exit), deletes its
 * prefix's event stream, drains NATS and drops its database (unless `keepDatabase`).
 */
export async function teardownBench(opts: {
  children: ChildProcess[];
  nc: NatsConnection;
  prefix: string;
  databaseUrl: string;
  keepDatabase?: boolean;
}): Promise<void> {
  for (const c of opts.children) c.kill('SIGTERM');
  await Promise.race([
    Promise.all(opts.children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r))))),
    new Promise((r) => setTimeout(r, 5000)),
  ]);
  const jsm = await opts.nc.jetstreamManager();
  await jsm.streams.delete(streamNames(opts.prefix).stream).catch(() => {});
  await opts.nc.drain();
  if (!opts.keepDatabase) await dropDatabase(opts.databaseUrl).catch(() => {});
}

/** The demo curator, who publishes the benches' courses. */
export const BENCH_CURATOR: Principal = {
  user: 'curator@demo.studium',
  full_name: 'Вера Кузнецова',
  roles: ['Course Creator'],
  scope: 'write',
  space: 'personal',
};

/**
 * Publishes a demo course map of examples/ through the release pipeline and opens it
 * (publish_course), as a curator does; returns the course and its release.
 */
export async function openDemoCourse(bus: Bus, dir: string): Promise<{ course: string; release: Release }> {
  const built = await buildFromDir(resolve(root, 'examples', dir));
  if (!built.ok) throw new Error(`the demo map ${dir} is invalid`);
  const published = await publishBuilt(bus, built, { publisher: BENCH_CURATOR.user });
  if (!published.ok) throw new Error(`publish ${dir}: ${published.error.code}`);
  const opened = await bus.request(publish_course, BENCH_CURATOR, { course: published.data.course });
  if (!opened.ok) throw new Error(`publish_course ${dir}: ${opened.error.code}`);
  return { course: published.data.course, release: built.release };
}
