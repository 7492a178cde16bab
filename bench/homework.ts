// `npm run bench:homework`: update_artifact through the edge beside whoami on the same edge (one
// call in flight), without a lesson session and then mid-session (homework also asks lessons for
// the lesson's objectives), and a 10 MB store_homework_file through the edge beside the object
// store's raw put of the same bytes. Enrollment, courses, lessons, homework and the edge run in this process against the
// local NATS, PostgreSQL and Redis (as the tests start them), so the figures compare the tools with
// each other on equal terms rather than give absolute service latencies.
import { randomBytes } from 'node:crypto';
import { homeworkBucket } from '@studium/platform';
import { createTestEnv } from '@studium/testing';
import { ensureServices } from '../scripts/ensure-services.ts';
import { startHomeworkStack } from '../services/homework/test/support/stack.ts';
import { startLessons } from '../test/support/lessons.ts';
import { startEdge } from '../test/support/stack.ts';
import { connect, measure, measureInterleaved } from './harness.ts';

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 600);
const UPLOADS = 5;
const MB = 1024 * 1024;

await ensureServices();
const env = await createTestEnv('bench-homework');
const stack = await startHomeworkStack(env, { RELEASE_TTL_MS: '2000' });
const lessons = await startLessons(env);
const edge = await startEdge(env, { RATE_LIMIT_PER_MINUTE: '0' });
try {
  const a = stack.enrollment.admin;
  // A second organization with the course and no lesson session in it: update_artifact there
  // asks lessons and learns there is none; in acme the session is open (mid-session).
  await a.upsertOrganization('beta', 'Бета');
  await a.addMember('beta', 'anna@hw', 'member');
  await a.allowCourse('beta', stack.course);
  await a.assignCourse('beta', 'anna@hw', stack.course, { mandatory: false });
  const token = (await a.issueToken('anna@hw')).token;
  const client = await connect(`${edge.url}/mcp`, token);
  const whoami = () => client.callTool({ name: 'whoami', arguments: {} });
  let n = 0;
  const updateIn = (space: string) => () =>
    client.callTool({
      name: 'update_artifact',
      arguments: {
        course: stack.course,
        artifact: 'agreements_log',
        key: 'team',
        fields: { lead: `Олег ${n++}`, size: '7', split: 'две группы' },
        space,
      },
    });
  const update = updateIn('beta');
  const midSession = updateIn('acme');
  const started = (await client.callTool({
    name: 'start_lesson',
    arguments: { lesson: stack.lesson('l-text'), space: 'acme' },
  })) as { structuredContent?: { data?: { session?: string } } };
  const session = String(started.structuredContent?.data?.session);
  await client.callTool({
    name: 'mark_goal',
    arguments: { session, goal: 'term:T1', status: 'done', evidence: 'Назвала термин своими словами' },
  });
  type Probe = { structuredContent?: { data?: { objectives?: unknown[] } } };
  if (!((await midSession()) as Probe).structuredContent?.data?.objectives?.length) throw new Error('no objectives');
  if (((await update()) as Probe).structuredContent?.data?.objectives) throw new Error('objectives without a session');
  for (const c of [whoami, update, midSession]) await measure(c, 100, 4);
  const [w, u, m] = await measureInterleaved([whoami, update, midSession], SEQUENTIAL, 1);

  const bytes = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(10 * MB - 9)]);
  const content = bytes.toString('base64');
  const os = await env.nc.jetstream().views.os(homeworkBucket(env.prefix));
  const timed = async (fn: () => Promise<unknown>) => {
    const t = performance.now();
    const r = (await fn()) as { isError?: boolean };
    if (r?.isError) throw new Error(`failed: ${JSON.stringify(r)}`);
    return performance.now() - t;
  };
  const raw: number[] = [];
  const tool: number[] = [];
  for (let i = 0; i < UPLOADS; i++) {
    raw.push(await timed(() => os.putBlob({ name: `bench-${i}` }, bytes)));
    tool.push(
      await timed(() =>
        client.callTool({
          name: 'store_homework_file',
          arguments: { lesson: stack.lesson('l-both'), space: 'acme', files: [{ name: `big-${i}.pdf`, content }] },
        }),
      ),
    );
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  console.log('\n| case | p50 ms | p99 ms | calls/s |\n|---|---:|---:|---:|');
  console.log(`| edge whoami, 1 in flight | ${w.p50.toFixed(2)} | ${w.p99.toFixed(2)} | ${w.perSecond.toFixed(0)} |`);
  console.log(
    `| edge update_artifact, no lesson session, 1 in flight | ${u.p50.toFixed(2)} | ${u.p99.toFixed(2)} | ${u.perSecond.toFixed(0)} |`,
  );
  console.log(
    `| edge update_artifact mid-session (objectives from lessons), 1 in flight | ${m.p50.toFixed(2)} | ${m.p99.toFixed(2)} | ${m.perSecond.toFixed(0)} |`,
  );
  console.log(`\nupdate_artifact p50 / whoami p50 = ${(u.p50 / w.p50).toFixed(2)}`);
  console.log(`update_artifact mid-session p50 / whoami p50 = ${(m.p50 / w.p50).toFixed(2)}`);
  console.log(
    `10 MB: object store raw put median ${median(raw).toFixed(0)} ms; store_homework_file through the edge median ${median(tool).toFixed(0)} ms (${(median(tool) / median(raw)).toFixed(2)}×)`,
  );
  await client.close();
} finally {
  await edge.close();
  await lessons.close();
  await stack.close();
  await env.cleanup();
}
