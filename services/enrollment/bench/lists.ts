// `npx tsx services/enrollment/bench/lists.ts`: list_catalog and list_my_courses through the edge
// for a student with 200 courses in the catalog, against whoami (target: p50 within 2×).
// BUS=1 also measures the enrollment service alone over NATS, RAW=1 the edge without the SDK
// client (plain fetch); BENCH_PROFILE_DIR / EDGE_PROFILE_DIR write CPU profiles of the services.
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { COURSE_CARD_CHANGED } from '@studium/contracts';
import {
  dropDatabase,
  ensureDatabase,
  ensureStream,
  migrate,
  openDatabase,
  PLATFORM_MIGRATIONS,
  streamNames,
} from '@studium/platform';
import { headers, connect as natsConnect } from 'nats';
import { connect, measure, measureInterleaved, spawnTs } from '../../../bench/harness.ts';
import { ensureServices } from '../../../scripts/ensure-services.ts';
import { EnrollmentAdmin } from '../src/admin.ts';
import { MIGRATIONS } from '../src/app.ts';
import type { EnrollmentDb } from '../src/db.ts';

const COURSES = 200;
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 1500);

await ensureServices();
const id = randomBytes(4).toString('hex');
const prefix = `bench${id}`;
const databaseUrl = `postgres://postgres@127.0.0.1:5432/studium_bench_${id}`;
await ensureDatabase(databaseUrl);
const children: ChildProcess[] = [];
const nc = await natsConnect({ servers: 'nats://127.0.0.1:4222' });
try {
  const database = openDatabase<EnrollmentDb>(databaseUrl, 'enrollment', 2);
  await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, MIGRATIONS]);
  const admin = new EnrollmentAdmin(database.db);
  await admin.upsertOrganization('acme', 'Акме');
  await admin.upsertUser('bench@studium', 'Бенч Бенчев', ['Student']);
  await admin.addMember('acme', 'bench@studium', 'member');
  const { token } = await admin.issueToken('bench@studium');

  const env = {
    DATABASE_URL: databaseUrl,
    SUBJECT_PREFIX: prefix,
    LOG_LEVEL: 'info',
    PORT: '0',
    RATE_LIMIT_PER_MINUTE: '100000000',
  };
  const enrollment = await spawnTs(
    'services/enrollment/src/main.ts',
    env,
    /service started/,
    process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [],
  );
  children.push(enrollment.child);

  // 200 cards through the events stream, as the courses service publishes them.
  await ensureStream(nc, prefix);
  const js = nc.jetstream();
  const course = (i: number) => `course-${String(i).padStart(3, '0')}`;
  for (let i = 0; i < COURSES; i++) {
    const upcoming = i % 10 === 0;
    const data = {
      course: course(i),
      revision: 1,
      course_key: upcoming ? null : course(i),
      title: `Курс номер ${i}`,
      summary: `Краткое описание курса номер ${i} для карточки каталога`,
      description: 'Полное описание',
      status: upcoming ? 'upcoming' : 'published',
      objectives: upcoming ? ['Цель один', 'Цель два', 'Цель три'] : [],
      release: upcoming ? null : `r-${i}`,
      version: upcoming ? null : 1,
      lessons: upcoming
        ? []
        : Array.from({ length: 8 }, (_, n) => ({
            id: `${course(i)}-l${n}`,
            key: `l${n}`,
            title: `Урок ${n}`,
            chapter: 'Глава',
          })),
      at: new Date().toISOString(),
    };
    const h = headers();
    const envelope = { id: randomUUID(), type: COURSE_CARD_CHANGED, occurred_at: data.at, data };
    h.set('Nats-Msg-Id', envelope.id);
    await js.publish(streamNames(prefix).subject(COURSE_CARD_CHANGED), JSON.stringify(envelope), { headers: h });
    await admin.allowCourse('acme', course(i));
  }
  for (;;) {
    const n = await database.db
      .selectFrom('catalog')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    if (Number(n.n) >= COURSES) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  for (let i = 1; i <= 20; i++)
    await admin.assignCourse('acme', 'bench@studium', course(i), { mandatory: i % 2 === 0 });
  for (let p = 0; p < 3; p++) {
    await admin.saveProgram(
      `p${p}`,
      `Программа ${p}`,
      true,
      [0, 1, 2, 3, 4].map((k) => course(100 + p * 5 + k)),
    );
    await admin.addProgramMember(`p${p}`, 'bench@studium');
  }
  await database.close();

  const edge = await spawnTs(
    'services/edge/src/main.ts',
    env,
    /Server listening at http:\/\/127\.0\.0\.1:(\d+)/,
    process.env.EDGE_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.EDGE_PROFILE_DIR}`] : [],
  );
  children.push(edge.child);
  const client = await connect(`http://127.0.0.1:${edge.match[1]}/mcp`, token);
  const call = (name: string) => () => client.callTool({ name, arguments: {} });
  const url = `http://127.0.0.1:${edge.match[1]}/mcp`;
  const raw = (name: string) => async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }),
    });
    await res.text();
    return {};
  };
  if (process.env.BUS) {
    const { createBus, createLogger } = await import('@studium/platform');
    const { list_catalog, list_my_courses, whoami } = await import('@studium/contracts');
    const bus = createBus(nc, { prefix, timeoutMs: 5000, log: createLogger('bench', 'silent') });
    const principal = {
      user: 'bench@studium',
      full_name: 'B',
      roles: ['Student'],
      scope: 'write' as const,
      space: 'personal',
    };
    const bc = [
      () => bus.request(whoami, principal, {}),
      () => bus.request(list_catalog, principal, {}),
      () => bus.request(list_my_courses, principal, {}),
    ];
    for (const c of bc) await measure(c, 300, 4);
    const [w, c2, m] = await measureInterleaved(bc, SEQUENTIAL, 1);
    console.log('bus p50', w.p50.toFixed(2), c2.p50.toFixed(2), m.p50.toFixed(2));
  }
  if (process.env.RAW) {
    const rc = [raw('whoami'), raw('list_catalog'), raw('list_my_courses')];
    for (const c of rc) await measure(c, 300, 4);
    const [w, c2, m] = await measureInterleaved(rc, SEQUENTIAL, 1);
    console.log('raw fetch p50', w.p50.toFixed(2), c2.p50.toFixed(2), m.p50.toFixed(2));
  }
  const cases = [call('whoami'), call('list_catalog'), call('list_my_courses')];
  const sizes = await Promise.all(cases.map(async (c) => JSON.stringify(await c()).length));
  for (const c of cases) await measure(c, 300, 4);
  const [who, cat, mine] = await measureInterleaved(cases, SEQUENTIAL, 1);
  console.log('\n| case | p50 ms | p99 ms | reply bytes |\n|---|---:|---:|---:|');
  for (const [name, s, size] of [
    ['whoami', who, sizes[0]],
    ['list_catalog (200)', cat, sizes[1]],
    ['list_my_courses (20)', mine, sizes[2]],
  ] as const)
    console.log(`| ${name} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${size} |`);
  console.log(`\nlist_catalog p50 / whoami p50 = ${(cat.p50 / who.p50).toFixed(2)} (target ≤ 2)`);
  console.log(`list_my_courses p50 / whoami p50 = ${(mine.p50 / who.p50).toFixed(2)} (target ≤ 2)`);
  await client.close();
} finally {
  for (const c of children) c.kill('SIGTERM');
  await Promise.race([
    Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r))))),
    new Promise((r) => setTimeout(r, 5000)),
  ]);
  const jsm = await nc.jetstreamManager();
  await jsm.streams.delete(streamNames(prefix).stream).catch(() => {});
  await nc.drain();
  await dropDatabase(databaseUrl).catch(() => {});
}
