import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { get_my_progress, org_report, student_detail } from '@studium/contracts';
import { openDatabase } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEnrollment } from '../../../test/support/stack.ts';
import { publishEvents } from '../../enrollment/test/support/cards.ts';
import { ReportingAdmin } from '../src/admin.ts';
import type { ReportingDb } from '../src/db.ts';
import { currentGeneration } from '../src/generation.ts';
import { call, courseCard, lessonEvents, SUBJECTS, startReporting, who } from './support/reporting.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../../..');
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let reporting: Awaited<ReturnType<typeof startReporting>>;
const PEOPLE = ['p1@t', 'p2@t', 'p3@t', 'p4@t'];
const t = (s: number) => new Date(Date.UTC(2026, 1, 1, 9, 0, 0) + s * 1000).toISOString();

/** Every report the three tools give for the test's people, as one comparable value. */
async function snapshot() {
  const replies: unknown[] = [];
  replies.push(await call(env, org_report, who('head@t'), {}));
  replies.push(await call(env, org_report, who('head@t'), { status: 'in_progress', limit: 2 }));
  for (const p of PEOPLE) {
    replies.push(await call(env, student_detail, who('head@t'), { user: p }));
    replies.push(await call(env, get_my_progress, who(p), {}));
  }
  return replies;
}

/** Publishes a burst of lesson, homework and document events for everyone (rounds give new ids and times). */
async function studyRound(round: number) {
  for (const [i, p] of PEOPLE.entries()) {
    const e = lessonEvents(p, 'k1', 'acme');
    const n = (round % 3) + 1;
    const s = `s-${p}-${round}`;
    const at = (k: number) => t(round * 100 + i * 10 + k);
    await publishEvents(env, SUBJECTS.started, [e.started(n, s, at(0))]);
    await publishEvents(env, SUBJECTS.marked, [e.marked(n, s, `l${n}-D1`, 'covered', at(1))]);
    await publishEvents(env, SUBJECTS.finished, [e.finished(n, s, `a-${p}-${round}`, round + 1, 0.5 + i / 10, at(2))]);
    if (i % 2 === 0) await publishEvents(env, SUBJECTS.passed, [e.passed(n, s, at(3), Math.min(3, round + 1), 3)]);
    await publishEvents(env, SUBJECTS.homework, [e.homework(n, 'Submitted', round + 1, at(4))]);
    await publishEvents(env, SUBJECTS.document, [e.document('plan', 5, Math.min(5, round), at(5))]);
  }
}

async function settled(expectRounds: number) {
  await eventually(async () => {
    const r = await call(env, student_detail, who('head@t'), { user: 'p4@t' });
    if (!r.ok) throw new Error(r.error.code);
    expect(r.data.attempts).toHaveLength(expectRounds);
  }, 20_000);
}

beforeAll(async () => {
  env = await createTestEnv('reporting-rebuild');
  enrollment = await startEnrollment(env);
  reporting = await startReporting(env);
  const a = enrollment.admin;
  await a.upsertUser('head@t', 'Руководитель', ['Student']);
  await a.upsertOrganization('acme', 'Акме');
  await a.addMember('acme', 'head@t', 'manager');
  for (const [i, p] of PEOPLE.entries()) {
    await a.upsertUser(p, `Сотрудник ${i + 1}`, ['Student']);
    await a.addMember('acme', p, 'member');
    await a.assignCourse('acme', p, 'k1', { mandatory: i < 2, deadline: i % 2 ? '2020-01-01T00:00:00Z' : null });
  }
  await a.upsertUser('p2@t', 'Сотрудник Второй (переименован)', ['Student']);
  await enrollment.app.flush();
  await publishEvents(env, SUBJECTS.card, [courseCard('k1', 3), courseCard('k1', 3, 2)]);
  await studyRound(0);
  await studyRound(1);
  await settled(2);
});

afterAll(async () => {
  await reporting?.close();
  await enrollment?.close();
  await env?.cleanup();
});

describe('rebuild from the stream', () => {
  it('gives exactly the reports of the live read models, and drops the old generation', async () => {
    const live = await snapshot();
    const database = openDatabase<ReportingDb>(env.databaseUrl, 'reporting', 3);
    try {
      const before = await currentGeneration(database.db);
      const r = await new ReportingAdmin(database, env.log).rebuild(await env.as('operator'), env.prefix);
      expect(r.previous).toBe(before);
      expect(r.generation).not.toBe(before);
      expect(await currentGeneration(database.db)).toBe(r.generation);
      expect(r.applied).toBeGreaterThan(40);
      expect(await snapshot()).toEqual(live);
      const schemas = await sql<{ n: string }>`select schema_name as n from information_schema.schemata
        where schema_name = ${before}`.execute(database.db);
      expect(schemas.rows).toEqual([]);
    } finally {
      await database.close();
    }
  });

  it('runs while the live consumer keeps applying new events: nothing is lost across the swap', async () => {
    const database = openDatabase<ReportingDb>(env.databaseUrl, 'reporting', 3);
    try {
      const admin = new ReportingAdmin(database, env.log);
      const [rebuilt] = await Promise.all([
        admin.rebuild(await env.as('operator'), env.prefix),
        studyRound(2).then(() => studyRound(3)),
      ]);
      await settled(4);
      const afterLive = await snapshot();
      // A second rebuild over the now quiet stream is the reference: the same reports.
      const again = await admin.rebuild(await env.as('operator'), env.prefix);
      expect(again.previous).toBe(rebuilt.generation);
      expect(await snapshot()).toEqual(afterLive);
    } finally {
      await database.close();
    }
  });

  it('catches up with enrollment data made before its events existed (announceState)', async () => {
    // Rows written the way older versions did: no events in the outbox.
    await enrollment.db
      .insertInto('users')
      .values({ id: 'old@t', full_name: 'Старый Сотрудник', roles: ['Student'] })
      .execute();
    await enrollment.db.insertInto('organizations').values({ name: 'oldco', title: 'Старая компания' }).execute();
    await enrollment.db
      .insertInto('memberships')
      .values([
        { org: 'oldco', user_id: 'old@t', role: 'member' },
        { org: 'oldco', user_id: 'head@t', role: 'manager' },
      ])
      .execute();
    await enrollment.db
      .insertInto('enrollments')
      .values({
        user_id: 'old@t',
        course: 'k1',
        space: 'oldco',
        self_enrolled: false,
        mandatory: true,
        deadline: null,
        completed_at: null,
        progress_at: null,
      })
      .execute();
    expect(await enrollment.admin.announceState()).toBeGreaterThan(10);
    await enrollment.app.flush();
    await eventually(async () => {
      const r = await call(env, org_report, who('head@t'), {});
      if (!r.ok) throw new Error(r.error.code);
      expect(r.data.rows.find((row) => row.user === 'old@t')).toMatchObject({
        full_name: 'Старый Сотрудник',
        organization: 'oldco',
        mandatory: true,
      });
    });
  });

  it('is one admin CLI command, and the CLI exports org_report as CSV', async () => {
    const envVars = {
      ...process.env,
      DATABASE_URL: env.databaseUrl,
      SUBJECT_PREFIX: env.prefix,
      ...env.natsEnv('operator'),
    };
    const tsx = resolve(root, 'node_modules/.bin/tsx');
    const cli = resolve(root, 'scripts/cli.ts');
    const rebuilt = await run(tsx, [cli, 'reporting', 'rebuild'], { env: envVars });
    expect(rebuilt.stdout).toMatch(/read models rebuilt: reporting_g\d+ replaces reporting_g\d+/);
    const out = join(tmpdir(), `${env.prefix}-report.csv`);
    await run(tsx, [cli, 'reporting', 'export', 'acme', '--out', out], { env: envVars });
    const lines = (await readFile(out, 'utf8')).split('\r\n').filter(Boolean);
    expect(lines[0]).toBe(
      'organization,user,full_name,course,course_title,status,progress,lessons_passed,lessons_total,mandatory,deadline,overdue,last_activity,document_blocks_total,document_blocks_filled',
    );
    expect(lines).toHaveLength(1 + PEOPLE.length); // oldco is another organization
    expect(lines.find((l) => l.includes('p2@t'))).toMatch(/^acme,p2@t,Сотрудник Второй \(переименован\),k1,Курс k1,/);
    const bad = await run(tsx, [cli, 'reporting', 'export', 'acme', '--status', 'lost'], { env: envVars }).catch(
      (err: { code: number; stderr: string }) => err,
    );
    expect(bad).toMatchObject({ code: 1 });
    expect((bad as { stderr: string }).stderr).toContain('status must be one of');
  }, 120_000);
});
