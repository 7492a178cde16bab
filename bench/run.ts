// `npm run bench`: the size of tools/list on each endpoint (issue 31's budgets); the edge's whoami
// against a bare SDK server's no-op tool (1 and 64 calls in flight), and list_catalog /
// list_my_courses through the edge for a student with 200 courses in the catalog, against whoami. The bare server also returns the list_catalog result as a
// constant (what its size costs any SDK server and client); a second edge keeps no replies (every
// list rendered); the enrollment rows are the tools over NATS alone, to tell the edge's share
// from the service's.
import type { ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { list_catalog, list_my_courses, type Principal, resolveToken, whoami } from '@studium/contracts';
import { createBus, createLogger, migrate, openDatabase, PLATFORM_MIGRATIONS, ReplyCache } from '@studium/platform';
import { connect as natsConnect } from 'nats';
import { ensureServices } from '../scripts/ensure-services.ts';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { measureToolsList, TOOLS_LIST_BUDGETS } from '../test/support/tools-list.ts';
import { seedCatalog, seedStudent } from './catalog.ts';
import { benchPlace, connect, measure, measureInterleaved, type Stats, spawnTs, teardownBench } from './harness.ts';

// `npm run bench -- lessons`: the lesson loop's benchmark (bench/lessons.ts) instead of this one.
if (process.argv.includes('lessons')) {
  await import('./lessons.ts');
  process.exit(0);
}

const WARMUP = 500;
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 2000);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 6000);
const COURSES = 200;
const ASSIGNED = 20;
const USER = 'bench@studium';

await ensureServices();
const { id, prefix, databaseUrl, env, trust } = await benchPlace('');
const nc = await natsConnect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
const children: ChildProcess[] = [];
const payloadFile = join(tmpdir(), `studium-bench-${id}.json`);
try {
  const database = openDatabase<EnrollmentDb>(databaseUrl, 'enrollment', 2);
  await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, MIGRATIONS]);
  const admin = new EnrollmentAdmin(database.db);
  await admin.upsertOrganization('acme', 'Акме');
  await admin.upsertUser(USER, 'Бенч Бенчев', ['Student']);
  await admin.addMember('acme', USER, 'member');
  const { token } = await admin.issueToken(USER);
  // tools/list is measured with a token that sees every tool of every endpoint.
  await admin.upsertUser('bench-author@studium', 'Автор Бенча', ['Student', 'Course Creator']);
  const authorToken = (await admin.issueToken('bench-author@studium')).token;

  const profile = (dir: string | undefined) => (dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []);
  const enrollment = await spawnTs(
    'services/enrollment/src/main.ts',
    env,
    /service started/,
    profile(process.env.BENCH_ENROLLMENT_PROFILE_DIR),
  );
  children.push(enrollment.child);
  await seedCatalog({ nc, prefix, db: database.db, admin, org: 'acme', courses: COURSES });
  await seedStudent(admin, 'acme', USER, ASSIGNED);
  await database.close();

  const edge = await spawnTs(
    'services/edge/src/main.ts',
    env,
    /Server listening at http:\/\/127\.0\.0\.1:(\d+)/,
    profile(process.env.BENCH_PROFILE_DIR),
  );
  children.push(edge.child);
  await printToolsListSizes(`http://127.0.0.1:${edge.match[1]}`, authorToken);
  // The same edge keeping nothing: every list is rendered by enrollment and serialized again.
  const coldEdge = await spawnTs(
    'services/edge/src/main.ts',
    { ...env, REPLY_CACHE_MB: '0' },
    /Server listening at http:\/\/127\.0\.0\.1:(\d+)/,
  );
  children.push(coldEdge.child);
  const coldClient = await connect(`http://127.0.0.1:${coldEdge.match[1]}/mcp`, token);
  const edgeClient = await connect(`http://127.0.0.1:${edge.match[1]}/mcp`, token);
  const callOn = (client: typeof edgeClient) => (name: string) => () => client.callTool({ name, arguments: {} });
  const call = callOn(edgeClient);
  const coldCall = callOn(coldClient);
  const bus = createBus(nc, { prefix, timeoutMs: 5000, log: createLogger('bench', 'silent'), trust });
  const resolved = await bus.request(resolveToken, null, { token });
  if (!resolved.ok) throw new Error(`token not resolved: ${resolved.error.code}`);
  const principal = (resolved.data as { principal: Principal }).principal;
  const kept = new ReplyCache(64 * 1024 * 1024);
  const overBus =
    (contract: typeof whoami | typeof list_catalog | typeof list_my_courses, cache?: ReplyCache) => async () => {
      const reply = await bus.request(contract, principal, {}, { cache });
      return reply.ok ? {} : { isError: true, error: reply.error };
    };

  // How many courses each list shows, and how large each result is. The bare server's `payload`
  // tool returns the edge's list_catalog result byte for byte.
  const results = (await Promise.all(['whoami', 'list_catalog', 'list_my_courses'].map((n) => call(n)()))) as Array<{
    structuredContent?: { data?: { courses?: unknown[] } };
  }>;
  writeFileSync(payloadFile, JSON.stringify(results[1]));
  const bare = await spawnTs('bench/bare-server.ts', { PAYLOAD_FILE: payloadFile }, /READY (\d+)/);
  children.push(bare.child);
  const bareClient = await connect(`http://127.0.0.1:${bare.match[1]}/`);
  const noop = () => bareClient.callTool({ name: 'noop', arguments: {} });
  const payload = () => bareClient.callTool({ name: 'payload', arguments: {} });
  const bytes = [await noop(), await payload(), ...results].map((r) => Buffer.byteLength(JSON.stringify(r)));
  const [catalogN, mineN] = results.slice(1).map((r) => r.structuredContent?.data?.courses?.length ?? 0);

  const cases: Array<[string, () => Promise<unknown>, number | undefined]> = [
    ['bare no-op', noop, bytes[0]],
    ['bare, the list_catalog result as a constant', payload, bytes[1]],
    ['edge whoami', call('whoami'), bytes[2]],
    [`edge list_catalog (${COURSES} in catalog, ${catalogN} listed)`, call('list_catalog'), bytes[3]],
    [`edge list_my_courses (${mineN} courses)`, call('list_my_courses'), bytes[4]],
    ['edge keeping nothing, list_catalog', coldCall('list_catalog'), bytes[3]],
    ['edge keeping nothing, list_my_courses', coldCall('list_my_courses'), bytes[4]],
    ['enrollment whoami over NATS', overBus(whoami), undefined],
    ['enrollment list_catalog over NATS, rendered', overBus(list_catalog), undefined],
    ['enrollment list_catalog over NATS, kept reply revalidated', overBus(list_catalog, kept), undefined],
    ['enrollment list_my_courses over NATS, rendered', overBus(list_my_courses), undefined],
  ];
  for (const [, c] of cases) await measure(c, WARMUP, 8);
  const one = await measureInterleaved(
    cases.map(([, c]) => c),
    SEQUENTIAL,
    1,
  );
  const [bare64, edge64] = await measureInterleaved([noop, call('whoami')], CONCURRENT, 64, 4);

  const rows: Array<[string, Stats, number | undefined]> = [
    ...cases.map(([name, , size], i): [string, Stats, number | undefined] => [`${name}, 1 in flight`, one[i], size]),
    ['bare no-op, 64 in flight', bare64, bytes[0]],
    ['edge whoami, 64 in flight', edge64, bytes[2]],
  ];
  console.log('\n| case | p50 ms | p99 ms | calls/s | result bytes |\n|---|---:|---:|---:|---:|');
  for (const [name, s, size] of rows) {
    const cells = [s.p50.toFixed(2), s.p99.toFixed(2), s.perSecond.toFixed(0), size ?? ''];
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
  const [bare1, payload1, edge1, catalog1, mine1] = one;
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  console.log(`\nwhoami p50 / no-op p50 = ${ratio(edge1.p50, bare1.p50)} (target ≤ 1.5)`);
  console.log(
    `whoami calls/s at 64 / no-op calls/s at 64 = ${ratio(edge64.perSecond, bare64.perSecond)} (target ≥ 0.7)`,
  );
  console.log(`list_catalog p50 / whoami p50 = ${ratio(catalog1.p50, edge1.p50)} (target ≤ 2)`);
  console.log(`list_my_courses p50 / whoami p50 = ${ratio(mine1.p50, edge1.p50)} (target ≤ 2)`);
  console.log(`(the bare server's constant list_catalog result / no-op = ${ratio(payload1.p50, bare1.p50)})`);
  await edgeClient.close();
  await coldClient.close();
  await bareClient.close();
} finally {
  await teardownBench({ children, nc, prefix, databaseUrl });
  rmSync(payloadFile, { force: true });
}

/** What tools/list weighs on each endpoint, against issue 31's budgets (bytes, 1 KB = 1000). */
async function printToolsListSizes(base: string, token: string) {
  const head = ['tools', 'what a model sees', 'budget', 'whole reply', 'budget', 'description', 'inputSchema'];
  console.log(`\n| tools/list | ${[...head, 'outputSchema', 'annotations'].join(' | ')} |`);
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [path, budget] of Object.entries(TOOLS_LIST_BUDGETS)) {
    const size = await measureToolsList(`${base}${path}`, token);
    const whole = 'whole' in budget ? budget.whole : '';
    const cells = [size.tools, size.model, budget.model, size.whole, whole, size.parts.description];
    const parts = [size.parts.inputSchema, size.parts.outputSchema, size.parts.annotations];
    console.log(`| ${path} | ${[...cells, ...parts].join(' | ')} |`);
  }
}
