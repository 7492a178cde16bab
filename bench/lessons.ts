// `npm run bench -- lessons`: mark_goal through the edge with 64 agents in parallel, each on its
// own session (its own student), beside whoami from the same clients in the same run (interleaved
// rounds, so a slow spell of the shared machine falls on both). Target: mark_goal's calls/s at 64
// in flight at least half of whoami's.
import type { ChildProcess } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/client';
import { enroll, resolveToken } from '@studium/contracts';
import { createBus, createLogger, migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import { connect as natsConnect } from 'nats';
import pg from 'pg';
import { ensureServices } from '../scripts/ensure-services.ts';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { CpuMeter } from './cpu.ts';
import { benchPlace, connect, openDemoCourse, type Stats, startServices, teardownBench } from './harness.ts';

const AGENTS = 64;
const TOTAL = Number(process.env.BENCH_LESSONS_CALLS ?? 4000);
const ROUNDS = 4;
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 600);

type Call = () => Promise<unknown>;

/** `total` calls, worker w always calling calls[w] (its own agent and session); latencies in ms. */
async function sample(calls: Call[], total: number) {
  const latencies: number[] = [];
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    calls.map(async (call) => {
      while (issued < total) {
        issued++;
        const t = performance.now();
        const result = (await call()) as { isError?: boolean; content?: unknown };
        if (result?.isError) throw new Error(`call failed: ${JSON.stringify(result.content)}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

function stats(latencies: number[], seconds: number): Stats {
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return { p50: at(50), p99: at(99), perSecond: latencies.length / seconds };
}

/** Alternating rounds of each case (each case a set of per-worker calls). */
async function interleaved(cases: Call[][], total: number, rounds: number, meters?: CpuMeter[]): Promise<Stats[]> {
  const acc = cases.map(() => ({ latencies: [] as number[], seconds: 0 }));
  for (let r = 0; r < rounds; r++) {
    for (const [i, calls] of cases.entries()) {
      const before = await meters?.[i].snapshot();
      const s = await sample(calls, Math.ceil(total / rounds));
      if (before) meters?.[i].add(before, await (meters[i].snapshot() as Promise<Map<string, number>>));
      acc[i].latencies.push(...s.latencies);
      acc[i].seconds += s.seconds;
    }
  }
  return acc.map((a) => stats(a.latencies, a.seconds));
}

await ensureServices();
const { prefix, databaseUrl, env, trust } = await benchPlace('l');
const nc = await natsConnect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
const children: ChildProcess[] = [];
const clients: Client[] = [];
try {
  const database = openDatabase<EnrollmentDb>(databaseUrl, 'enrollment', 2);
  await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, MIGRATIONS]);
  const admin = new EnrollmentAdmin(database.db);
  const { bases, pids } = await startServices(['enrollment', 'courses', 'lessons'], env, children);
  const bus = createBus(nc, { prefix, timeoutMs: 10_000, log: createLogger('bench', 'silent'), trust });

  const { course } = await openDemoCourse(bus, 'negotiation-basics');

  const url = `${bases[0]}/mcp`;
  const agents: Array<{ client: Client; session: string }> = [];
  for (let i = 0; i < AGENTS; i++) {
    const user = `bench${i}@studium`;
    await admin.upsertUser(user, `Бенч ${i}`, ['Student']);
    const { token } = await admin.issueToken(user);
    const resolved = await bus.request(resolveToken, null, { token });
    if (!resolved.ok) throw new Error('token not resolved');
    // The catalog card arrives by event: retry the enrollment until enrollment knows the course.
    for (let tries = 0; ; tries++) {
      const r = await bus.request(enroll, resolved.data.principal, { course });
      if (r.ok || r.error.code === 'already_enrolled') break;
      if (tries > 100) throw new Error(`enroll: ${r.error.code}`);
      await new Promise((ok) => setTimeout(ok, 100));
    }
    const client = await connect(url, token);
    clients.push(client);
    const started = (await client.callTool({ name: 'start_lesson', arguments: {} })) as {
      structuredContent?: { data?: { session?: string } };
    };
    const session = started.structuredContent?.data?.session;
    if (!session) throw new Error(`start_lesson failed: ${JSON.stringify(started)}`);
    agents.push({ client, session });
  }
  await database.close();

  let n = 0;
  const markGoal = agents.map(
    ({ client, session }) =>
      () =>
        client.callTool({
          name: 'mark_goal',
          arguments: { session, goal: 'term:T1', status: 'done', evidence: `Назвал пример переговоров ${n++}` },
        }),
  );
  const whoami = agents.map(
    ({ client }) =>
      () =>
        client.callTool({ name: 'whoami', arguments: {} }),
  );
  for (let w = 0; w < 2; w++) await interleaved([whoami, markGoal], 256, 1);
  const [who1, mark1] = await interleaved([whoami.slice(0, 1), markGoal.slice(0, 1)], SEQUENTIAL, ROUNDS);
  const watcher = new pg.Client({ connectionString: databaseUrl });
  await watcher.connect();
  // PostgreSQL's counters lag up to a second behind (a backend reports at most once a second).
  const backends = async () => {
    const { rows } = await watcher.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    const xacts = await watcher.query<{ n: number }>(
      'select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()',
    );
    return { pids: rows.map((r) => r.pid), counters: { transactions: Number(xacts.rows[0]?.n ?? 0) } };
  };
  const meters = [new CpuMeter(pids, backends), new CpuMeter(pids, backends)];
  const [who64, mark64] = await interleaved([whoami, markGoal], TOTAL, ROUNDS, meters);
  await watcher.end();
  console.log('\n| case | p50 ms | p99 ms | calls/s |\n|---|---:|---:|---:|');
  const rows: Array<[string, Stats]> = [
    ['edge whoami, 1 in flight', who1],
    ['edge mark_goal, 1 in flight', mark1],
    [`edge whoami, ${AGENTS} agents in flight`, who64],
    [`edge mark_goal, ${AGENTS} agents in flight, each on its own session`, mark64],
  ];
  for (const [name, s] of rows) {
    console.log(`| ${name} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${s.perSecond.toFixed(0)} |`);
  }
  console.log(
    `\nmark_goal calls/s / whoami calls/s at ${AGENTS} = ${(mark64.perSecond / who64.perSecond).toFixed(2)} (target ≥ 0.5)`,
  );
  // CPU per call at 64 in flight, by process ("machine" is every process on it, other agents' too).
  const names = [...meters[0].spent.keys()];
  console.log(
    `\n| per call at ${AGENTS}: CPU ms, PostgreSQL transactions | ${names.join(' | ')} |\n|---|${names.map(() => '---:').join('|')}|`,
  );
  for (const [name, meter] of [
    ['whoami', meters[0]],
    ['mark_goal', meters[1]],
  ] as const) {
    const per = names.map((k) => ((meter.spent.get(k) ?? 0) / TOTAL).toFixed(2));
    console.log(`| ${name} | ${per.join(' | ')} |`);
  }
} finally {
  for (const c of clients) await c.close().catch(() => {});
  await teardownBench({ children, nc, prefix, databaseUrl });
}
