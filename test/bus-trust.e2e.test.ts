// Issue 17.1: a client that reaches NATS but is not the edge cannot act as anyone.
import {
  coursesTakeClosedReports,
  create_course,
  list_courses,
  type Principal,
  phraseFor,
  set_space,
  whoami,
} from '@studium/contracts';
import { generateEdgeKeys, PRINCIPAL_HEADER, principalSigner } from '@studium/platform';
import { createTestEnv, TEST_KEYS, type TestEnv } from '@studium/testing';
import { headers, type NatsConnection, ServiceError } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent, data, text } from './support/clients.ts';
import { startCourses } from './support/courses.ts';
import { startEdge, startEnrollment } from './support/stack.ts';

let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let courses: Awaited<ReturnType<typeof startCourses>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let attacker: NatsConnection;
const tokens: Record<string, string> = {};

const admin: Principal = {
  user: 'root@test',
  full_name: 'Root',
  roles: ['Administrator'],
  scope: 'write',
  space: 'acme',
};
const student: Principal = {
  user: 'student@test',
  full_name: 'Анна',
  roles: ['Student'],
  scope: 'write',
  space: 'personal',
};

beforeAll(async () => {
  env = await createTestEnv('bus-trust');
  enrollment = await startEnrollment(env);
  courses = await startCourses(env);
  edge = await startEdge(env);
  await enrollment.admin.upsertUser('student@test', 'Анна', ['Student']);
  await enrollment.admin.upsertUser('curator@test', 'Кира', ['Course Creator']);
  await enrollment.admin.upsertOrganization('acme', 'Акме');
  tokens.student = (await enrollment.admin.issueToken('student@test')).token;
  tokens.curator = (await enrollment.admin.issueToken('curator@test')).token;
  // A client with the edge's NATS user but not its signing key (a leaked NATS password): NATS
  // lets it publish on every tool subject, and only the signatures stand in its way.
  attacker = await env.connectAs('edge', 'attacker');
});

afterAll(async () => {
  await attacker?.drain().catch(() => {});
  await edge?.close();
  await courses?.close();
  await enrollment?.close();
  await env?.cleanup();
});

/** A raw request on the bus; a service error comes back as `{ status, message }`. */
async function raw(subject: string, body: unknown, token?: string) {
  const h = headers();
  if (token) h.set(PRINCIPAL_HEADER, token);
  const msg = await attacker.request(`${env.prefix}.${subject}`, new TextEncoder().encode(JSON.stringify(body)), {
    timeout: 3000,
    headers: h,
  });
  const err = ServiceError.toServiceError(msg);
  return err ? { status: err.code, message: err.message } : JSON.parse(new TextDecoder().decode(msg.data));
}

async function counts() {
  const c = await courses.database.pool.query('select count(*)::int as n from courses.courses');
  const u = await enrollment.database.pool.query('select id, selected_space from enrollment.users order by id');
  return { courses: c.rows[0].n as number, users: u.rows };
}

describe('the bus refuses a principal the edge did not sign', () => {
  it('serves the edge: a curator lists and creates courses through /authoring', async () => {
    const curator = await connectAgent('v2', `${edge.url}/authoring`, tokens.curator);
    try {
      const made = await curator.callTool('create_course', { title: 'Курс', summary: 'Кратко' });
      expect(made.isError, text(made)).toBeFalsy();
      const listed = data(await curator.callTool('list_courses', {}));
      expect((listed.courses as unknown[]).length).toBe(1);
    } finally {
      await curator.close();
    }
  });

  it('refuses unsigned, forged, expired and someone else’s principals, reading and writing nothing', async () => {
    const before = await counts();
    const real = principalSigner(TEST_KEYS.privateKey);
    const other = principalSigner(generateEdgeKeys().privateKey);
    const soon = Date.now() + 10_000;
    const studentsToken = real.sign(student, whoami.subject, soon);
    const attempts: Array<[string, string, unknown, string | undefined, number]> = [
      ['unsigned read', list_courses.subject, { principal: admin, args: {} }, undefined, 401],
      [
        'unsigned write',
        create_course.subject,
        { principal: admin, args: { title: 'x', summary: 'y' } },
        undefined,
        401,
      ],
      ['unsigned space', set_space.subject, { principal: admin, args: { space: 'acme' } }, undefined, 401],
      ['forged read', list_courses.subject, { args: {} }, other.sign(admin, list_courses.subject, soon), 403],
      [
        'forged write',
        create_course.subject,
        { args: { title: 'x', summary: 'y' } },
        other.sign(admin, create_course.subject, soon),
        403,
      ],
      [
        'expired',
        create_course.subject,
        { args: { title: 'x', summary: 'y' } },
        real.sign(admin, create_course.subject, Date.now() - 5000),
        401,
      ],
      // A student's real token, captured on the bus, used for another subject or another user.
      ['replayed elsewhere', create_course.subject, { args: { title: 'x', summary: 'y' } }, studentsToken, 403],
      ['replayed as admin', whoami.subject, { principal: admin, args: {} }, studentsToken, 403],
      ['replayed to set_space', set_space.subject, { args: { space: 'acme' } }, studentsToken, 403],
    ];
    for (const [name, subject, body, token, status] of attempts) {
      const reply = await raw(subject, body, token);
      expect(reply, name).toMatchObject({ status });
      expect(reply, name).not.toHaveProperty('ok');
    }
    expect(await counts()).toEqual(before);
  });

  it('lets an internal operation act only for the user whose signed principal it carries', async () => {
    const ask = (user: string) => env.bus.request(coursesTakeClosedReports, student, { user, course: 'crs_x' });
    expect(await ask(student.user)).toEqual({ ok: true, data: { reports: [] } });
    await expect(ask('someone@test')).rejects.toMatchObject({ status: 403 });
  });

  it('answers the spec’s 403 phrase when an edge signs with a key the services do not know', async () => {
    const rogue = await startEdge(env, { EDGE_SIGNING_KEY: generateEdgeKeys().privateKey });
    try {
      const agent = await connectAgent('v2', `${rogue.url}/mcp`, tokens.student);
      try {
        const result = await agent.callTool('whoami', {});
        expect(result.isError).toBe(true);
        expect(text(result)).toContain(phraseFor(403));
      } finally {
        await agent.close();
      }
    } finally {
      await rogue.close();
    }
  });
});
