// Issue 17.1, deployment half: nats-server with a user per service and subject permissions (the
// generated config of scripts/nats-auth.ts). Services run as their own processes with their own
// NATS user, as in deployment.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { create_course } from '@studium/contracts';
import { createBus, createLogger, dropDatabase, ensureDatabase, natsOptions, openDatabase } from '@studium/platform';
import { EDGE_TRUST, eventually } from '@studium/testing';
import { connect, ErrorCode, type NatsConnection, type NatsError } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnTs } from '../bench/harness.ts';
import { freePort, type OwnNats, startOwnNats } from '../scripts/nats-server.ts';
import { HomeworkFiles } from '../services/edge/src/homework-files.ts';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { FileStore } from '../services/homework/src/file-store.ts';
import { connectAgent, data } from './support/clients.ts';
import { CURATOR, EXAMPLES, publishMap } from './support/lessons.ts';

const id = randomBytes(4).toString('hex');
const prefix = `na${id}`;
const databaseUrl = `postgres://postgres@127.0.0.1:5432/studium_t_na_${id}`;
let dir: string;
let nats: OwnNats;
let operator: NatsConnection;
const children: ChildProcess[] = [];
let edgeUrl: string;
let token: string;
let course: string;

/** A connection as one of the generated users. */
function connectAs(user: 'lessons' | 'operator' | 'homework' | 'edge') {
  const env = nats.envFor(user);
  return connect(natsOptions({ NATS_URL: env.NATS_URL, NATS_USER: user, NATS_PASSWORD: env.NATS_PASSWORD }, user));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'studium-nats-'));
  nats = await startOwnNats(dir, prefix);
  await ensureDatabase(databaseUrl);
  const common = {
    DATABASE_URL: databaseUrl,
    SUBJECT_PREFIX: prefix,
    LOG_LEVEL: 'info',
    HEALTH_PORT: '0',
    FILE_URL_SECRET: randomBytes(32).toString('hex'),
  };
  const started = /"msg":"service started"/;
  for (const name of ['enrollment', 'courses', 'lessons', 'homework', 'knowledge'] as const) {
    const { child } = await spawnTs(`services/${name}/src/main.ts`, { ...common, ...nats.envFor(name) }, started);
    children.push(child);
  }
  const port = await freePort();
  const edge = await spawnTs(
    'services/edge/src/main.ts',
    { ...common, ...nats.envFor('edge'), PORT: String(port) },
    /edge listening/,
  );
  children.push(edge.child);
  edgeUrl = `http://127.0.0.1:${port}`;

  operator = await connectAs('operator');
  const database = openDatabase<EnrollmentDb>(databaseUrl, 'enrollment', 1);
  try {
    const admin = new EnrollmentAdmin(database.db, { nc: operator, prefix });
    await admin.upsertUser('student@test', 'Анна', ['Student']);
    await admin.upsertUser(CURATOR.user, CURATOR.full_name, CURATOR.roles);
    token = (await admin.issueToken('student@test')).token;
  } finally {
    await database.close();
  }
  // The operator's CLI holds the edge's key, as `studium release publish` in deployment.
  const bus = createBus(operator, {
    prefix,
    timeoutMs: 20_000,
    log: createLogger('operator', 'silent'),
    trust: EDGE_TRUST,
  });
  course = (await publishMap(bus, resolve(EXAMPLES, 'negotiation-basics'))).course;
}, 120_000);

afterAll(async () => {
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)));
  await operator?.drain().catch(() => {});
  await nats?.stop();
  await dropDatabase(databaseUrl).catch(() => {});
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('NATS users and subject permissions', () => {
  it('keep a service to its own subjects: no tool subject of another service, no one else’s requests or replies', async () => {
    const lessons = await connectAs('lessons');
    try {
      const err = await lessons
        .request(`${prefix}.${create_course.subject}`, JSON.stringify({ args: { title: 'x', summary: 'y' } }), {
          timeout: 3000,
        })
        .then(
          () => null,
          (e: NatsError) => e,
        );
      expect(err?.code).toBe(ErrorCode.PermissionsViolation);
      // Subscribing to another service's requests (to read the edge's tokens) or to the edge's
      // replies is refused by the server too.
      for (const subject of [`${prefix}.courses.>`, '_INBOX_edge.>', '>']) {
        const sub = lessons.subscribe(subject);
        const closed = await Promise.race([
          sub.closed.then(() => 'closed'),
          new Promise((r) => setTimeout(r, 3000, 'open')),
        ]);
        expect(closed, subject).toBe('closed');
      }
    } finally {
      await lessons.close().catch(() => {});
    }
    const log = await readFile(nats.logFile, 'utf8');
    expect(log).toContain(`Publish Violation - User "lessons", Subject "${prefix}.courses.create_course"`);
  });

  it('let the edge put homework files into the object store and homework check and remove them', async () => {
    const edge = await connectAs('edge');
    const homework = await connectAs('homework');
    try {
      const staged = await new HomeworkFiles(edge, prefix, 'x'.repeat(32)).stage([
        { name: 'notes.txt', content: Buffer.from('конспект').toString('base64') },
      ]);
      const object = (staged[0] as { object: string }).object;
      const store = new FileStore(homework, prefix);
      expect(await store.info(object)).toMatchObject({ size: Buffer.byteLength('конспект') });
      expect((await store.list()).map((o) => o.name)).toContain(object);
      await store.discard([object]);
      expect(await store.info(object)).toBeNull();
    } finally {
      await edge.close();
      await homework.close();
    }
  });

  it('let the platform work end to end: whoami, enroll, course_outline and start_lesson through the edge', async () => {
    const agent = await connectAgent('v2', `${edgeUrl}/mcp`, token);
    try {
      expect(data(await agent.callTool('whoami', {}))).toMatchObject({ user: 'student@test' });
      const enrolled = await eventually(async () => data(await agent.callTool('enroll', { course })));
      expect(enrolled).toMatchObject({ course });
      // lessons asks enrollment (with the student's signed principal passed on) and courses.
      const outline = data(await agent.callTool('course_outline', { course }));
      expect(outline).toMatchObject({ course });
      // start_lesson's fan-out: lessons asks homework, knowledge and courses for its context.
      const lesson = data(await agent.callTool('start_lesson', { course, frame: false }));
      expect(lesson.session).toEqual(expect.any(String));
      // homework answered: the lesson's artifact blocks come from it.
      expect(lesson.artifact_blocks).toEqual(expect.arrayContaining([expect.objectContaining({ key: 'case' })]));
    } finally {
      await agent.close();
    }
    // Only the deliberate violations of the test above: the platform itself needed nothing else.
    const violations = (await readFile(nats.logFile, 'utf8')).split('\n').filter((l) => l.includes('Violation'));
    const deliberate = [`${prefix}.courses.create_course`, `${prefix}.courses.>`, '_INBOX_edge.>', '>'].map(
      (s) => `User "lessons", Subject "${s}"`,
    );
    const services = violations.filter((l) => !deliberate.some((d) => l.includes(d)));
    expect(services).toEqual([]);
  });
});
