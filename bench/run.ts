// `npm run bench`: the edge's whoami against a bare SDK server's no-op tool, 1 and 64 calls in flight.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dropDatabase, ensureDatabase, migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import { ensureServices } from '../scripts/ensure-services.ts';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { connect, measure, measureInterleaved, type Stats, spawnTs } from './harness.ts';

const WARMUP = 500;
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 2000);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 6000);

await ensureServices();
const id = randomBytes(4).toString('hex');
const databaseUrl = `postgres://postgres@127.0.0.1:5432/studium_bench_${id}`;
await ensureDatabase(databaseUrl);
const children: ChildProcess[] = [];
try {
  const database = openDatabase<EnrollmentDb>(databaseUrl, 'enrollment', 2);
  await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, MIGRATIONS]);
  const admin = new EnrollmentAdmin(database.db);
  await admin.upsertOrganization('acme', 'Акме');
  await admin.upsertUser('bench@studium', 'Бенч Бенчев', ['Student']);
  await admin.addMember('acme', 'bench@studium', 'member');
  const { token } = await admin.issueToken('bench@studium');
  await database.close();

  const env = {
    DATABASE_URL: databaseUrl,
    SUBJECT_PREFIX: `bench${id}`,
    LOG_LEVEL: 'info',
    PORT: '0',
    RATE_LIMIT_PER_MINUTE: '100000000',
  };
  const enrollment = await spawnTs('services/enrollment/src/main.ts', env, /service started/);
  children.push(enrollment.child);
  const edge = await spawnTs(
    'services/edge/src/main.ts',
    env,
    /Server listening at http:\/\/127\.0\.0\.1:(\d+)/,
    process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [],
  );
  children.push(edge.child);
  const bare = await spawnTs('bench/bare-server.ts', {}, /READY (\d+)/);
  children.push(bare.child);

  const edgeClient = await connect(`http://127.0.0.1:${edge.match[1]}/mcp`, token);
  const bareClient = await connect(`http://127.0.0.1:${bare.match[1]}/`);
  const whoami = () => edgeClient.callTool({ name: 'whoami', arguments: {} });
  const noop = () => bareClient.callTool({ name: 'noop', arguments: {} });

  const cases = [noop, whoami];
  for (const call of cases) await measure(call, WARMUP, 8);
  const [bare1, edge1] = await measureInterleaved(cases, SEQUENTIAL, 1);
  const [bare64, edge64] = await measureInterleaved(cases, CONCURRENT, 64, 4);
  const rows: Array<[string, Stats]> = [
    ['bare no-op, 1 in flight', bare1],
    ['edge whoami, 1 in flight', edge1],
    ['bare no-op, 64 in flight', bare64],
    ['edge whoami, 64 in flight', edge64],
  ];
  console.log('\n| case | p50 ms | p99 ms | calls/s |\n|---|---:|---:|---:|');
  for (const [name, s] of rows)
    console.log(`| ${name} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${s.perSecond.toFixed(0)} |`);
  const p50Ratio = edge1.p50 / bare1.p50;
  const rpsRatio = edge64.perSecond / bare64.perSecond;
  console.log(`\nwhoami p50 / no-op p50 = ${p50Ratio.toFixed(2)} (target ≤ 1.5)`);
  console.log(`whoami calls/s at 64 / no-op calls/s at 64 = ${rpsRatio.toFixed(2)} (target ≥ 0.7)`);
  await edgeClient.close();
  await bareClient.close();
} finally {
  for (const c of children) c.kill('SIGTERM');
  await Promise.race([
    Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r))))),
    new Promise((r) => setTimeout(r, 5000)),
  ]);
  await dropDatabase(databaseUrl).catch(() => {});
}
