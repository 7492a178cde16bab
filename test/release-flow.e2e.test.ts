import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as releaseCli } from '../scripts/release.ts';
import { releaseMailQueueName } from '../services/mailer/src/config.ts';
import { type AgentClient, connectAgent, data, text } from './support/clients.ts';
import { startCourses } from './support/courses.ts';
import { type SmtpSink, startMailer, startSmtpSink } from './support/mailer.ts';
import { startEdge, startEnrollment } from './support/stack.ts';

// As agents would do it: a curator's agent announces a course, a student's agent subscribes, the
// release is published with the pipeline CLI, publish_course opens the course and the subscriber
// gets exactly one e-mail, even when publish_course is called twice and the mailer restarts.
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let courses: Awaited<ReturnType<typeof startCourses>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let sink: SmtpSink;
let mailer: ReturnType<typeof startMailer> | null = null;
let curator: AgentClient;
let student: AgentClient;

const MAP = resolve(import.meta.dirname, '../examples/negotiation-advanced');

beforeAll(async () => {
  env = await createTestEnv('release-flow');
  enrollment = await startEnrollment(env);
  courses = await startCourses(env);
  edge = await startEdge(env);
  sink = await startSmtpSink();
  mailer = startMailer(env, { smtpUrl: sink.url });
  const a = enrollment.admin;
  await a.upsertUser('curator@test.studium', 'Вера Куратор', ['Course Creator']);
  await a.upsertUser('anna@test.studium', 'Анна Ученица', ['Student']);
  curator = await connectAgent('v2', `${edge.url}/authoring`, (await a.issueToken('curator@test.studium')).token);
  student = await connectAgent('v1', `${edge.url}/mcp`, (await a.issueToken('anna@test.studium')).token);
});

afterAll(async () => {
  await curator?.close();
  await student?.close();
  await mailer?.stop();
  const queue = new Queue(releaseMailQueueName(env.prefix), { connection: { url: env.redisUrl } });
  await queue.obliterate({ force: true }).catch(() => {});
  await queue.close();
  await sink?.close();
  await edge?.close();
  await courses?.close();
  await enrollment?.close();
  await env?.cleanup();
});

describe('announce → subscribe → release → publish → e-mail → enroll', () => {
  let course: string;

  it('the curator announces a course', async () => {
    const created = data(
      await curator.callTool('create_course', {
        title: 'Трудные рабочие переговоры',
        summary: 'Давление, ультиматумы и встречи нескольких команд.',
      }),
    );
    course = String(created.course);
    const announced = data(
      await curator.callTool('announce_course', {
        course,
        objectives: ['Держать рамку под давлением', 'Отвечать на ультиматум'],
      }),
    );
    expect(announced).toMatchObject({ published: true, upcoming: true });
  });

  it('the student sees the announcement in the catalog and subscribes', async () => {
    const catalog = await eventually(async () => {
      const c = data(await student.callTool('list_catalog', {}));
      const items = c.courses as Array<{ course: string; upcoming: boolean; notify?: boolean }>;
      const item = items.find((i) => i.course === course);
      if (!item) throw new Error('announcement not in the catalog yet');
      return item;
    });
    expect(catalog).toMatchObject({ upcoming: true, notify: false });
    const enrollTooEarly = await student.callTool('enroll', { course });
    expect((enrollTooEarly.structuredContent as { error: { code: string } }).error.code).toBe('course_upcoming');
    expect(data(await student.callTool('notify_when_released', { course }))).toMatchObject({ course, notify: true });
  });

  it('the pipeline CLI publishes the release onto the announcement', async () => {
    const out: string[] = [];
    const io = {
      out: (l: string) => out.push(l),
      err: (l: string) => out.push(l),
      env: { ...process.env, SUBJECT_PREFIX: env.prefix, ...env.natsEnv('operator') },
    };
    const code = await releaseCli(['publish', MAP, '--attach', course, '--publisher', 'curator@test.studium'], io);
    expect(code, out.join('\n')).toBe(0);
    expect(out.join('\n')).toMatch(/version\s+1/);
    // The same map again: no new version.
    out.length = 0;
    expect(await releaseCli(['publish', MAP, '--attach', course, '--publisher', 'curator@test.studium'], io)).toBe(0);
    expect(out.join('\n')).toContain('no new version');
    const releases = data(await curator.callTool('course_releases', { course }));
    expect((releases.releases as unknown[]).length).toBe(1);
  });

  it('publish_course opens it and e-mails the subscriber exactly once, across a second call and a mailer restart', async () => {
    const first = data(await curator.callTool('publish_course', { course }));
    expect(first).toMatchObject({ published: true, notified: 1 });
    await mailer?.stop();
    mailer = null;
    const second = data(await curator.callTool('publish_course', { course }));
    expect(second.notified).toBe(0);
    mailer = startMailer(env, { smtpUrl: sink.url });
    const mail = await eventually(async () => {
      const m = sink.messages.find((x) => x.to.includes('anna@test.studium'));
      if (!m) throw new Error('no e-mail yet');
      return m;
    }, 15_000);
    expect(mail.subject).toContain('Трудные рабочие переговоры');
    // Give a duplicate every chance to arrive before counting.
    await new Promise((r) => setTimeout(r, 1500));
    expect(sink.messages.filter((x) => x.to.includes('anna@test.studium'))).toHaveLength(1);
  });

  it('the student enrolls and sees the course in list_my_courses', async () => {
    const enrolled = await eventually(async () => {
      const r = await student.callTool('enroll', { course });
      if (r.isError) throw new Error(text(r));
      return data(r);
    });
    expect(enrolled).toMatchObject({ course });
    expect(enrolled.first_lesson).toBeTruthy();
    const mine = data(await student.callTool('list_my_courses', {}));
    const listed = (mine.courses as Array<{ course: string }>).map((c) => c.course);
    expect(listed).toContain(course);
    const again = await student.callTool('enroll', { course });
    expect((again.structuredContent as { error: { code: string } }).error.code).toBe('already_enrolled');
  });

  it('an edited map in git gives a new version with a new digest; course_releases shows both with commits', async () => {
    const repo = await mkdtemp(join(tmpdir(), 'course-design-'));
    try {
      await cp(MAP, join(repo, 'map'), { recursive: true });
      const git = (...args: string[]) =>
        execFileSync('git', ['-C', repo, '-c', 'user.email=t@t', '-c', 'user.name=t', ...args], {
          encoding: 'utf8',
        }).trim();
      git('init', '-q');
      git('add', '.');
      git('commit', '-qm', 'v1');
      const io = {
        out: () => {},
        err: () => {},
        env: { ...process.env, SUBJECT_PREFIX: env.prefix, ...env.natsEnv('operator') },
      };
      const publish = () =>
        releaseCli(['publish', join(repo, 'map'), '--attach', course, '--publisher', 'curator@test.studium'], io);
      // Same content as version 1, now from a commit: still no new version.
      expect(await publish()).toBe(0);
      const card = join(repo, 'map', 'course.yaml');
      await writeFile(
        card,
        (await readFile(card, 'utf8')).replace('title: Трудные рабочие переговоры', 'title: Трудные переговоры'),
      );
      git('commit', '-qam', 'v2');
      const commit = git('rev-parse', 'HEAD');
      expect(await publish()).toBe(0);
      const { releases } = data(await curator.callTool('course_releases', { course })) as {
        releases: Array<{ version: number; digest: string; commit: string | null; active: boolean }>;
      };
      expect(releases.map((r) => r.version)).toEqual([2, 1]);
      expect(releases[0]).toMatchObject({ commit, active: true });
      expect(releases[1]).toMatchObject({ active: false });
      expect(releases[0].digest).not.toBe(releases[1].digest);
      expect(await publish()).toBe(0);
      const after = data(await curator.callTool('course_releases', { course })) as { releases: unknown[] };
      expect(after.releases).toHaveLength(2);
    } finally {
      await rm(repo, { recursive: true, force: true });
    }
  });
});
