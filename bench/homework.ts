// `npm run bench:homework`: update_artifact through the edge beside whoami on the same edge (one
// call in flight), and a 10 MB store_homework_file through the edge beside the object store's raw
// put of the same bytes. Enrollment, courses, homework and the edge run in this process against the
// local NATS, PostgreSQL and Redis (as the tests start them), so the figures compare the tools with
// each other on equal terms rather than give absolute service latencies.
import { randomBytes } from 'node:crypto';
import { homeworkBucket } from '@studium/platform';
import { createTestEnv } from '@studium/testing';
import { ensureServices } from '../scripts/ensure-services.ts';
import { startHomeworkStack } from '../services/homework/test/support/stack.ts';
import { startEdge } from '../test/support/stack.ts';
import { connect, measure, measureInterleaved } from './harness.ts';

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 600);
const UPLOADS = 5;
const MB = 1024 * 1024;

await ensureServices();
const env = await createTestEnv('bench-homework');
const stack = await startHomeworkStack(env, { RELEASE_TTL_MS: '2000' });
const edge = await startEdge(env, { RATE_LIMIT_PER_MINUTE: '0' });
try {
  const token = (await stack.enrollment.admin.issueToken('anna@hw')).token;
  const client = await connect(`${edge.url}/mcp`, token);
  const whoami = () => client.callTool({ name: 'whoami', arguments: {} });
  let n = 0;
  const update = () =>
    client.callTool({
      name: 'update_artifact',
      arguments: {
        course: stack.course,
        artifact: 'agreements_log',
        key: 'team',
        fields: { lead: `Олег ${n++}`, size: '7', split: 'две группы' },
        space: 'acme',
      },
    });
  for (const c of [whoami, update]) await measure(c, 100, 4);
  const [w, u] = await measureInterleaved([whoami, update], SEQUENTIAL, 1);

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
    `| edge update_artifact, 1 in flight | ${u.p50.toFixed(2)} | ${u.p99.toFixed(2)} | ${u.perSecond.toFixed(0)} |`,
  );
  console.log(`\nupdate_artifact p50 / whoami p50 = ${(u.p50 / w.p50).toFixed(2)}`);
  console.log(
    `10 MB: object store raw put median ${median(raw).toFixed(0)} ms; store_homework_file through the edge median ${median(tool).toFixed(0)} ms (${(median(tool) / median(raw)).toFixed(2)}×)`,
  );
  await client.close();
} finally {
  await edge.close();
  await stack.close();
  await env.cleanup();
}
