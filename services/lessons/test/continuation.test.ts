import { describe, expect, it } from 'vitest';
import { courseStanding } from '../src/course-progress.ts';
import { continuationPhrase, nextInProgram } from '../src/domain/continuation.ts';

const program = (over: Record<string, unknown>) => ({
  program: 'p',
  title: 'Программа',
  position: 1,
  total: 2,
  ordered: true,
  previous: null,
  next: { course: 'crs_y', title: 'Второй' },
  member: true,
  ...over,
});

describe('courseStanding', () => {
  it('a failed lesson is skipped; a course of passed and failed lessons is finished, not completed', () => {
    const order = ['a', 'b', 'c'];
    expect(courseStanding(order, new Set(['a']), new Set(['b']))).toEqual({
      passed: ['a'],
      failed: ['b'],
      next: 'c',
      completed: false,
      finished: false,
    });
    expect(courseStanding(order, new Set(['a', 'c']), new Set(['b']))).toMatchObject({
      next: null,
      finished: true,
      completed: false,
    });
    expect(courseStanding(order, new Set(order), new Set())).toMatchObject({ finished: true, completed: true });
    // A key outside the release (a removed lesson) counts for nothing.
    expect(courseStanding(order, new Set(['a', 'gone']), new Set(['old']))).toMatchObject({
      passed: ['a'],
      failed: [],
    });
  });
});

describe('nextInProgram', () => {
  it('takes the next course of a program the student is in, ordered programs first', () => {
    expect(nextInProgram([program({ ordered: false, next: { course: 'crs_u', title: 'U' } }), program({})])).toEqual({
      course: 'crs_y',
      title: 'Второй',
      program_title: 'Программа',
    });
    expect(nextInProgram([program({ member: false })])).toBeNull();
    expect(nextInProgram([program({ next: null })])).toBeNull();
    expect(nextInProgram(undefined)).toBeNull();
  });
});

describe('continuationPhrase', () => {
  it('names the call to make, as tool and JSON arguments', () => {
    expect(continuationPhrase({ kind: 'lesson', course: 'crs_x' })).toContain('start_lesson {"course":"crs_x"}');
    const on = { kind: 'course', course: 'crs_y', title: 'Второй', program_title: 'Программа' } as const;
    expect(continuationPhrase({ ...on, enrolled: true })).toContain('start_lesson {"course":"crs_y"}');
    const enrollFirst = continuationPhrase({ ...on, enrolled: false });
    expect(enrollFirst.indexOf('enroll {"course":"crs_y"}')).toBeLessThan(
      enrollFirst.indexOf('start_lesson {"course":"crs_y"}'),
    );
    expect(continuationPhrase({ kind: 'other' })).toContain('start_lesson {}');
  });
});
