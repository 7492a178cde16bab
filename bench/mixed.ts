// `npm run bench:mixed`: the path real traffic takes. 1,000 students, each with their own token
// and MCP client, and a curator call the edge at once (64 calls in flight): reads (whoami, the
// course lists) mixed with writes (set_space, enroll, notify_when_released, and the curator's
// create_course, announce_course, update_course, whose catalog changes invalidate every
// student's kept list_catalog). Per tool: p50, p99, calls per second and refusals (an answered
// refusal, such as already_enrolled, is a normal answer); the edge's reply-cache hit ratio over
// the run; and, from the same run, whoami alone and a bare SDK server's no-op at 64 in flight.
import type { ChildProcess } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/client';
import { migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import { connect as natsConnect } from 'nats';
import { ensureServices } from '../scripts/ensure-services.ts';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { benchCourse, seedCatalog } from './catalog.ts';
import { benchPlace, connect, measureInterleaved, spawnTs, teardownBench } from './harness.ts';

const STUDENTS = Number(process.env.BENCH_STUDENTS ?? 1000);
const CALLS = Number(process.env.BENCH_MIXED_CALLS ?? 20_000);
const IN_FLIGHT = 64;
const COURSES = 200;

/** Student tools and their share of the calls (the curator's share is CURATOR_SHARE). */
const MIX: Array<[string, number]> = [
  ['whoami', 10],
  ['list_catalog', 30],
  ['list_my_courses', 30],
  ['set_space', 5],
  ['enroll', 12],
  ['notify_when_released', 8],
];
const CURATOR_SHARE = 0.02;

await ensureServices();
const { prefix, databaseUrl, env: placeEnv } = await benchPlace('mix');
const nc = await natsConnect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
const children: ChildProcess[] = [];
const clients: Client[] = [];
try {
  const database = openDatabase<EnrollmentDb>(databaseUrl, 'enrollment', 4);
  await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, MIGRATIONS]);
  const admin = new EnrollmentAdmin(database.db);
  await admin.upsertOrganization('acme', 'Акме');
  // The place's environment: its own edge key pair, no rate limit (the bench is the load).
  const env = placeEnv;
  for (const entry of ['services/enrollment/src/main.ts', 'services/courses/src/main.ts']) {
    children.push((await spawnTs(entry, env, /service started/)).child);
  }
  await seedCatalog({ nc, prefix, db: database.db, admin, org: 'acme', courses: COURSES });

  // The students: members of one organization, each with a token and three assigned courses.
  const tokens: string[] = [];
  for (let i = 0; i < STUDENTS; i++) {
    const user = `student${i}@bench`;
    await admin.upsertUser(user, `Ученик ${i}`, ['Student']);
    await admin.addMember('acme', user, 'member');
    for (let k = 0; k < 3; k++) await admin.assignCourse('acme', user, benchCourse(1 + ((i + k * 7) % 90)));
    tokens.push((await admin.issueToken(user)).token);
  }
  await admin.upsertUser('curator@bench', 'Куратор', ['Course Creator']);
  const curatorToken = (await admin.issueToken('curator@bench')).token;
  await database.close();

  const edge = await spawnTs('services/edge/src/main.ts', env, /Server listening at http:\/\/127\.0\.0\.1:(\d+)/);
  children.push(edge.child);
  const base = `http://127.0.0.1:${edge.match[1]}`;
  for (const token of tokens) clients.push(await connect(`${base}/mcp`, token));
  const curator = await connect(`${base}/authoring`, curatorToken);
  const bare = await spawnTs('bench/bare-server.ts', {}, /READY (\d+)/);
  children.push(bare.child);
  const bareClient = await connect(`http://127.0.0.1:${bare.match[1]}/`);

  // The curator's own announcements, which update_course keeps changing during the run.
  const announced: string[] = [];
  for (let i = 0; i < 5; i++) {
    const created = (await curator.callTool({
      name: 'create_course',
      arguments: { title: `Анонс ${i}`, summary: 'Скоро' },
    })) as { structuredContent?: { data?: { course?: string } } };
    const course = created.structuredContent?.data?.course;
    if (!course) throw new Error(`create_course failed: ${JSON.stringify(created)}`);
    await curator.callTool({ name: 'announce_course', arguments: { course, objectives: ['Цель'] } });
    announced.push(course);
  }
  const upcoming = [...Array.from({ length: COURSES / 10 }, (_, i) => benchCourse(i * 10)), ...announced];

  let n = 0;
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
  const total = MIX.reduce((s, [, w]) => s + w, 0);
  const weighted = (r: number) => {
    for (const entry of MIX) {
      if (r < entry[1]) return entry;
      r -= entry[1];
    }
    return MIX[0];
  };
  function next(): [string, Client, Record<string, unknown>] {
    n++;
    if (Math.random() < CURATOR_SHARE) {
      const course = pick(announced);
      return ['update_course (curator)', curator, { course, summary: `Скоро, правка ${n}` }];
    }
    const client = pick(clients);
    const [tool] = weighted(Math.random() * total);
    switch (tool) {
      case 'set_space':
        return [tool, client, { space: Math.random() < 0.5 ? 'personal' : 'acme' }];
      case 'enroll':
        return [tool, client, { course: benchCourse(1 + Math.floor(Math.random() * (COURSES - 1))) }];
      case 'notify_when_released':
        return [tool, client, { course: pick(upcoming) }];
      default:
        return [tool, client, {}];
    }
  }

  const metric = async (result: 'hit' | 'stored') => {
    const text = await (await fetch(`${base}/metrics`)).text();
    const line = new RegExp(`^studium_reply_cache_requests_total\\{[^}]*result="${result}"[^}]*\\} (\\d+)`, 'm');
    const found = line.exec(text);
    if (!found) throw new Error(`no reply-cache metric in /metrics:\n${text.slice(0, 500)}`);
    return Number(found[1]);
  };
  const before = { hit: await metric('hit'), stored: await metric('stored') };
  const stats = new Map<string, { latencies: number[]; refusals: number }>();
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (issued < CALLS) {
        issued++;
        const [tool, client, args] = next();
        const name = tool.replace(' (curator)', '');
        const t = performance.now();
        const res = (await client.callTool({ name, arguments: args })) as {
          isError?: boolean;
          structuredContent?: { error?: { code?: string } };
        };
        const ms = performance.now() - t;
        // A refusal carries a code; an error without one is a failure and ends the bench.
        if (res.isError && !res.structuredContent?.error?.code)
          throw new Error(`${tool} failed: ${JSON.stringify(res)}`);
        const s = stats.get(tool) ?? { latencies: [], refusals: 0 };
        s.latencies.push(ms);
        if (res.isError) s.refusals++;
        stats.set(tool, s);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const after = { hit: await metric('hit'), stored: await metric('stored') };
  const hits = after.hit - before.hit;
  const stored = after.stored - before.stored;

  const whoamiClient = clients[0];
  const [bare64, whoami64] = await measureInterleaved(
    [
      () => bareClient.callTool({ name: 'noop', arguments: {} }),
      () => whoamiClient.callTool({ name: 'whoami', arguments: {} }),
    ],
    6000,
    IN_FLIGHT,
    4,
  );

  const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
  console.log(
    `\n${STUDENTS} students, ${CALLS} calls, ${IN_FLIGHT} in flight, ${(CALLS / seconds).toFixed(0)} calls/s in all`,
  );
  console.log('\n| tool | calls | refusals | p50 ms | p99 ms | calls/s |\n|---|---:|---:|---:|---:|---:|');
  for (const [tool, s] of [...stats].sort((a, b) => b[1].latencies.length - a[1].latencies.length)) {
    s.latencies.sort((a, b) => a - b);
    const cells = [
      s.latencies.length,
      s.refusals,
      pct(s.latencies, 50).toFixed(2),
      pct(s.latencies, 99).toFixed(2),
      (s.latencies.length / seconds).toFixed(0),
    ];
    console.log(`| ${tool} | ${cells.join(' | ')} |`);
  }
  console.log(
    `| whoami alone (same run) | 6000 | 0 | ${whoami64.p50.toFixed(2)} | ${whoami64.p99.toFixed(2)} | ${whoami64.perSecond.toFixed(0)} |`,
  );
  console.log(
    `| bare no-op (same run) | 6000 | 0 | ${bare64.p50.toFixed(2)} | ${bare64.p99.toFixed(2)} | ${bare64.perSecond.toFixed(0)} |`,
  );
  console.log(
    `\nreply cache during the mix: ${hits} hits, ${stored} stored — hit ratio ${((hits / Math.max(1, hits + stored)) * 100).toFixed(1)}%`,
  );
} finally {
  for (const c of clients) await c.close().catch(() => {});
  await teardownBench({ children, nc, prefix, databaseUrl });
}
