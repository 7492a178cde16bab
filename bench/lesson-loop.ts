// `npm run bench:lesson-loop`: the lesson loop as real traffic has it. N students (BENCH_STUDENTS,
// default 600: a student passes both demo courses in about 90 calls, and a quiet machine takes some
// 25,000 through the phases), each enrolled in the two demo courses with its own token and MCP
// client; each student's agent teaches whole lessons by following next_step — start_lesson, lesson_item and
// mark_goal per open item, request_quiz and submit_answer (a wrong answer from every third
// student where the quiz's pass threshold allows one), complete_lesson —
// with update_artifact, remember, my_homework, list_my_courses and course_outline between steps.
// C calls in flight (16 and 64, BENCH_IN_FLIGHT); interleaved timed phases of the lesson mix,
// whoami alone and a bare SDK server's no-op, so every ratio comes from one run. Prints per tool
// count, p50, p99, calls/s and p50 / whoami p50; lessons completed per second; CPU per process and
// PostgreSQL transactions and rows written per call. A refusal or a failure ends the bench.
// BENCH_TOGETHER=n runs the services and the edge in each of n processes whose requests between
// services skip NATS (BUS_LOCAL; bench/together.ts): what the hops between processes cost.
import type { ChildProcess } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/client';
import type { Release } from '@studium/contracts';
import { createBus, createLogger, migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import { connect as natsConnect } from 'nats';
import pg from 'pg';
import { ensureServices } from '../scripts/ensure-services.ts';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { CpuMeter, type DbCounters, syscalls } from './cpu.ts';
import { benchPlace, connect, openDemoCourse, spawnTs, startServices, teardownBench } from './harness.ts';
import { type Census, censusBetween, censusRows, logMark, serverLogFile } from './pg-census.ts';

const STUDENTS = Number(process.env.BENCH_STUDENTS ?? 600);
const IN_FLIGHT = (process.env.BENCH_IN_FLIGHT ?? '16,64').split(',').map(Number);
const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SERVICES = ['enrollment', 'courses', 'lessons', 'homework', 'knowledge', 'reporting'] as const;

type Reply = { isError?: boolean; structuredContent?: { data?: Record<string, unknown>; error?: { code?: string } } };
type Step = { kind: 'goal'; goal: string; title: string } | { kind: 'quiz' } | { kind: 'complete' } | null;
type QuizKey = Map<string, { right: string; wrong: string; spare: number }>;

/** One student's agent: its client and where it is in its lesson. */
interface Agent {
  client: Client;
  n: number;
  session: string | null;
  course: string | null;
  step: Step;
  attempt: string | null;
  question: { id: string; options: Array<{ id: string; text: string }> } | null;
  wrongLeft: number;
  done: boolean;
  busy: boolean;
}

/** A failure of the bench: a refusal or an outage phrase where the loop expects an answer. */
class LoopError extends Error {}

const stats = new Map<string, number[]>();
let lessonsCompleted = 0;

/** Around each call while set: the per-tool attribution phase (one agent, one call at a time). */
let around: ((tool: string, run: () => Promise<Reply>) => Promise<Reply>) | null = null;

/** Calls a tool, timing it (and attributing its I/O when {@link around} is set). */
async function invoke(agent: Agent, name: string, args: Record<string, unknown>): Promise<Reply> {
  const run = async () => {
    const t = performance.now();
    const res = (await agent.client.callTool({ name, arguments: args })) as Reply;
    if (!res.isError) {
      const list = stats.get(name) ?? [];
      list.push(performance.now() - t);
      stats.set(name, list);
    }
    return res;
  };
  return around ? around(name, run) : run();
}

async function call(agent: Agent, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await invoke(agent, name, args);
  if (res.isError) throw new LoopError(`${name} ${JSON.stringify(args)} → ${JSON.stringify(res).slice(0, 600)}`);
  return res.structuredContent?.data ?? {};
}

/**
 * The quiz key of the published releases: right and wrong option per question, and how many wrong
 * answers the question's quiz still passes with.
 */
function quizKeys(releases: Release[]): QuizKey {
  const key: QuizKey = new Map();
  for (const lesson of releases.flatMap((r) => r.chapters.flatMap((c) => c.lessons))) {
    const questions = lesson.quiz?.questions ?? [];
    const threshold = lesson.quiz?.pass_threshold ?? 1;
    let spare = 0;
    while (spare < questions.length && (questions.length - spare - 1) / questions.length >= threshold) spare++;
    for (const q of questions) {
      const wrong = q.options.find((o) => o.id !== q.correct)?.id as string;
      key.set(q.key, { right: q.correct, wrong, spare });
    }
  }
  return key;
}

/**
 * One step of a student's agent: what an agent following next_step does next, with the side calls
 * an agent makes between steps (the document, a note, the homework and course lists) mixed in.
 */
async function step(agent: Agent, key: QuizKey, courses: string[]): Promise<void> {
  agent.n++;
  if (agent.session && agent.course === courses[0] && agent.n % 11 === 3) {
    const fields = { counterpart: `Коллега ${agent.n}`, subject: `Сроки релиза, шаг ${agent.n}` };
    await call(agent, 'update_artifact', { course: agent.course, artifact: 'negotiation_plan', key: 'case', fields });
    return;
  }
  if (agent.session && agent.n % 13 === 5) {
    await call(agent, 'remember', {
      kind: 'observation',
      key: 'pace',
      text: `Лучше сначала разбор своего случая (${agent.n})`,
      session: agent.session,
    });
    return;
  }
  if (agent.n % 23 === 0) return void (await call(agent, 'my_homework', {}));
  if (agent.n % 29 === 0) return void (await call(agent, 'list_my_courses', {}));
  if (agent.n % 31 === 0) return void (await call(agent, 'course_outline', { course: courses[agent.n % 2] }));

  if (!agent.session) {
    const res = await invoke(agent, 'start_lesson', {});
    if (res.isError && res.structuredContent?.error?.code === 'nothing_to_study') {
      agent.done = true;
      return;
    }
    if (res.isError) throw new LoopError(`start_lesson → ${JSON.stringify(res).slice(0, 600)}`);
    const data = res.structuredContent?.data ?? {};
    agent.session = data.session as string;
    agent.course = (data.lesson as { course: string }).course;
    agent.step = data.next_step as Step;
    return;
  }
  const session = agent.session;
  if (agent.question && agent.attempt) {
    const known = key.get(agent.question.id);
    if (!known) throw new LoopError(`no answer known for ${agent.question.id}`);
    const wrong = agent.wrongLeft > 0;
    if (wrong) agent.wrongLeft--;
    const answer = wrong ? known.wrong : known.right;
    const words = agent.question.options.find((o) => o.id === answer)?.text as string;
    const r = await call(agent, 'submit_answer', {
      attempt: agent.attempt,
      question: agent.question.id,
      answer,
      student_words: words,
    });
    agent.question = r.next_question as Agent['question'];
    if (!agent.question) {
      const result = r.result as { session_status?: string } | undefined;
      agent.attempt = null;
      if (result?.session_status === 'closed') return finish(agent);
      throw new LoopError(`the quiz did not pass the lesson: ${JSON.stringify(r).slice(0, 600)}`);
    }
    return;
  }
  const s = agent.step;
  if (s?.kind === 'goal') {
    if (agent.n % 2 === 0) {
      await call(agent, 'lesson_item', { session, goal: s.goal });
      return;
    }
    const r = await call(agent, 'mark_goal', {
      session,
      goal: s.goal,
      status: 'done',
      evidence: `Ученик объяснил «${s.title}» на своём случае, шаг ${agent.n}`,
    });
    agent.step = r.next_step as Step;
    return;
  }
  if (s?.kind === 'quiz') {
    const q = await call(agent, 'request_quiz', { session });
    agent.attempt = q.attempt as string;
    agent.question = q.question as Agent['question'];
    // Every third student answers one question wrong where the quiz still passes with it.
    const spare = key.get(agent.question?.id ?? '')?.spare ?? 0;
    agent.wrongLeft = agent.n % 3 === 0 ? Math.min(1, spare) : 0;
    return;
  }
  const closed = await call(agent, 'complete_lesson', { session });
  if (closed.status !== 'closed') throw new LoopError(`complete_lesson did not close: ${JSON.stringify(closed)}`);
  finish(agent);
}

function finish(agent: Agent) {
  lessonsCompleted++;
  agent.session = null;
  agent.step = null;
  agent.attempt = null;
  agent.question = null;
}

/** Runs the lesson mix for `ms` with `inFlight` workers, each taking a free student per step. */
async function mixPhase(agents: Agent[], inFlight: number, ms: number, key: QuizKey, courses: string[]) {
  const until = performance.now() + ms;
  let cursor = 0;
  const take = () => {
    for (let i = 0; i < agents.length; i++) {
      const a = agents[(cursor + i) % agents.length];
      if (!a.busy && !a.done) {
        cursor = (cursor + i + 1) % agents.length;
        return a;
      }
    }
    return null;
  };
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < until) {
        const agent = take();
        if (!agent) return;
        agent.busy = true;
        try {
          await step(agent, key, courses);
        } finally {
          agent.busy = false;
        }
      }
    }),
  );
}

/** Runs one call shape for `ms` with `inFlight` workers; latencies in ms. */
async function timedPhase(fn: (w: number) => Promise<unknown>, inFlight: number, ms: number): Promise<number[]> {
  const out: number[] = [];
  const until = performance.now() + ms;
  await Promise.all(
    Array.from({ length: inFlight }, async (_, w) => {
      while (performance.now() < until) {
        const t = performance.now();
        const r = (await fn(w)) as Reply;
        if (r?.isError) throw new LoopError(`call failed: ${JSON.stringify(r).slice(0, 300)}`);
        out.push(performance.now() - t);
      }
    }),
  );
  return out;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

await ensureServices();
const { prefix, databaseUrl, env, trust } = await benchPlace('loop');
const nc = await natsConnect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
const children: ChildProcess[] = [];
const clients: Client[] = [];
try {
  const database = openDatabase<EnrollmentDb>(databaseUrl, 'enrollment', 2);
  await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, MIGRATIONS]);
  const admin = new EnrollmentAdmin(database.db);
  const together = Number(process.env.BENCH_TOGETHER ?? 0);
  if (!Number.isInteger(together) || together < 0 || together > 4) throw new Error('BENCH_TOGETHER: 0 to 4 processes');
  const { bases, pids } = await startServices(SERVICES, env, children, together);
  const bus = createBus(nc, { prefix, timeoutMs: 10_000, log: createLogger('bench', 'silent'), trust });

  const releases: Release[] = [];
  const courses: string[] = [];
  for (const dir of ['negotiation-basics', 'negotiation-advanced']) {
    const { course, release } = await openDemoCourse(bus, dir);
    courses.push(course);
    releases.push(release);
  }
  const key = quizKeys(releases);

  const agents: Agent[] = [];
  for (let i = 0; i < STUDENTS; i++) {
    const user = `loop${i}@bench`;
    await admin.upsertUser(user, `Ученик ${i}`, ['Student']);
    const { token } = await admin.issueToken(user);
    // With several processes (BENCH_TOGETHER=n), student i talks to edge i mod n.
    const client = await connect(`${bases[i % bases.length]}/mcp`, token);
    clients.push(client);
    for (const course of courses) {
      // The catalog card arrives by event: retry until enrollment knows the course.
      for (let tries = 0; ; tries++) {
        const r = (await client.callTool({ name: 'enroll', arguments: { course } })) as Reply;
        if (!r.isError || r.structuredContent?.error?.code === 'already_enrolled') break;
        if (tries > 100) throw new Error(`enroll: ${JSON.stringify(r)}`);
        await new Promise((ok) => setTimeout(ok, 100));
      }
    }
    agents.push({
      client,
      n: i,
      session: null,
      course: null,
      step: null,
      attempt: null,
      question: null,
      wrongLeft: 0,
      done: false,
      busy: false,
    });
  }
  await database.close();
  await new Promise((r) => setTimeout(r, 1000));
  const bare = await spawnTs('bench/bare-server.ts', {}, /READY (\d+)/);
  children.push(bare.child);
  const bareClients = await Promise.all(Array.from({ length: 8 }, () => connect(`http://127.0.0.1:${bare.match[1]}/`)));
  clients.push(...bareClients);

  const watcher = new pg.Client({ connectionString: databaseUrl });
  await watcher.connect();
  watcher.on('error', () => {}); // the teardown's drop ends it
  // PostgreSQL's counters lag up to a second behind (a backend reports at most once a second).
  const dbCounters = async (): Promise<DbCounters> => {
    const { rows } = await watcher.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    const c = await watcher.query<Record<string, number>>(
      `select xact_commit + xact_rollback as transactions, tup_inserted + tup_updated + tup_deleted as rows_written
         from pg_stat_database where datname = current_database()`,
    );
    return { pids: rows.map((r) => r.pid), counters: c.rows[0] ?? {} };
  };

  // Where each tool's work goes: one agent, one call at a time, each followed by a pause for the
  // events it caused to be handled; per call, the I/O system calls of every process (a query, a
  // NATS message: each costs a few) and the database's write transactions (xids taken).
  const ioOf = async () => {
    const out = new Map<string, number>();
    for (const [name, pid] of Object.entries(pids)) if (name !== 'nats') out.set(name, syscalls(pid));
    const { rows } = await watcher.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    out.set(
      'postgres',
      rows.reduce((n, r) => n + syscalls(r.pid), 0),
    );
    const x = await watcher.query<{ xmax: string }>('select txid_snapshot_xmax(txid_current_snapshot()) as xmax');
    out.set('write xacts', Number(x.rows[0].xmax));
    return out;
  };
  // Each process's count per call; a backend counts only while it lives across the call. Medians,
  // because the services' own timers (relays, sweepers) now and then fall into a call's window.
  const attributed = new Map<string, Map<string, number[]>>();
  around = async (tool, run) => {
    const before = await ioOf();
    const res = await run();
    await new Promise((ok) => setTimeout(ok, 250));
    const after = await ioOf();
    const per = new Map<string, number>();
    for (const [k, v] of after) {
      if (!before.has(k)) continue;
      const name = k.startsWith('postgres:') ? 'postgres' : k;
      per.set(name, (per.get(name) ?? 0) + v - (before.get(k) ?? 0));
    }
    const a = attributed.get(tool) ?? new Map<string, number[]>();
    for (const [k, v] of per) a.set(k, [...(a.get(k) ?? []), v]);
    attributed.set(tool, a);
    return res;
  };
  const tracer = agents[agents.length - 1];
  for (let i = 0; i < Number(process.env.BENCH_ATTRIBUTE_STEPS ?? 80) && !tracer.done; i++)
    await step(tracer, key, courses);
  around = null;
  const cols = [...Object.keys(pids).filter((k) => k !== 'nats'), 'postgres'];
  console.log(
    `\n### Per call, one at a time, the events it caused included: median I/O system calls per process (a query or a NATS message costs about two)\n\n| tool | calls | ${cols.join(' | ')} | all |\n|---|---:|${cols.map(() => '---:').join('|')}|---:|`,
  );
  const med = (xs: number[] | undefined) => (xs?.length ? pct(xs, 50) : 0);
  const rowsOf = [...attributed].map(([tool, a]) => ({ tool, a, all: cols.reduce((n, k) => n + med(a.get(k)), 0) }));
  for (const { tool, a, all } of rowsOf.sort((x, y) => y.all - x.all)) {
    const cells = cols.map((k) => med(a.get(k)).toFixed(0));
    console.log(`| ${tool} | ${a.get('edge')?.length ?? 0} | ${cells.join(' | ')} | ${all.toFixed(0)} |`);
  }

  // BENCH_ATTRIBUTE_ONLY=1: the attribution above is the whole run (it does not move with the load).
  const timed = !process.env.BENCH_ATTRIBUTE_ONLY;
  // Warm-up: every student's first lesson started, a few rounds of each phase.
  if (timed) await mixPhase(agents, 16, 3000, key, courses);
  stats.clear();
  lessonsCompleted = 0;

  // BENCH_PG_LOG=1: the database's round trips of the mix phases, by whom they serve (pg-census.ts).
  const logFile = process.env.BENCH_PG_LOG ? await serverLogFile(watcher) : null;
  if (process.env.BENCH_PG_LOG && !logFile)
    console.log('\n(no readable server log: set BENCH_PG_LOG_FILE for the round-trip census)');
  const dbName = new URL(databaseUrl).pathname.slice(1);

  const results: string[] = [];
  for (const inFlight of timed ? IN_FLIGHT : []) {
    const whoami: number[] = [];
    const noop: number[] = [];
    let mixSeconds = 0;
    let mixCalls = 0;
    let lessonsBefore = lessonsCompleted;
    let whoSeconds = 0;
    let bareSeconds = 0;
    const meter = new CpuMeter(pids, dbCounters);
    const census: Census = { statements: new Map(), control: new Map() };
    for (const s of stats.values()) s.length = 0;
    lessonsBefore = lessonsCompleted;
    for (let r = 0; r < ROUNDS; r++) {
      const callsBefore = [...stats.values()].reduce((n, l) => n + l.length, 0);
      const before = await meter.snapshot();
      const logFrom = logFile ? logMark(logFile) : 0;
      let t = performance.now();
      await mixPhase(agents, inFlight, PHASE_MS, key, courses);
      mixSeconds += (performance.now() - t) / 1000;
      await new Promise((ok) => setTimeout(ok, 1100));
      meter.add(before, await meter.snapshot());
      if (logFile) censusBetween(logFile, dbName, logFrom, logMark(logFile), census);
      mixCalls += [...stats.values()].reduce((n, l) => n + l.length, 0) - callsBefore;
      t = performance.now();
      whoami.push(
        ...(await timedPhase(
          (w) => agents[w % agents.length].client.callTool({ name: 'whoami', arguments: {} }),
          inFlight,
          PHASE_MS / 2,
        )),
      );
      whoSeconds += (performance.now() - t) / 1000;
      t = performance.now();
      noop.push(
        ...(await timedPhase(
          (w) => bareClients[w % bareClients.length].callTool({ name: 'noop', arguments: {} }),
          inFlight,
          PHASE_MS / 2,
        )),
      );
      bareSeconds += (performance.now() - t) / 1000;
      if (agents.every((a) => a.done)) throw new Error('every student finished both courses: raise BENCH_STUDENTS');
    }
    const who50 = pct(whoami, 50);
    const mixRate = mixCalls / mixSeconds;
    const bareRate = noop.length / bareSeconds;
    const lines = [
      `\n### ${inFlight} in flight (${STUDENTS} students, ${ROUNDS} rounds of ${PHASE_MS / 1000} s mix + whoami + no-op)`,
      '\n| tool | calls | p50 ms | p99 ms | calls/s | p50 / whoami p50 |\n|---|---:|---:|---:|---:|---:|',
    ];
    for (const [tool, l] of [...stats].sort((a, b) => pct(b[1], 50) - pct(a[1], 50))) {
      if (!l.length) continue;
      lines.push(
        `| ${tool} | ${l.length} | ${pct(l, 50).toFixed(1)} | ${pct(l, 99).toFixed(1)} | ${(l.length / mixSeconds).toFixed(0)} | ${(pct(l, 50) / who50).toFixed(2)} |`,
      );
    }
    lines.push(
      `| whoami alone | ${whoami.length} | ${who50.toFixed(1)} | ${pct(whoami, 99).toFixed(1)} | ${(whoami.length / whoSeconds).toFixed(0)} | 1.00 |`,
    );
    lines.push(
      `| bare SDK no-op | ${noop.length} | ${pct(noop, 50).toFixed(1)} | ${pct(noop, 99).toFixed(1)} | ${bareRate.toFixed(0)} | ${(pct(noop, 50) / who50).toFixed(2)} |`,
    );
    lines.push(
      `\nmix: ${mixRate.toFixed(0)} calls/s = ${(mixRate / bareRate).toFixed(2)} of the bare no-op's (target ≥ 0.5 at 64); whoami alone ${(whoami.length / whoSeconds / bareRate).toFixed(2)}; lessons completed ${((lessonsCompleted - lessonsBefore) / mixSeconds).toFixed(1)}/s`,
    );
    const names = [...meter.spent.keys()];
    lines.push(
      `\nper mix call: ${names.map((k) => `${k} ${((meter.spent.get(k) ?? 0) / mixCalls).toFixed(2)}`).join(', ')} (CPU ms; pg counters per call)`,
    );
    lines.push(...censusRows(census, mixCalls));
    console.log(lines.join('\n'));
    results.push(...lines);
  }
  await watcher.end();
} finally {
  for (const c of clients) await c.close().catch(() => {});
  await teardownBench({ children, nc, prefix, databaseUrl });
}
