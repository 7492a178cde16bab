// `npm run bench:tutor`: the platform's tutor (issue 23) with 100 concurrent conversations. Each
// conversation is a whole lesson taught by the scripted tutor model (its own process, every
// answer's first piece after 150 ms): a first turn of eight model rounds (start_lesson, the five
// items read and marked, request_quiz, the question), then one turn per quiz answer. Per turn the
// client measures request → `done`; the edge's `done` carries the provider's own time for the
// turn's rounds as ai-chat measured it; the difference is what the platform adds (edge, NATS,
// ai-chat, the lesson tools in lessons, PostgreSQL). RSS of the processes involved is sampled.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { enroll, releaseContent, resolveToken } from '@studium/contracts';
import { createBus, createLogger, migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import { connect as natsConnect } from 'nats';
import { ensureServices } from '../scripts/ensure-services.ts';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { quizKey } from '../test/support/teach.ts';
import { benchPlace, openDemoCourse, spawnTs, teardownBench } from './harness.ts';

const CONVERSATIONS = Number(process.env.BENCH_TUTOR_CONVERSATIONS ?? 100);

const percentile = (s: number[], p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99), n: s.length };
};
/** CPU seconds a process has used (user + system). */
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const rssMb = (pid: number) => {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
};

type Turn = { totalMs: number; providerMs: number; toolsMs: number; events: Array<Record<string, unknown>> };

/** One turn through the edge: the whole SSE stream read. */
async function turn(base: string, token: string, body: Record<string, unknown>): Promise<Turn> {
  const t0 = performance.now();
  const res = await fetch(`${base}/v1/tutor/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`turn refused: ${res.status} ${await res.text()}`);
  const text = await res.text();
  const totalMs = performance.now() - t0;
  const events = text
    .split('\n\n')
    .filter((p) => p.startsWith('data: '))
    .map((p) => JSON.parse(p.slice(6)) as Record<string, unknown>);
  const done = events.at(-1);
  if (done?.type !== 'done') throw new Error(`turn did not end with done: ${JSON.stringify(done)}`);
  return { totalMs, providerMs: Number(done.provider_ms ?? 0), toolsMs: Number(done.tools_ms ?? 0), events };
}

type Q = { id: string };
/** Why conversations of the crowd ended without the lesson passed (the refusal the tutor met). */
const notPassed: string[] = [];
/** A whole lesson: the first turn, then each quiz question answered right in its own turn. */
async function conversation(base: string, token: string, lesson: string, key: ReturnType<typeof quizKey>) {
  const turns: Turn[] = [];
  const first = await turn(base, token, { message: 'Здравствуйте, начнём урок', lesson });
  turns.push(first);
  const id = first.events[0]?.conversation_id as string;
  let question = first.events.find((e) => e.tool === 'request_quiz')?.question as Q | null | undefined;
  while (question) {
    const t = await turn(base, token, { message: key.get(question.id)?.right ?? 'V1', conversation_id: id });
    turns.push(t);
    const answered = t.events.find((e) => e.tool === 'submit_answer') as { question?: Q | null } | undefined;
    question = answered?.question ?? null;
  }
  const result = turns.at(-1)?.events.find((e) => e.tool === 'submit_answer')?.result as { passed?: boolean } | null;
  const passed = result?.passed === true;
  if (!passed) {
    // The scripted tutor says a refusal in words («Платформа ответила отказом: code») and stops.
    const said = turns.flatMap((t) => t.events.filter((e) => e.type === 'content').map((e) => e.content)).join('');
    notPassed.push(/отказом: (\w+)/.exec(said)?.[1] ?? 'unknown');
  }
  return turns;
}

await ensureServices();
const { prefix, databaseUrl, env: placeEnv, trust } = await benchPlace('tutor');
const nc = await natsConnect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
const children: ChildProcess[] = [];
let stopping = false;
let sampler: NodeJS.Timeout | undefined;
try {
  const env = { ...placeEnv, AUTH_CACHE_TTL_MS: '600000', WEB_DEMO_LESSONS: '100' };
  const pids: Record<string, number> = {};
  for (const name of ['enrollment', 'courses', 'lessons']) {
    const c = (await spawnTs(`services/${name}/src/main.ts`, env, /service started/)).child;
    children.push(c);
    pids[name] = c.pid ?? 0;
  }
  const bus = createBus(nc, { prefix, timeoutMs: 10_000, log: createLogger('bench', 'silent'), trust });
  const { course } = await openDemoCourse(bus, 'negotiation-basics');
  const content = await bus.request(releaseContent, null, { course });
  if (!content.ok) throw new Error(content.error.code);
  const key = quizKey(content.data.content);
  const lesson = `${course}.interests`;

  const llm = await spawnTs('bench/tutor-llm-server.ts', { LESSON: lesson }, /READY (\d+)/);
  children.push(llm.child);
  pids.llm = llm.child.pid ?? 0;
  const modelEnv = { ...env, AI_BASE_URL: `http://127.0.0.1:${llm.match[1]}/v1`, AI_MODEL: 'scripted-tutor' };
  const profile = process.env.BENCH_TUTOR_PROFILE_DIR; // a CPU profile of ai-chat (`node --cpu-prof`)
  const chat = await spawnTs(
    'services/ai-chat/src/main.ts',
    modelEnv,
    /service started/,
    profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [],
  );
  children.push(chat.child);
  pids['ai-chat'] = chat.child.pid ?? 0;
  const edge = await spawnTs('services/edge/src/main.ts', env, /Server listening at http:\/\/127\.0\.0\.1:(\d+)/);
  children.push(edge.child);
  pids.edge = edge.child.pid ?? 0;
  for (const c of children) {
    c.stdout?.on('data', (d: Buffer) => process.stderr.write(d));
    c.stderr?.on('data', (d: Buffer) => process.stderr.write(d));
    c.once('exit', (code) => {
      if (!stopping) {
        console.error(`a service exited (${code}) during the benchmark`);
        process.exit(1);
      }
    });
  }
  const base = `http://127.0.0.1:${edge.match[1]}`;

  const database = openDatabase<EnrollmentDb>(databaseUrl, 'enrollment', 2);
  await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, MIGRATIONS]);
  const admin = new EnrollmentAdmin(database.db);
  const tokens: string[] = [];
  const ALONE = 5;
  for (let i = 0; i < CONVERSATIONS + ALONE * 2; i++) {
    const user = `tutor${i}@bench.studium`;
    await admin.upsertUser(user, `Ученик ${i}`, ['Student']);
    const { token } = await admin.issueToken(user);
    const resolved = await bus.request(resolveToken, null, { token });
    if (!resolved.ok) throw new Error('token not resolved');
    for (let tries = 0; ; tries++) {
      const r = await bus.request(enroll, resolved.data.principal, { course });
      if (r.ok || r.error.code === 'already_enrolled') break;
      if (tries > 100) throw new Error(`enroll: ${r.error.code}`);
      await new Promise((ok) => setTimeout(ok, 100));
    }
    tokens.push(token);
  }
  await database.close();

  // Warm-up (JIT, pools, token cache), then conversations one at a time.
  for (const t of tokens.slice(0, ALONE)) await conversation(base, t, lesson, key);
  const alone: Turn[] = [];
  for (const t of tokens.slice(ALONE, ALONE * 2)) alone.push(...(await conversation(base, t, lesson, key)));

  const idle = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, rssMb(pid)]));
  const peak = { ...idle };
  sampler = setInterval(() => {
    for (const [k, pid] of Object.entries(pids)) peak[k] = Math.max(peak[k] ?? 0, rssMb(pid));
  }, 100);
  const cpuBefore = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const started = performance.now();
  const crowd = (await Promise.all(tokens.slice(ALONE * 2).map((t) => conversation(base, t, lesson, key)))).flat();
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const cpu = Object.fromEntries(
    Object.entries(pids).map(([k, pid]) => [k, ((cpuSeconds(pid) - (cpuBefore[k] ?? 0)) * 1000) / crowd.length]),
  );

  const row = (label: string, turns: Turn[]) => {
    const added = stats(turns.map((t) => t.totalMs - t.providerMs));
    const provider = stats(turns.map((t) => t.providerMs));
    const total = stats(turns.map((t) => t.totalMs));
    const tools = stats(turns.map((t) => t.toolsMs));
    return `| ${label} | ${added.p50.toFixed(1)} | ${added.p99.toFixed(1)} | ${tools.p50.toFixed(1)} | ${tools.p99.toFixed(1)} | ${provider.p50.toFixed(0)} | ${provider.p99.toFixed(0)} | ${total.p50.toFixed(0)} | ${total.p99.toFixed(0)} | ${added.n} |`;
  };
  const firsts = (ts: Turn[]) => ts.filter((t) => t.events.some((e) => e.tool === 'start_lesson'));
  const answers = (ts: Turn[]) => ts.filter((t) => !t.events.some((e) => e.tool === 'start_lesson'));
  console.log(
    `\nTutor: ${CONVERSATIONS} concurrent conversations, a whole lesson each (${crowd.length} turns in ${seconds.toFixed(0)} s; load average ${loadavg()[0].toFixed(1)})\n`,
  );
  console.log(
    '| turns | platform adds p50 ms | p99 ms | of it, lesson tools p50 ms | p99 ms | provider p50 ms | p99 ms | turn p50 ms | p99 ms | turns |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  console.log(row('one conversation at a time: first turn (8 model rounds, 12 tool calls)', firsts(alone)));
  console.log(row('one conversation at a time: quiz answer (2 rounds, 1 tool call)', answers(alone)));
  console.log(row(`${CONVERSATIONS} at once: first turn`, firsts(crowd)));
  console.log(row(`${CONVERSATIONS} at once: quiz answer`, answers(crowd)));
  if (notPassed.length)
    console.log(`\nConversations that ended without the lesson passed: ${notPassed.length} (${notPassed.join(', ')})`);
  console.log('\n| process | RSS idle MB | RSS peak MB | CPU ms per turn (crowd) |\n|---|---:|---:|---:|');
  for (const k of Object.keys(pids))
    console.log(`| ${k} | ${idle[k]?.toFixed(0)} | ${peak[k]?.toFixed(0)} | ${cpu[k]?.toFixed(1)} |`);
} finally {
  clearInterval(sampler);
  stopping = true;
  await teardownBench({ children, nc, prefix, databaseUrl });
}
