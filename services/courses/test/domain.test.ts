import { releaseWarnings } from '@studium/release';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/domain/canonical.ts';
import { missingLabel, parseTarget } from '../src/domain/note-target.ts';
import { notePlace } from '../src/domain/note-view.ts';
import { releaseProblems } from '../src/domain/release-checks.ts';
import { lessonChanges } from '../src/domain/release-diff.ts';
import { indexRelease } from '../src/domain/release-index.ts';
import { sampleRelease } from './fixtures.ts';

describe('note targets', () => {
  it('parses every form of the table', () => {
    expect(parseTarget('course')).toEqual({ kind: 'course', key: null });
    expect(parseTarget('agent.frame')).toEqual({ kind: 'agent.frame', key: null });
    expect(parseTarget('agent.lesson.l-1')).toEqual({ kind: 'agent.lesson', key: 'l-1' });
    expect(parseTarget('agent.item.l-1/term:T1')).toEqual({
      kind: 'agent.item',
      key: 'l-1/term:T1',
      lesson: 'l-1',
      item: 'term:T1',
    });
    expect(parseTarget('goal.l-1/term:T1')).toMatchObject({ kind: 'goal', lesson: 'l-1', item: 'term:T1' });
    expect(parseTarget('map.chapters.prepare')).toEqual({ kind: 'map', key: 'chapters.prepare' });
    for (const bad of ['', 'courses', 'chapter.', 'goal./x', 'goal.l-1/', 'section.a/b', 'agent.lesson.']) {
      expect(parseTarget(bad)).toBeNull();
    }
  });

  it('labels a missing place by its kind and key, and an archived note by its address', () => {
    expect(missingLabel(parseTarget('goal.l-1/term:T9')!)).toBe('Пункт l-1/term:T9');
    const index = indexRelease(sampleRelease());
    expect(notePlace('lesson.l-9', 'rel_x', index)).toEqual({ label: 'Урок l-9', missing: true });
    expect(notePlace('lesson.l-1', 'rel_x', null)).toEqual({ label: 'Урок l-1', missing: true });
    expect(notePlace('old place', null, index)).toEqual({ label: 'old place', missing: true });
  });
});

describe('release checks', () => {
  it('warns of empty student text and questions without explanation', () => {
    const r = sampleRelease();
    r.course.promise = ' ';
    r.chapters[0].lessons[1].hook = '';
    r.document!.sections[1].description = '';
    // One source of warnings: the pipeline's, so build and publish_course report the same ones.
    const found = releaseWarnings(r).map((w) => `${w.code} ${w.place}`);
    expect(found).toEqual(
      expect.arrayContaining([
        'empty_student_text course',
        'empty_student_text section.next',
        'question_without_explanation question.q-2',
        'empty_student_text lesson.l-2',
      ]),
    );
  });

  it('finds repeated keys and a correct option that is not an option', () => {
    const r = sampleRelease();
    r.chapters[1].lessons[0].objectives[0].key = 'o-1';
    r.chapters[0].lessons[0].quiz!.questions[0].correct = 'z';
    expect(releaseProblems(r)).toEqual([
      'objective o-1: ключ повторяется',
      'question q-1: верного варианта z нет среди вариантов',
    ]);
    expect(releaseProblems(sampleRelease())).toEqual([]);
  });
});

describe('lesson changes', () => {
  it('compares lessons by content whatever the key order (jsonb reorders keys)', () => {
    const before = sampleRelease();
    const reordered = JSON.parse(canonicalJson(before));
    expect(lessonChanges(before, reordered)).toEqual({
      added: [],
      removed: [],
      changed: [],
      unchanged: ['l-1', 'l-2', 'l-3'],
      quiz_changed: [],
    });
  });

  it('tells a changed quiz from other changes', () => {
    const before = sampleRelease();
    const after = sampleRelease();
    after.chapters[0].lessons[0].quiz!.pass_threshold = 0.8;
    after.chapters[0].lessons[1].material = 'Новая опора';
    expect(lessonChanges(before, after)).toMatchObject({ changed: ['l-1', 'l-2'], quiz_changed: ['l-1'] });
  });
});
