// `npm run bench:reporting`: org_report for a 5,000 × 10 organization and get_my_progress through
// the edge beside whoami from the same run (1 in flight, interleaved); then the event-to-report
// lag at 200 events per second, from the service's own Prometheus histogram.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { events } from '@studium/contracts';
import { ensureStream, migrate, openDatabase, PLATFORM_MIGRATIONS, streamNames } from '@studium/platform';
import { headers, connect as natsConnect } from 'nats';
import { ensureServices } from '../scripts/ensure-services.ts';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import type { ReportingDb } from '../services/reporting/src/db.ts';
import { LARGE, seedLargeOrganization } from '../services/reporting/test/support/large-org.ts';
import { benchPlace, connect, measure, measureInterleaved, type Stats, spawnTs, teardownBench } from './harness.ts';
import { histogramOf, quantile, scrape } from './prom.ts';

const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const RATE = Number(process.env.BENCH_EVENT_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_EVENT_SECONDS ?? 15);
const STUDENT = 'student@bench';
const METRICS_PORT = 9187;

await ensureServices();
const { prefix, databaseUrl, env } = await benchPlace('rep');
const nc = await natsConnect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
const children: ChildProcess[] = [];
const enc = new TextEncoder();
try {
  const database = openDatabase<EnrollmentDb>(databaseUrl, 'enrollment', 2);
  await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, MIGRATIONS]);
  const admin = new EnrollmentAdmin(database.db);
  await admin.upsertOrganization('acme', 'Акме');
  await admin.upsertUser(STUDENT, 'Ученик Бенча', ['Student']);
  await admin.upsertUser(LARGE.manager, 'Руководитель Большой', ['Student']);
  await admin.addMember('acme', STUDENT, 'member');
  for (let j = 0; j < 10; j++) await admin.assignCourse('acme', STUDENT, `big-c${j}`, { mandatory: j < 3 });
  const studentToken = (await admin.issueToken(STUDENT)).token;
  const managerToken = (await admin.issueToken(LARGE.manager)).token;
  await database.close();

  const started = /service started/;
  children.push((await spawnTs('services/enrollment/src/main.ts', env, started)).child);
  children.push(
    (await spawnTs('services/reporting/src/main.ts', { ...env, HEALTH_PORT: String(METRICS_PORT) }, started)).child,
  );
  const reporting = openDatabase<ReportingDb>(databaseUrl, 'reporting', 2);
  await seedLargeOrganization(reporting.db);
  await reporting.close();
  const edge = await spawnTs('services/edge/src/main.ts', env, /Server listening at http:\/\/127\.0\.0\.1:(\d+)/);
  children.push(edge.child);
  const url = `http://127.0.0.1:${edge.match[1]}/mcp`;
  const student = await connect(url, studentToken);
  const manager = await connect(url, managerToken);
  const on =
    (client: typeof student, name: string, args: Record<string, unknown> = {}) =>
    () =>
      client.callTool({ name, arguments: args });
  // The student's courses arrive through the enrollment events; wait until the report has them.
  for (;;) {
    const r = (await on(student, 'get_my_progress', { space: 'acme' })()) as {
      structuredContent?: { data?: { courses_count?: number } };
    };
    if (r.structuredContent?.data?.courses_count === 10) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  const cases: Array<[string, () => Promise<unknown>]> = [
    ['edge whoami (student)', on(student, 'whoami')],
    ['edge get_my_progress (student, 10 courses)', on(student, 'get_my_progress', { space: 'acme' })],
    [`edge org_report (${LARGE.people} × ${LARGE.courses}, first page of 100 + summary)`, on(manager, 'org_report')],
    [
      'edge org_report (one course, status filter)',
      on(manager, 'org_report', { course: 'big-c3', status: 'not_started' }),
    ],
  ];
  const bytes: number[] = [];
  for (const [, c] of cases) bytes.push(Buffer.byteLength(JSON.stringify(await c())));
  for (const [, c] of cases) await measure(c, 30, 1);
  const stats = await measureInterleaved(
    cases.map(([, c]) => c),
    CALLS,
    1,
  );
  console.log('\n| case (1 in flight) | p50 ms | p99 ms | calls/s | result bytes |\n|---|---:|---:|---:|---:|');
  for (const [i, [name]] of cases.entries()) {
    const s = stats[i] as Stats;
    console.log(`| ${name} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${s.perSecond.toFixed(0)} | ${bytes[i]} |`);
  }
  const [who, mine] = stats as [Stats, Stats];
  console.log(`\nget_my_progress p50 / whoami p50 = ${(mine.p50 / who.p50).toFixed(2)}`);

  // Lag: lesson and homework events at RATE per second, as the producers' relays publish them.
  await ensureStream(nc, prefix);
  const js = nc.jetstream();
  const subject = (s: string) => streamNames(prefix).subject(s);
  const kinds = [
    events['lessons.goal_marked'].subject,
    events['lessons.lesson_passed'].subject,
    events['homework.submitted'].subject,
  ];
  const before = await lagHistogram();
  const batchesBefore = await batchStats();
  const total = RATE * SECONDS;
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const type = kinds[i % kinds.length] as string;
    const at = new Date().toISOString();
    const user = `u${String(i % LARGE.people).padStart(4, '0')}@big`;
    const base = {
      user,
      course: 'big-c1',
      lesson: 'big-c1.l1',
      lesson_key: 'l1',
      session: `bench-${i % 500}`,
      space: LARGE.org,
      organization: LARGE.org,
      at,
    };
    const data =
      i % 3 === 0
        ? { ...base, objective: 'l1-D1', goal: 'term:T1', status: 'done', objective_status: 'covered' }
        : i % 3 === 1
          ? {
              ...base,
              release: 'r',
              version: 1,
              via: 'quiz',
              late: false,
              lessons_passed: 3,
              lessons_total: 5,
              course_completed: false,
            }
          : {
              submission: `bench-sub-${i % 500}`,
              user,
              course: base.course,
              lesson: base.lesson,
              space: base.space,
              organization: base.organization,
              status: 'Submitted',
              version: 1,
              due_at: null,
              by: user,
              comment: null,
              at,
            };
    const envelope = { id: randomUUID(), type, occurred_at: at, data };
    const h = headers();
    h.set('Nats-Msg-Id', envelope.id);
    await js.publish(subject(type), enc.encode(JSON.stringify(envelope)), { headers: h });
  }
  const sentSeconds = (performance.now() - t0) / 1000;
  // Every event must reach the reports; a run whose count stops growing (events dropped as
  // malformed, or a stuck consumer) fails instead of waiting forever.
  let after = await lagHistogram();
  let lastCount = after.count;
  let lastGrowth = performance.now();
  while (after.count - before.count < total) {
    await new Promise((r) => setTimeout(r, 200));
    after = await lagHistogram();
    if (after.count !== lastCount) {
      lastCount = after.count;
      lastGrowth = performance.now();
    } else if (performance.now() - lastGrowth > 30_000) {
      throw new Error(`lag phase stalled: ${after.count - before.count} of ${total} events reached the reports`);
    }
  }
  const buckets = after.buckets.map(([le, n], i) => [le, n - (before.buckets[i]?.[1] ?? 0)] as [number, number]);
  console.log(
    `\nevent-to-report lag at ${(total / sentSeconds).toFixed(0)} events/s (${total} events, histogram_quantile over reporting_event_lag_seconds): ` +
      `p50 ${ms(quantile(buckets, 0.5))} ms, p99 ${ms(quantile(buckets, 0.99))} ms, mean ${ms((after.sum - before.sum) / total)} ms`,
  );
  const batches = await batchStats();
  const n = batches.count - batchesBefore.count;
  console.log(
    `batches: ${n}, mean ${((batches.events - batchesBefore.events) / Math.max(1, n)).toFixed(1)} events each, ` +
      `mean transaction ${ms((batches.seconds - batchesBefore.seconds) / Math.max(1, n))} ms (reporting_batch_events, reporting_batch_seconds)`,
  );
  await student.close();
  await manager.close();
} finally {
  await teardownBench({ children, nc, prefix, databaseUrl });
}

function ms(seconds: number): string {
  return (seconds * 1000).toFixed(1);
}

/** The lag histogram as the service exposes it: cumulative buckets, count and sum. */
async function lagHistogram() {
  return histogramOf(await scrape(`http://127.0.0.1:${METRICS_PORT}/metrics`), 'reporting_event_lag_seconds');
}

/** Batches of the read-model consumer so far: how many, their messages and their transaction time. */
async function batchStats() {
  const text = await (await fetch(`http://127.0.0.1:${METRICS_PORT}/metrics`)).text();
  const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
  return {
    count: num(/^reporting_batch_events_count(?:\{[^}]*\})? (\d+)/m),
    events: num(/^reporting_batch_events_sum(?:\{[^}]*\})? ([\d.e+-]+)/m),
    seconds: num(/^reporting_batch_seconds_sum(?:\{[^}]*\})? ([\d.e+-]+)/m),
  };
}
