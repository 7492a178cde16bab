import { complete_lesson, list_my_courses, type Principal } from '@studium/contracts';
import { eventually } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './support/harness.ts';

// Fidelity of the lesson loop (issue 19): what the lesson tools and the course list answer in the
// places a line-by-line check of the spec found them wrong.
let h: Harness;
beforeAll(async () => {
  h = await startHarness('lessons-loop');
});
afterAll(async () => {
  await h?.close();
});

/** The course's next_lesson in list_my_courses once enrollment has counted `passed` lessons. */
async function nextLesson(p: Principal, passed: number) {
  return eventually(async () => {
    const reply = await h.call(list_my_courses, p, {});
    if (!reply.ok) throw new Error(reply.error.code);
    const c = reply.data.courses.find((x) => x.course === h.basics.course);
    expect(c?.lessons_completed).toBe(passed);
    return c?.next_lesson;
  });
}

describe('list_my_courses next_lesson', () => {
  it('is the first lesson in course order not yet passed, not the lesson at «number passed»', async () => {
    const p = await h.student('last-only@t');
    const s = await h.cover(p, 'closing');
    await h.must(complete_lesson, p, { session: s.session });
    expect(await nextLesson(p, 1)).toEqual({ id: `${h.basics.course}.why-prepare`, title: expect.any(String) });
    const w = await h.cover(p, 'why-prepare');
    await h.must(complete_lesson, p, { session: w.session });
    expect((await nextLesson(p, 2))?.id).toBe(`${h.basics.course}.interests`);
  });
});
