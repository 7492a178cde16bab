import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropDatabase, ensureDatabase, natsOptions } from '@studium/platform';
import { type ScriptedLlm, startScriptedLlm } from '@studium/testing';
import { connect } from 'nats';
import { spawnTs } from '../../bench/harness.ts';
import type { NatsUser } from '../../scripts/nats-auth.ts';
import { freePort, startOwnNats } from '../../scripts/nats-server.ts';

const SERVICES = ['enrollment', 'courses', 'lessons', 'homework', 'knowledge', 'ai-chat'] as const;

/**
 * The platform as deployed on the bus: nats-server with the generated users and permissions
 * (scripts/nats-auth.ts), every service and the edge as its own process with its own NATS user,
 * ai-chat pointed at a scripted model started here; a fresh database and subject prefix.
 */
export async function startNatsUsersStack(tag: string) {
  const id = randomBytes(4).toString('hex');
  const prefix = `${tag}${id}`;
  const databaseUrl = `postgres://postgres@127.0.0.1:5432/studium_t_${tag}_${id}`;
  const dir = await mkdtemp(join(tmpdir(), 'studium-nats-'));
  const children: ChildProcess[] = [];
  const nats = await startOwnNats(dir, prefix);
  await ensureDatabase(databaseUrl);
  const llm: ScriptedLlm = await startScriptedLlm();
  const common = {
    DATABASE_URL: databaseUrl,
    SUBJECT_PREFIX: prefix,
    LOG_LEVEL: 'info',
    HEALTH_PORT: '0',
    FILE_URL_SECRET: randomBytes(32).toString('hex'),
    // Seven processes on a shared PostgreSQL: a few connections each is plenty for a few students.
    DB_POOL_MAX: '3',
  };
  const own: Partial<Record<NatsUser, Record<string, string>>> = {
    // knowledge warms WARM_CONNECTIONS clients at once at start: never more than its pool holds.
    knowledge: { WARM_CONNECTIONS: '1' },
    // The tutor's model: the scripted OpenAI-compatible server of this test.
    'ai-chat': { AI_BASE_URL: llm.url, AI_MODEL: 'scripted-tutor', AI_MAX_RETRIES: '0' },
  };
  const started = /"msg":"service started"/;
  const port = await freePort();
  const close = async () => {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)));
    await nats.stop();
    await llm.close();
    await dropDatabase(databaseUrl).catch(() => {});
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const name of SERVICES) {
      const env = { ...common, ...nats.envFor(name), ...own[name] };
      children.push((await spawnTs(`services/${name}/src/main.ts`, env, started)).child);
    }
    const edgeEnv = { ...common, ...nats.envFor('edge'), PORT: String(port) };
    children.push((await spawnTs('services/edge/src/main.ts', edgeEnv, /edge listening/)).child);
  } catch (err) {
    await close();
    throw err;
  }

  return {
    prefix,
    databaseUrl,
    nats,
    llm,
    edgeUrl: `http://127.0.0.1:${port}`,
    /** A connection as one of the generated users. */
    connectAs(user: NatsUser) {
      const env = nats.envFor(user);
      return connect(natsOptions({ NATS_URL: env.NATS_URL, NATS_USER: user, NATS_PASSWORD: env.NATS_PASSWORD }, user));
    },
    /** How far the server's log goes now, to read only what comes after it. */
    async logMark(): Promise<number> {
      return (await readFile(nats.logFile)).length;
    },
    /** The permission violations in the server's log since `from` (a {@link logMark}). */
    async violations(from = 0): Promise<string[]> {
      const log = (await readFile(nats.logFile)).subarray(from).toString('utf8');
      return log.split('\n').filter((l) => l.includes('Violation'));
    },
    close,
  };
}
