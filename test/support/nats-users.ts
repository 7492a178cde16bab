import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createTestEnv, type NatsUser, type ScriptedLlm, startScriptedLlm } from '@studium/testing';
import { spawnTs } from '../../bench/harness.ts';
import { type SmtpSink, startSmtpSink } from './mailer.ts';

/** Every deployable on the bus but the edge, each started as its own process. */
const SERVICES = [
  'enrollment',
  'courses',
  'lessons',
  'homework',
  'knowledge',
  'reporting',
  'ai-chat',
  'mailer',
] as const;

/**
 * The platform as deployed on the bus: the test file's nats-server with the generated users and
 * permissions (scripts/nats-auth.ts), every deployable as its own process with its own NATS user,
 * ai-chat pointed at a scripted model and the mailer at an SMTP sink, both started here; a fresh
 * database and subject prefix.
 */
export async function startNatsUsersStack(tag: string) {
  const env = await createTestEnv(tag);
  const { prefix, databaseUrl, nats } = env;
  const children: ChildProcess[] = [];
  const llm: ScriptedLlm = await startScriptedLlm();
  const smtp: SmtpSink = await startSmtpSink();
  const common = {
    DATABASE_URL: databaseUrl,
    SUBJECT_PREFIX: prefix,
    REDIS_URL: env.redisUrl,
    LOG_LEVEL: 'info',
    FILE_URL_SECRET: randomBytes(32).toString('hex'),
    // Nine processes on a shared PostgreSQL: a few connections each is plenty for a few students.
    DB_POOL_MAX: '3',
  };
  const own: Partial<Record<NatsUser, Record<string, string>>> = {
    // knowledge warms WARM_CONNECTIONS clients at once at start: never more than its pool holds.
    knowledge: { WARM_CONNECTIONS: '1' },
    // The tutor's model: the scripted OpenAI-compatible server of this test.
    'ai-chat': { AI_BASE_URL: llm.url, AI_MODEL: 'scripted-tutor', AI_MAX_RETRIES: '0' },
    // Release e-mail to the sink; enrollment hands deliveries over quickly.
    mailer: { SMTP_URL: smtp.url },
    enrollment: { MAIL_BACKOFF_MS: '100', MAIL_RELAY_INTERVAL_MS: '200' },
  };
  const started = /"msg":"service started"/;
  let edgeUrl = '';
  const close = async () => {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)));
    await llm.close();
    await smtp.close();
    await env.cleanup();
  };
  try {
    for (const name of SERVICES) {
      const childEnv = { ...common, ...env.natsEnv(name), ...own[name] };
      children.push((await spawnTs(`services/${name}/src/main.ts`, childEnv, started)).child);
    }
    // PORT 0: the edge takes a free port and fastify's line names it.
    const edgeEnv = { ...common, ...env.natsEnv('edge'), PORT: '0' };
    const edge = await spawnTs('services/edge/src/main.ts', edgeEnv, /Server listening at http:\/\/127\.0\.0\.1:(\d+)/);
    children.push(edge.child);
    edgeUrl = `http://127.0.0.1:${edge.match[1]}`;
  } catch (err) {
    await close();
    throw err;
  }

  return {
    env,
    prefix,
    databaseUrl,
    nats,
    llm,
    smtp,
    edgeUrl,
    /** A connection as one of the generated users. */
    connectAs: (user: NatsUser) => env.connectAs(user),
    /** How far the server's log goes now, to read only what comes after it. */
    async logMark(): Promise<number> {
      return (await readFile(nats.logFile)).length;
    },
    /** The permission violations in the server's log since `from` (a {@link logMark}). */
    violations: (from = 0) => env.violations(from),
    close,
  };
}
