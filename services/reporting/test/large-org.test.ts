import { org_report } from '@studium/contracts';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LARGE, seededDeadline, seededStatus, seedLargeOrganization } from './support/large-org.ts';
import { call, startReporting, who } from './support/reporting.ts';

let env: TestEnv;
let reporting: Awaited<ReturnType<typeof startReporting>>;

/** The summary the seed implies, counted here independently of the service's SQL. */
function expectedSummary(course?: number) {
  const s = { rows: 0, not_started: 0, in_progress: 0, completed: 0, overdue: 0, mandatory_not_started: 0 };
  for (let i = 0; i < LARGE.people; i++) {
    for (let j = 0; j < LARGE.courses; j++) {
      if (course !== undefined && j !== course) continue;
      const status = seededStatus(i, j);
      s.rows++;
      s[status]++;
      if (status !== 'completed' && seededDeadline(j) < new Date().toISOString()) s.overdue++;
      if (j < 3 && status === 'not_started') s.mandatory_not_started++;
    }
  }
  return s;
}

async function report(args: object = {}) {
  const r = await call(env, org_report, who(LARGE.manager), args);
  if (!r.ok) throw new Error(r.error.code);
  return r.data;
}

beforeAll(async () => {
  env = await createTestEnv('reporting-large');
  reporting = await startReporting(env);
  await seedLargeOrganization(reporting.db);
});

afterAll(async () => {
  await reporting?.close();
  await env?.cleanup();
});

describe('org_report of a 5,000 × 10 organization', () => {
  it('answers with the whole summary and a readable first page', async () => {
    const started = performance.now();
    const r = await report();
    const ms = performance.now() - started;
    expect(r.summary).toEqual({ ...expectedSummary(), people: LARGE.people });
    expect(r.total).toBe(LARGE.people * LARGE.courses);
    expect(r.rows).toHaveLength(100);
    expect(r.next_offset).toBe(100);
    // What an agent receives stays small whatever the organization's size.
    expect(JSON.stringify(r).length).toBeLessThan(64 * 1024);
    expect(ms).toBeLessThan(5000);
  });

  it('walks the rows in a stable order, page after page, with no row twice', async () => {
    const seen = new Set<string>();
    let previous = '';
    let offset: number | null = 0;
    for (let pageNo = 0; pageNo < 4 && offset !== null; pageNo++) {
      const r = await report({ limit: 500, offset });
      for (const row of r.rows) {
        const key = `${row.full_name}\u0000${row.user}\u0000${row.course_title}`;
        expect(key > previous).toBe(true);
        previous = key;
        seen.add(`${row.user}:${row.course}`);
      }
      offset = r.next_offset ?? null;
    }
    expect(seen.size).toBe(2000);
    const again = await report({ limit: 3, offset: 500 });
    const walked = await report({ limit: 500, offset: 500 });
    expect(again.rows).toEqual(walked.rows.slice(0, 3));
  });

  it('narrows by course and status; the summary keeps counting every status of the course', async () => {
    const r = await report({ course: 'big-c4', status: 'not_started', limit: 10 });
    expect(r.summary).toEqual({ ...expectedSummary(4), people: LARGE.people });
    expect(r.total).toBe(expectedSummary(4).not_started);
    expect(r.rows.every((row) => row.course === 'big-c4' && row.status === 'not_started')).toBe(true);
    expect(r.rows[0]).toMatchObject({ progress: 0, document: { blocks_total: 0, blocks_filled: 0 }, overdue: true });
  });

  it('gives the last page with next_offset null', async () => {
    const r = await report({ limit: 500, offset: LARGE.people * LARGE.courses - 7 });
    expect(r.rows).toHaveLength(7);
    expect(r.next_offset).toBeNull();
  });
});
