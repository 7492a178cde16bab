import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchCourse, seedCatalog } from '../bench/catalog.ts';
import { connectAgent, data, type SdkVersion } from './support/clients.ts';
import { startEdge, startEnrollment } from './support/stack.ts';
import { type BudgetedSurface, measureToolsList, TOOLS_LIST_BUDGETS } from './support/tools-list.ts';

// Issue 31: tools/list is read into every conversation before a word is said. The budgets keep it
// from growing back; the listed schemas are smaller (shared parts in $defs, no $schema) and every
// client must still resolve them and accept every reply.
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let token: string;
const USER = 'author@test';

beforeAll(async () => {
  env = await createTestEnv('tools-list');
  enrollment = await startEnrollment(env);
  edge = await startEdge(env);
  const a = enrollment.admin;
  // A user who sees every tool of every endpoint (an author role for /authoring; a write token for /kb).
  await a.upsertUser(USER, 'Ася Автор', ['Student', 'Course Creator']);
  await a.upsertOrganization('acme', 'Акме');
  await a.addMember('acme', USER, 'member');
  token = (await a.issueToken(USER)).token;
  // An ordered program of three catalog courses with the second assigned: both lists then carry
  // programs with previous, next and locked_by — the parts of their schemas shared through $defs.
  await seedCatalog({
    nc: await env.as('courses'),
    prefix: env.prefix,
    db: enrollment.db,
    admin: a,
    org: 'acme',
    courses: 4,
  });
  await a.saveProgram('chain', 'Цепочка', true, [1, 2, 3].map(benchCourse));
  await a.addProgramMember('chain', USER);
  await a.assignCourse('acme', USER, benchCourse(2), { mandatory: true });
});

afterAll(async () => {
  await edge?.close();
  await enrollment?.close();
  await env?.cleanup();
});

describe('tools/list stays within its budget', () => {
  const expected: Record<BudgetedSurface, number> = { '/mcp': 29, '/authoring': 20, '/kb': 21 };
  for (const [path, budget] of Object.entries(TOOLS_LIST_BUDGETS) as Array<
    [BudgetedSurface, { model: number; whole?: number }]
  >) {
    const whole = budget.whole ? `, the whole reply ≤ ${budget.whole}` : '';
    it(`${path}: what a model sees ≤ ${budget.model} bytes${whole}`, async () => {
      const size = await measureToolsList(`${edge.url}${path}`, token);
      // Every tool is still listed: a budget met by dropping tools would be no budget.
      expect(size.tools).toBe(expected[path]);
      expect(size.model).toBeLessThanOrEqual(budget.model);
      if (budget.whole) expect(size.whole).toBeLessThanOrEqual(budget.whole);
    });
  }
});

describe.each(['v1', 'v2'] as const satisfies readonly SdkVersion[])('a %s client', (version) => {
  it('lists every endpoint and accepts replies whose schemas share parts through $defs', async () => {
    for (const path of ['/mcp', '/authoring', '/kb']) {
      const client = await connectAgent(version, `${edge.url}${path}`, token);
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(15);
      await client.close();
    }
    const student = await connectAgent(version, `${edge.url}/mcp`, token);
    // Both SDK clients check structuredContent against the listed outputSchema (resolving its
    // $refs) and throw when it does not match: these calls return only if the reply passes.
    await student.listTools();
    const mine = data(await student.callTool('list_my_courses', { space: 'acme' }));
    const course = (mine.courses as Array<Record<string, unknown>>).find((c) => c.course === benchCourse(2));
    expect(course).toMatchObject({
      programs: [{ previous: { course: benchCourse(1) }, next: { course: benchCourse(3) } }],
      locked_by: { course: benchCourse(1) },
    });
    const catalog = data(await student.callTool('list_catalog', { space: 'acme' }));
    expect((catalog.courses as unknown[]).length).toBeGreaterThan(0);
    // A refusal is checked against the same envelope.
    const refused = await student.callTool('enroll', { course: benchCourse(2), space: 'acme' });
    expect(refused.isError).toBe(true);
    expect((refused.structuredContent as { error: { code: string } }).error.code).toBe('already_enrolled');
    await student.close();
  });
});
