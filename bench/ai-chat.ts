// `npm run bench` (second part): the teacher's AI chat under 200 concurrent streams. A scripted
// provider (its own process) emits 50 tokens a second; the time to the first token is measured
// through the platform (client → edge → NATS → ai-chat → provider and back as SSE) and by a direct
// call to the same provider with the same client library ai-chat uses; the difference is what the
// platform adds. The edge's and ai-chat's memory (RSS) is sampled during the run.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dropDatabase, migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import OpenAI from 'openai';
import { ensureServices } from '../scripts/ensure-services.ts';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { benchPlace, spawnTs } from './harness.ts';

const STREAMS = Number(process.env.BENCH_CHAT_STREAMS ?? 200);
const ROUNDS = Number(process.env.BENCH_CHAT_ROUNDS ?? 2);
const TOKENS = Number(process.env.BENCH_CHAT_TOKENS ?? 100);

await ensureServices();
const { databaseUrl, env: placeEnv } = await benchPlace('chat');
const children: ChildProcess[] = [];
let stopping = false;
let sampler: NodeJS.Timeout | undefined;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99), n: s.length };
};
/** CPU seconds a process has used (user + system). */
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const rssMb = (pid: number) => {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
};

/** One answer through the platform: ms to the first content event, and whether it ended with done. */
async function viaPlatform(base: string, token: string, firstOnly = false): Promise<{ ttft: number; ok: boolean }> {
  const t0 = performance.now();
  const abort = new AbortController();
  const res = await fetch(`${base}/v1/ai-chat/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'Как объяснить дроби пятиклассникам?', thread_id: null }),
    signal: abort.signal,
  });
  if (!res.ok) {
    await res.text();
    return { ttft: -1, ok: false };
  }
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let ttft = -1;
  let buffer = '';
  let ok = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    const events = buffer.split('\n\n');
    buffer = events.pop() ?? '';
    for (const raw of events) {
      if (!raw.startsWith('data: ')) continue;
      const e = JSON.parse(raw.slice(6));
      if (e.type === 'content' && ttft < 0) {
        ttft = performance.now() - t0;
        if (firstOnly) {
          abort.abort(); // the client goes away: the answer is cancelled, as a closed tab would
          return { ttft, ok: true };
        }
      }
      if (e.type === 'done') ok = true;
    }
  }
  return { ttft, ok };
}

/** One answer straight from the provider, with the client ai-chat uses. */
async function direct(client: OpenAI, firstOnly = false): Promise<{ ttft: number; ok: boolean }> {
  const t0 = performance.now();
  const stream = await client.chat.completions.create({
    model: 'scripted',
    stream: true,
    messages: [{ role: 'user', content: 'Как объяснить дроби пятиклассникам?' }],
  });
  let ttft = -1;
  for await (const chunk of stream) {
    if (chunk.choices[0]?.delta?.content && ttft < 0) {
      ttft = performance.now() - t0;
      if (firstOnly) break;
    }
  }
  return { ttft, ok: ttft >= 0 };
}

try {
  const llm = await spawnTs('bench/llm-server.ts', { TOKENS: String(TOKENS), TOKENS_PER_SECOND: '50' }, /READY (\d+)/);
  children.push(llm.child);
  const llmUrl = `http://127.0.0.1:${llm.match[1]}/v1`;

  const database = openDatabase<EnrollmentDb>(databaseUrl, 'enrollment', 2);
  await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, MIGRATIONS]);
  const admin = new EnrollmentAdmin(database.db);
  const tokens: string[] = [];
  for (let i = 0; i < STREAMS; i++) {
    const user = `teacher${i}@bench.studium`;
    await admin.upsertUser(user, `Учитель ${i}`, ['Teacher']);
    tokens.push((await admin.issueToken(user)).token);
  }
  await database.close();

  const env = {
    ...placeEnv, // LOG_LEVEL info for the ready lines; raised to warnings below
    // Steady state: a teacher's token is resolved at their first message, then cached (30 s by
    // default); the bench's 200 tokens stay cached across its rounds.
    AUTH_CACHE_TTL_MS: '600000',
    AI_BASE_URL: llmUrl,
    AI_MODEL: 'scripted',
  };
  const enrollment = await spawnTs('services/enrollment/src/main.ts', env, /service started/);
  children.push(enrollment.child);
  const profile = process.env.BENCH_CHAT_PROFILE_DIR; // a CPU profile of ai-chat, for `node --cpu-prof`'s viewers
  const chat = await spawnTs(
    'services/ai-chat/src/main.ts',
    env,
    /service started/,
    profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [],
  );
  children.push(chat.child);
  const edge = await spawnTs('services/edge/src/main.ts', env, /Server listening at http:\/\/127\.0\.0\.1:(\d+)/);
  children.push(edge.child);
  for (const [name, c] of [
    ['ai-chat', chat.child],
    ['edge', edge.child],
  ] as const) {
    // Past the ready line the services log only warnings and errors: show them, and stop if one dies.
    c.stdout?.on('data', (d: Buffer) => process.stderr.write(`[${name}] ${d}`));
    c.stderr?.on('data', (d: Buffer) => process.stderr.write(`[${name}] ${d}`));
    c.once('exit', (code, signal) => {
      if (!stopping) {
        console.error(`${name} exited (${code ?? signal}) during the benchmark`);
        process.exit(1);
      }
    });
  }
  const base = `http://127.0.0.1:${edge.match[1]}`;
  const client = new OpenAI({ baseURL: llmUrl, apiKey: 'none', maxRetries: 0 });

  // Warm-up, 20 at a time: tokens resolved and cached, JIT warm, pools filled.
  for (let i = 0; i < tokens.length; i += 20)
    await Promise.all(tokens.slice(i, i + 20).map((t) => viaPlatform(base, t)));
  await Promise.all(tokens.slice(0, 50).map(() => direct(client)));

  // One answer at a time: the platform's own share without a crowd.
  const alone = { platform: [] as number[], direct: [] as number[] };
  for (let i = 0; i < 40; i++) {
    alone.direct.push((await direct(client, true)).ttft);
    alone.platform.push((await viaPlatform(base, tokens[i % tokens.length], true)).ttft);
  }

  const idle = { edge: rssMb(edge.child.pid!), chat: rssMb(chat.child.pid!) };
  const peak = { ...idle };
  sampler = setInterval(() => {
    peak.edge = Math.max(peak.edge, rssMb(edge.child.pid!));
    peak.chat = Math.max(peak.chat, rssMb(chat.child.pid!));
  }, 100);
  const cpuBefore = { edge: cpuSeconds(edge.child.pid!), chat: cpuSeconds(chat.child.pid!) };
  let platformSeconds = 0;
  const platform: number[] = [];
  const straight: number[] = [];
  let failed = 0;
  const started = performance.now();
  for (let r = 0; r < ROUNDS; r++) {
    for (const res of await Promise.all(tokens.map(() => direct(client)))) {
      if (res.ok) straight.push(res.ttft);
      else failed++;
    }
    const t = performance.now();
    for (const res of await Promise.all(tokens.map((t) => viaPlatform(base, t)))) {
      if (res.ok) platform.push(res.ttft);
      else failed++;
    }
    platformSeconds += (performance.now() - t) / 1000;
  }
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;

  const p = stats(platform);
  const d = stats(straight);
  console.log(
    `\nAI chat: ${STREAMS} concurrent streams, ${TOKENS} tokens each at 50 tokens/s, ${ROUNDS} rounds (${seconds.toFixed(0)} s; load average ${loadavg()[0].toFixed(1)} on this machine)\n`,
  );
  console.log('| time to first token | p50 ms | p99 ms | answers |\n|---|---:|---:|---:|');
  console.log(`| direct call to the provider | ${d.p50.toFixed(1)} | ${d.p99.toFixed(1)} | ${d.n} |`);
  console.log(`| through the platform (edge, NATS, ai-chat) | ${p.p50.toFixed(1)} | ${p.p99.toFixed(1)} | ${p.n} |`);
  console.log(
    `| what the platform adds | ${(p.p50 - d.p50).toFixed(1)} | ${(p.p99 - d.p99).toFixed(1)} | failed: ${failed} |`,
  );
  const a = stats(alone.platform);
  const b = stats(alone.direct);
  console.log(`| one stream at a time: direct | ${b.p50.toFixed(1)} | ${b.p99.toFixed(1)} | ${b.n} |`);
  console.log(`| one stream at a time: through the platform | ${a.p50.toFixed(1)} | ${a.p99.toFixed(1)} | ${a.n} |`);
  // CPU per answer: what each process spent over all rounds (the direct phases cost them nothing).
  const answers = ROUNDS * STREAMS;
  const cpu = {
    edge: ((cpuSeconds(edge.child.pid!) - cpuBefore.edge) / answers) * 1000,
    chat: ((cpuSeconds(chat.child.pid!) - cpuBefore.chat) / answers) * 1000,
  };
  console.log(`\n| process | RSS idle MB | RSS peak MB | CPU ms per answer (${TOKENS} tokens) |\n|---|---:|---:|---:|`);
  console.log(`| edge | ${idle.edge.toFixed(0)} | ${peak.edge.toFixed(0)} | ${cpu.edge.toFixed(1)} |`);
  console.log(`| ai-chat | ${idle.chat.toFixed(0)} | ${peak.chat.toFixed(0)} | ${cpu.chat.toFixed(1)} |`);
  console.log(`(the platform rounds took ${platformSeconds.toFixed(1)} s for ${answers} answers)`);
  if (failed) process.exitCode = 1;
} finally {
  clearInterval(sampler);
  stopping = true;
  for (const c of children) c.kill('SIGTERM');
  await Promise.race([
    Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r))))),
    new Promise((r) => setTimeout(r, 5000)),
  ]);
  await dropDatabase(databaseUrl).catch(() => {});
}
