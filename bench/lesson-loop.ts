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
// PostgreSQL transactions and rows written per call; and, per level and again in a closing
// summary, the machine's CPU per mix call and per no-op call, the database's round trips and
// NATS's messages per mix call, and the event-to-report lag. The run has its own nats-server
// (unless NATS_URL names one), so NATS's counters and CPU are the run's alone. A refusal or a
// failure ends the bench.
// BENCH_TOGETHER=n runs the services and the edge in each of n processes whose requests between
// services skip NATS (BUS_LOCAL; bench/together.ts): what the hops between processes cost.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Release } from '@studium/contracts';
import { createBus, createLogger, migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import { connect as natsConnect } from 'nats';
import pg from 'pg';
import { ensureServices } from '../scripts/ensure-services.ts';
import { type OwnNats, startOwnNats } from '../scripts/nats-server.ts';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { CpuMeter, type DbCounters, machineMs, syscalls } from './cpu.ts';
import { benchPlace, connect, openDemoCourse, spawnTs, startServices, teardownBench } from './harness.ts';
import { type Census, censusBetween, censusRows, logMark, serverLogFile } from './pg-census.ts';
import {
  combine,
  counterOf,
  emptyHistogram,
  type Histogram,
  histogramOf,
  natsMessages,
  quantile,
  scrape,
} from './prom.ts';

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
// The run's own nats-server, open (no users) with its monitoring endpoint: its /varz counters and
// its CPU are this run's alone, not those of whatever else the machine's server carries. NATS_URL
// runs the bench on that server instead (BENCH_NATS_MONITOR: its monitoring URL, for the counts).
const natsDir = process.env.NATS_URL ? null : await mkdtemp(join(tmpdir(), 'studium-bench-nats-'));
let ownNats: OwnNats | null = null;
try {
  if (natsDir) ownNats = await startOwnNats(natsDir, 'bench', undefined, { users: false, monitor: true });
  await run(ownNats);
} finally {
  await ownNats?.stop();
  if (natsDir) await rm(natsDir, { recursive: true, force: true });
}

async function run(ownNats: OwnNats | null) {
  const natsUrl = ownNats?.url ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const monitorUrl = ownNats?.monitorUrl ?? process.env.BENCH_NATS_MONITOR ?? null;
  const { prefix, databaseUrl, env, trust } = await benchPlace('loop');
  env.NATS_URL = natsUrl;
  const nc = await natsConnect({ servers: natsUrl });
  const children: ChildProcess[] = [];
  const clients: Client[] = [];
  try {
    const database = openDatabase<EnrollmentDb>(databaseUrl, 'enrollment', 2);
    await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, MIGRATIONS]);
    const admin = new EnrollmentAdmin(database.db);
    const together = Number(process.env.BENCH_TOGETHER ?? 0);
    if (!Number.isInteger(together) || together < 0 || together > 4)
      throw new Error('BENCH_TOGETHER: 0 to 4 processes');
    const { bases, pids, health } = await startServices(SERVICES, env, children, together);
    if (ownNats) pids.nats = ownNats.pid;
    // Statements sent to PostgreSQL (studium_db_queries_total): a process-wide count, so one scrape
    // per process, the edges' /metrics included (with BENCH_TOGETHER one process holds them all).
    const queryScrapes = [
      ...(together ? [] : health.filter((h) => h.service !== 'edge').map((h) => h.url)),
      ...bases.map((b) => `${b}/metrics`),
    ];
    const roundTrips = async () =>
      (await Promise.all(queryScrapes.map(scrape))).reduce((n, t) => n + counterOf(t, 'studium_db_queries_total'), 0);
    // Reporting's event-to-report lag (reporting_event_lag_seconds): from an event's occurred_at,
    // stamped in the transaction that wrote it, to the commit of its batch in reporting's tables,
    // which is when org_report can show it. The service's own histogram: no extra load, and every
    // event of the mix is in it, not a sample; its quantiles are interpolated inside reporting's
    // buckets (… 0.05, 0.075, 0.1, 0.25, 0.5 … s), so they are as fine as those.
    const reportingScrapes = health.filter((h) => h.service === 'reporting').map((h) => h.url);
    const lag = async (): Promise<Histogram> => {
      let sum = emptyHistogram();
      for (const url of reportingScrapes)
        sum = combine(sum, histogramOf(await scrape(url), 'reporting_event_lag_seconds'));
      return sum;
    };
    const natsCount = async () => (monitorUrl ? natsMessages(monitorUrl) : { in: 0, out: 0 });
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
    const bareClients = await Promise.all(
      Array.from({ length: 8 }, () => connect(`http://127.0.0.1:${bare.match[1]}/`)),
    );
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

    /** One row of the closing summary per in-flight level. */
    const summary: string[] = [];
    const perCall = (n: number, calls: number, digits = 2) => (calls ? (n / calls).toFixed(digits) : '–');
    for (const inFlight of timed ? IN_FLIGHT : []) {
      const whoami: number[] = [];
      const noop: number[] = [];
      let mixSeconds = 0;
      let mixCalls = 0;
      let lessonsBefore = lessonsCompleted;
      let whoSeconds = 0;
      let bareSeconds = 0;
      // The machine's busy CPU over the no-op phases (the mix's is the meter's `machine`).
      let bareMachineMs = 0;
      let queries = 0;
      const messages = { in: 0, out: 0 };
      let lagged = emptyHistogram();
      const meter = new CpuMeter(pids, dbCounters);
      const census: Census = { statements: new Map(), control: new Map() };
      for (const s of stats.values()) s.length = 0;
      lessonsBefore = lessonsCompleted;
      for (let r = 0; r < ROUNDS; r++) {
        const callsBefore = [...stats.values()].reduce((n, l) => n + l.length, 0);
        const lagBefore = await lag();
        const queriesBefore = await roundTrips();
        const natsBefore = await natsCount();
        const before = await meter.snapshot();
        const logFrom = logFile ? logMark(logFile) : 0;
        let t = performance.now();
        await mixPhase(agents, inFlight, PHASE_MS, key, courses);
        mixSeconds += (performance.now() - t) / 1000;
        // The events the last calls wrote are handled in the pause, and counted with the mix.
        await new Promise((ok) => setTimeout(ok, 1100));
        meter.add(before, await meter.snapshot());
        const natsAfter = await natsCount();
        messages.in += natsAfter.in - natsBefore.in;
        messages.out += natsAfter.out - natsBefore.out;
        queries += (await roundTrips()) - queriesBefore;
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
        const bareFrom = machineMs();
        noop.push(
          ...(await timedPhase(
            (w) => bareClients[w % bareClients.length].callTool({ name: 'noop', arguments: {} }),
            inFlight,
            PHASE_MS / 2,
          )),
        );
        bareMachineMs += machineMs() - bareFrom;
        bareSeconds += (performance.now() - t) / 1000;
        // Up to the next mix: whoami and the no-op write no events, so what reporting applied since
        // the mix began is the mix's events, also those it applied late.
        lagged = combine(lagged, combine(await lag(), lagBefore, -1));
        if (agents.every((a) => a.done)) throw new Error('every student finished both courses: raise BENCH_STUDENTS');
      }
      const who50 = pct(whoami, 50);
      const mixRate = mixCalls / mixSeconds;
      const bareRate = noop.length / bareSeconds;
      const lessonsRate = (lessonsCompleted - lessonsBefore) / mixSeconds;
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
        `\nmix: ${mixRate.toFixed(0)} calls/s = ${(mixRate / bareRate).toFixed(2)} of the bare no-op's (target ≥ 0.5 at 64); whoami alone ${(whoami.length / whoSeconds / bareRate).toFixed(2)}; lessons completed ${lessonsRate.toFixed(1)}/s`,
      );
      const names = [...meter.spent.keys()];
      lines.push(
        `\nper mix call: ${names.map((k) => `${k} ${((meter.spent.get(k) ?? 0) / mixCalls).toFixed(2)}`).join(', ')} (CPU ms; pg counters per call)`,
      );
      const mixMachine = (meter.spent.get('machine') ?? 0) / mixCalls;
      const bareMachine = bareMachineMs / noop.length;
      const lag50 = lagged.count ? (quantile(lagged.buckets, 0.5) * 1000).toFixed(1) : '–';
      const lag99 = lagged.count ? (quantile(lagged.buckets, 0.99) * 1000).toFixed(1) : '–';
      const nats = monitorUrl ? `${perCall(messages.in, mixCalls)} in, ${perCall(messages.out, mixCalls)} out` : '–';
      lines.push(
        `machine CPU per call: mix ${mixMachine.toFixed(2)} ms, bare no-op ${bareMachine.toFixed(2)} ms, mix / no-op ${(mixMachine / bareMachine).toFixed(1)}` +
          ' (busy CPU of the whole machine over the phases, client included; the mix with its 1.1 s pause for the events)',
      );
      lines.push(
        `database round trips per mix call: ${perCall(queries, mixCalls)} (studium_db_queries_total of every process: statements, BEGIN and COMMIT included)`,
      );
      lines.push(
        `NATS messages per mix call: ${nats} (nats-server's /varz in_msgs and out_msgs: requests, replies, events, JetStream pulls and acks)`,
      );
      lines.push(
        `event → report lag: p50 ${lag50} ms, p99 ${lag99} ms, mean ${lagged.count ? ((lagged.sum / lagged.count) * 1000).toFixed(1) : '–'} ms over ${lagged.count} events (reporting_event_lag_seconds, occurred_at to reporting's commit)`,
      );
      lines.push(...censusRows(census, mixCalls));
      console.log(lines.join('\n'));
      summary.push(
        `| ${inFlight} | ${mixRate.toFixed(0)} | ${lessonsRate.toFixed(1)} | ${mixMachine.toFixed(2)} | ${bareMachine.toFixed(2)} | ${(mixMachine / bareMachine).toFixed(1)} | ${perCall(queries, mixCalls)} | ${nats} | ${lag50} / ${lag99} |`,
      );
    }
    if (summary.length) {
      console.log(
        [
          `\n### Summary (${STUDENTS} students, ${ROUNDS} rounds of ${PHASE_MS / 1000} s per level${together ? `, BENCH_TOGETHER=${together}` : ''})`,
          '\n| in flight | mix calls/s | lessons/s | machine CPU ms per mix call | per no-op call | mix / no-op | DB round trips per mix call | NATS messages per mix call | event → report lag p50 / p99 ms |\n|---:|---:|---:|---:|---:|---:|---:|---|---:|',
          ...summary,
        ].join('\n'),
      );
    }
    await watcher.end();
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    await teardownBench({ children, nc, prefix, databaseUrl });
  }
}
