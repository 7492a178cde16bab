// `npm run bench:hostile`: normal whoami traffic through the edge with and without hostile clients
// beside it (bench/hostile-clients.ts: oversized chunked bodies, JSON nested 5,000 deep, slow
// trickles, batches of tools/list, unauthenticated 50 MB bodies, 488 KB invalid create_notes
// calls), in alternating rounds; the edge runs with its default rate limit, and normal traffic is
// many students (each well under it).
// Prints whoami p50/p99 in both cases (target: p50 with them ≤ 1.5× without) and the edge's RSS.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { createLogger, migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import { connect as natsConnect } from 'nats';
import { ensureServices } from '../scripts/ensure-services.ts';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { benchPlace, connect, measure, spawnTs, teardownBench } from './harness.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 1000);
const IN_FLIGHT = 4;
const STUDENTS = 40;
const NICE = Number(process.env.HOSTILE_NICE ?? 19);

await ensureServices();
const { prefix, databaseUrl, env } = await benchPlace('hostile');
const nc = await natsConnect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
const children: ChildProcess[] = [];
const log = createLogger('bench', 'info');
let stopping = false;
try {
  const database = openDatabase<EnrollmentDb>(databaseUrl, 'enrollment', 2);
  await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, MIGRATIONS]);
  const admin = new EnrollmentAdmin(database.db);
  const tokens: string[] = [];
  for (let i = 0; i < STUDENTS; i++) {
    await admin.upsertUser(`s${i}@bench`, `Ученик ${i}`, ['Student']);
    tokens.push((await admin.issueToken(`s${i}@bench`)).token);
  }
  await admin.upsertUser('attacker@bench', 'Злоумышленник', ['Student']);
  const attacker = (await admin.issueToken('attacker@bench')).token;
  await database.close();
  children.push((await spawnTs('services/enrollment/src/main.ts', env, /service started/)).child);
  // The edge as deployed: its default rate limit (600 calls per token per minute) and body bounds.
  const { RATE_LIMIT_PER_MINUTE: _, ...edgeEnv } = env;
  const edge = await spawnTs('services/edge/src/main.ts', edgeEnv, /Server listening at http:\/\/127\.0\.0\.1:(\d+)/);
  children.push(edge.child);
  // If the edge dies under the attack, that is the result: say so with its last words.
  let lastWords = '';
  edge.child.stderr?.on('data', (d) => {
    lastWords = (lastWords + String(d)).slice(-2000);
  });
  edge.child.once('exit', (code, signal) => {
    if (stopping) return;
    console.error(`\nTHE EDGE DIED under the hostile clients (exit ${code}, ${signal ?? 'no signal'}):\n${lastWords}`);
    process.exit(1);
  });
  const url = `http://127.0.0.1:${edge.match[1]}`;
  const clients = await Promise.all(tokens.map((t) => connect(`${url}/mcp`, t)));
  let next = 0;
  const whoami = () => clients[next++ % clients.length].callTool({ name: 'whoami', arguments: {} });

  const rssMb = () => {
    const line = readFileSync(`/proc/${edge.child.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
    return Number(line?.[1] ?? 0) / 1024;
  };
  /** CPU seconds the edge process has used (user + system). */
  const cpuS = () => {
    const fields = readFileSync(`/proc/${edge.child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  /** The edge's CPU share (of one core) over one measurement. */
  const withCpu = async <T>(run: () => Promise<T>) => {
    const [c0, t0] = [cpuS(), performance.now()];
    const result = await run();
    return { result, cpu: (cpuS() - c0) / ((performance.now() - t0) / 1000) };
  };
  const quietCpu: number[] = [];
  const loudCpu: number[] = [];
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb());
  }, 50);
  await measure(whoami, 300, IN_FLIGHT);
  const idleRss = rssMb();
  const quiet: number[] = [];
  const loud: number[] = [];
  const counts: Array<Record<string, Record<string, number>>> = [];
  let quietPeak = 0;
  let loudPeak = 0;
  for (let r = 0; r < ROUNDS; r++) {
    peak = 0;
    const q = await withCpu(() => measure(whoami, PER_ROUND, IN_FLIGHT));
    quiet.push(q.result.p50);
    quietCpu.push(q.cpu);
    quietPeak = Math.max(quietPeak, peak);
    peak = 0;
    const hostile = await spawnTs(
      'bench/hostile-clients.ts',
      { EDGE_URL: url, TOKEN: attacker, HOSTILE_KINDS: process.env.HOSTILE_KINDS ?? '' },
      /HOSTILE READY/,
    );
    // On one shared machine the attackers' own CPU would be taken from the edge and its clients;
    // in deployment it is someone else's. They run at the lowest priority (HOSTILE_NICE=0: not).
    if (hostile.child.pid) setPriority(hostile.child.pid, NICE);
    let out = '';
    hostile.child.stdout?.on('data', (d) => {
      out += String(d);
    });
    // Let them get going (the first oversized bodies arrive, trickles open).
    await new Promise((r) => setTimeout(r, 1500));
    const l = await withCpu(() => measure(whoami, PER_ROUND, IN_FLIGHT));
    loud.push(l.result.p50);
    loudCpu.push(l.cpu);
    loudPeak = Math.max(loudPeak, peak);
    hostile.child.kill('SIGTERM');
    await new Promise((r) => hostile.child.once('exit', r));
    const m = out.match(/COUNTS (.*)/);
    if (m) counts.push(JSON.parse(m[1] as string));
    log.info({ round: r, quiet: quiet.at(-1), loud: loud.at(-1), peakRssMb: Math.round(peak) }, 'round');
  }
  clearInterval(sampler);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const pct = (xs: number[]) => `${(median(xs) * 100).toFixed(0)} %`;
  console.log('\n| case | whoami p50 ms (median of rounds) | edge CPU (of one core) | edge peak RSS MB |');
  console.log('|---|---:|---:|---:|');
  console.log(`| without hostile clients | ${median(quiet).toFixed(2)} | ${pct(quietCpu)} | ${quietPeak.toFixed(0)} |`);
  console.log(`| with hostile clients | ${median(loud).toFixed(2)} | ${pct(loudCpu)} | ${loudPeak.toFixed(0)} |`);
  console.log(`\nedge RSS when idle: ${idleRss.toFixed(0)} MB; hostile clients at nice ${NICE}`);
  console.log(`whoami p50 with / without = ${(median(loud) / median(quiet)).toFixed(2)} (target ≤ 1.5)`);
  const total: Record<string, Record<string, number>> = {};
  for (const c of counts)
    for (const [kind, outcomes] of Object.entries(c))
      for (const [o, n] of Object.entries(outcomes)) {
        total[kind] ??= {};
        total[kind][o] = (total[kind][o] ?? 0) + n;
      }
  console.log(`hostile requests answered, by kind and status: ${JSON.stringify(total)}`);
  await Promise.all(clients.map((c) => c.close()));
} finally {
  stopping = true;
  await teardownBench({ children, nc, prefix, databaseUrl });
}
