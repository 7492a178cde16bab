import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { list_my_courses, whoami } from '@studium/contracts';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleRelease } from '../services/courses/test/fixtures.ts';
import { announceCourse, openCourse, startCourses } from './support/courses.ts';
import { startEnrollment } from './support/stack.ts';

// The admin CLI as an operator runs it: a separate process against the same database and NATS.
const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let courses: Awaited<ReturnType<typeof startCourses>>;
/** An open course and an announced one, from the real courses service. */
let demo: string;
let soon: string;

async function cli(...args: string[]): Promise<string> {
  const { stdout } = await run(resolve(root, 'node_modules/.bin/tsx'), [resolve(root, 'scripts/cli.ts'), ...args], {
    env: { ...process.env, DATABASE_URL: env.databaseUrl, SUBJECT_PREFIX: env.prefix, ...env.natsEnv('operator') },
  });
  return stdout;
}

beforeAll(async () => {
  env = await createTestEnv('cli');
  enrollment = await startEnrollment(env);
  courses = await startCourses(env);
  demo = await openCourse(env, enrollment.db, sampleRelease('demo'));
  soon = await announceCourse(env, enrollment.db, { title: 'Скоро', summary: 'Анонс', objectives: ['Цель'] });
});

afterAll(async () => {
  await courses?.close();
  await enrollment?.close();
  await env?.cleanup();
});

// Starting a tsx process takes seconds on a loaded machine: the whole file gets more time.
describe('admin CLI', { timeout: 120_000 }, () => {
  it('creates people and organizations, issues a token, assigns a course', async () => {
    await cli('user', 'add', 'olga@test', 'Ольга', 'Тестова', '--role', 'Student');
    await cli('org', 'add', 'globex', 'Глобекс');
    await cli('member', 'add', 'globex', 'olga@test');
    const issued = await cli('token', 'issue', 'olga@test', '--scope', 'read');
    expect(issued).toMatch(/^token id tok_[0-9a-f]+\nstu_\S+\n$/);
    await cli('course', 'allow', 'globex', demo);
    await cli('course', 'assign', 'globex', 'olga@test', demo, '--mandatory', '--deadline', '2030-01-01');
    const rows = await enrollment.admin.listEnrollments({ user: 'olga@test' });
    expect(rows).toMatchObject([{ course: demo, space: 'globex', mandatory: true, self_enrolled: false }]);
    const principal = {
      user: 'olga@test',
      full_name: 'Ольга Тестова',
      roles: ['Student'],
      scope: 'write' as const,
      space: 'globex',
    };
    const who = await env.bus.request(whoami, principal, {});
    expect(who.ok && who.data.organizations).toEqual([
      { name: 'globex', title: 'Глобекс', role: 'member', suspended: false },
    ]);
    const mine = await env.bus.request(list_my_courses, principal, { space: 'globex' });
    expect(mine.ok).toBe(true);
  });

  it('suspending an organization reaches the running service at once', async () => {
    const principal = {
      user: 'olga@test',
      full_name: 'Ольга Тестова',
      roles: ['Student'],
      scope: 'write' as const,
      space: 'personal',
    };
    await env.bus.request(whoami, principal, {}); // warm the identity cache
    await cli('org', 'suspend', 'globex');
    await eventually(async () => {
      const who = await env.bus.request(whoami, principal, {});
      if (!who.ok || !who.data.organizations[0]?.suspended) throw new Error('still cached');
    }, 5000);
  });

  it('refuses bad input with a message and a non-zero exit', async () => {
    await expect(cli('member', 'add', 'globex')).rejects.toMatchObject({ code: 1 });
    await expect(cli('token', 'issue', 'nobody@test')).rejects.toMatchObject({
      stderr: expect.stringContaining('no such user'),
    });
    await expect(cli('frobnicate')).rejects.toMatchObject({ code: 1 });
  });

  it('refuses unknown users, organizations, courses and roles, and dates that are not ISO-8601', async () => {
    await enrollment.admin.upsertOrganization('initech', 'Инитек');
    await enrollment.admin.addMember('initech', 'olga@test', 'member');
    // Two commands as the operator types them (each process is slow to start, so only two)…
    const [typo, date] = await Promise.all(
      [
        ['course', 'assign', 'initech', 'olga@test', 'crs_typo'],
        ['course', 'assign', 'initech', 'olga@test', demo, '--deadline', '31.12.2030'],
      ].map((args) =>
        cli(...args).then(
          () => null,
          (err) => err,
        ),
      ),
    );
    expect(typo).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: no such course: crs_typo/m) });
    expect(date).toMatchObject({ code: 1, stderr: expect.stringContaining('--deadline must be an ISO-8601 date') });
    // …and the checks behind the other commands, in process.
    const a = enrollment.admin;
    await expect(a.requireCourse(soon, { published: true })).rejects.toThrow(/not open to students \(upcoming\)/);
    await expect(a.requireCourse('crs_gone', { allowedIn: 'initech' })).rejects.toThrow('no such course: crs_gone');
    await expect(a.addMember('nowhere', 'olga@test', 'member')).rejects.toThrow('no such organization: nowhere');
    await expect(a.addMember('initech', 'ghost@test', 'member')).rejects.toThrow('no such user: ghost@test');
    await expect(a.removeMember('globex', 'ghost@test')).rejects.toThrow('no such user: ghost@test');
    await expect(a.setSuspended('nowhere', true)).rejects.toThrow('no such organization: nowhere');
    await expect(a.upsertUser('ivan@test', 'Иван', ['Teachr'])).rejects.toThrow(/^no such role: Teachr \(roles: /);
    await expect(a.listTokens('ghost@test')).rejects.toThrow('no such user: ghost@test');
    await expect(a.removeProgramMember('nowhere', 'olga@test')).rejects.toThrow('no such program: nowhere');
    expect(await a.listEnrollments({ org: 'initech' })).toEqual([]);
  });
});
