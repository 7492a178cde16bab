import { Release } from '@studium/contracts';
import {
  type BuiltRelease,
  buildFromDir,
  buildRelease,
  canonicalJson,
  digestOf,
  loadCourseMap,
  releaseWarnings,
} from '@studium/release';
import { afterAll, describe, expect, it } from 'vitest';
import { ADVANCED, BASICS, copyMap, edit, removeTemps } from './support.ts';

afterAll(removeTemps);

async function build(dir: string): Promise<BuiltRelease> {
  const result = await buildFromDir(dir);
  if (!result.ok) throw new Error(`expected a valid map:\n${JSON.stringify(result.errors, null, 2)}`);
  return result;
}

describe('demo course maps', () => {
  it('negotiation-basics builds into a valid release with every part the format has', async () => {
    const built = await build(BASICS);
    expect(Release.parse(built.release)).toEqual(built.release);
    expect(built.warnings).toEqual([]);
    const { course, document, chapters } = built.release;
    expect(course.key).toBe('negotiation-basics');
    expect(course.curators).toEqual(['curator@demo.studium']);
    expect(course.frame).toMatch(/^# Рамка курса/);
    expect(course.learn_about_student.map((n) => n.kind).sort()).toEqual(['fact', 'fact', 'observation', 'project']);
    expect(chapters.map((c) => c.key)).toEqual(['preparation', 'conduct']);
    const lessons = chapters.flatMap((c) => c.lessons);
    expect(lessons.map((l) => l.key)).toEqual(['why-prepare', 'interests', 'batna', 'opening', 'closing']);
    const items = lessons.flatMap((l) => l.objectives.flatMap((o) => o.items));
    expect(new Set(items.map((i) => i.kind))).toEqual(new Set(['term', 'choice', 'execution', 'misconception']));
    expect(items.find((i) => i.key === 'term:T1')).toBeDefined();
    expect(items.some((i) => !i.required)).toBe(true);
    const quizzes = lessons.flatMap((l) => (l.quiz ? [l.quiz] : []));
    expect(quizzes.map((q) => q.required)).toEqual([true, true, false]);
    expect(lessons.map((l) => l.homework?.answer_mode ?? null)).toEqual(['text', null, 'files', 'both', 'text']);
    expect(lessons.find((l) => l.key === 'closing')?.homework?.due_days).toBeNull();
    expect(document?.sections.map((s) => s.rows)).toEqual(['one', 'many', 'one', 'many']);
    const columns = document?.sections.flatMap((s) => s.columns) ?? [];
    expect(columns.find((c) => c.key === 'mitigation')?.required).toEqual({ if_column: 'risk' });
    expect(columns.find((c) => c.key === 'concessions_price')?.required).toEqual({ if_column: 'concessions' });
    expect(lessons.find((l) => l.key === 'batna')?.section_hints.alternatives).toMatch(/BATNA/);
  });

  it('takes long texts from Markdown files and defaults option ids to V1, V2…', async () => {
    const { release } = await build(BASICS);
    const batna = release.chapters[0].lessons[2];
    expect(batna.objectives[0].items[0].details).toMatch(/^BATNA \(Best Alternative/);
    expect(batna.directive).toMatch(/^Урок о силе/);
    expect(batna.homework?.description).toMatch(/^Сфотографируйте/);
    expect(batna.quiz?.questions[0]).toMatchObject({ correct: 'V2', objective: 'batna-known' });
    expect(batna.quiz?.attempts).toBeNull();
    const opening = release.chapters[1].lessons[0];
    expect(opening.quiz?.questions[1].options.map((o) => o.id)).toEqual(['A', 'B', 'C']);
    expect(release.course.description).toMatch(/^Тимлид договаривается/);
  });

  it('negotiation-advanced is a valid small release without a document', async () => {
    const built = await build(ADVANCED);
    expect(built.release.document).toBeNull();
    expect(built.summary).toMatchObject({ chapters: 1, lessons: 2, quizzes: 1 });
    expect(built.warnings).toEqual([]);
  });
});

describe('digest', () => {
  it('is the SHA-256 of the canonical JSON, the same for two builds of the same map', async () => {
    const [a, b] = await Promise.all([build(BASICS), build(BASICS)]);
    expect(a.json).toBe(b.json);
    expect(a.digest).toBe(b.digest);
    expect(a.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digestOf(canonicalJson(a.release))).toBe(a.digest);
  });

  it('does not depend on the order in which files were read', async () => {
    const map = await loadCourseMap(BASICS);
    const reversed = { root: map.root, files: Object.fromEntries(Object.entries(map.files).reverse()) };
    const a = buildRelease(map);
    const b = buildRelease(reversed);
    expect(a.ok && b.ok && a.digest === b.digest).toBe(true);
  });

  it('does not depend on line endings or block-scalar style, and changes when a text changes', async () => {
    const base = await build(BASICS);
    const dir = await copyMap();
    await edit(dir, 'chapters/conduct/closing/homework.md', /\n/g, '\r\n');
    await edit(dir, 'course.yaml', 'summary: >-', 'summary: >');
    expect((await build(dir)).digest).toBe(base.digest);
    await edit(dir, 'chapters/preparation/why-prepare/lesson.yaml', 'Вспомните последний', 'Вспомните недавний');
    const changed = await build(dir);
    expect(changed.digest).not.toBe(base.digest);
    expect(changed.release.chapters[0].lessons[0].hook).toMatch(/^Вспомните недавний/);
  });
});

describe('canonicalJson', () => {
  it('sorts keys recursively, drops undefined fields and adds no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [true, null, 'ё'], c: undefined } })).toBe(
      '{"a":{"d":[true,null,"ё"]},"b":1}',
    );
  });
});

describe('warnings', () => {
  it('names an empty hook and a question without explanation, located in the map', async () => {
    const dir = await copyMap();
    await edit(dir, 'chapters/preparation/batna/lesson.yaml', /^hook: >-\n( {2}.*\n)+/m, 'hook: ""\n');
    await edit(dir, 'chapters/conduct/opening/quiz.yaml', / {4}explanation: >-\n {6}На открытый(.*\n)+/, '');
    const built = await build(dir);
    expect(built.warnings.map((w) => [w.code, w.place])).toEqual([
      ['empty_student_text', 'lesson.batna'],
      ['question_without_explanation', 'question.opening-q2'],
    ]);
    expect(built.warnings[0].message).toContain('зачин');
    expect(built.warnings[0].at).toMatchObject({ file: 'chapters/preparation/batna/lesson.yaml', line: 2 });
    expect(built.warnings[1].at).toMatchObject({ file: 'chapters/conduct/opening/quiz.yaml' });
    expect(releaseWarnings(built.release)).toEqual(built.warnings.map(({ at: _, ...w }) => w));
  });

  it('warns about an empty section description and about stray files, without failing the build', async () => {
    const dir = await copyMap();
    await edit(dir, 'document.yaml', / {4}description: С кем и о чём.*\n/, '');
    await edit(dir, 'chapters/conduct/chapter.yaml', '  - opening\n', '');
    const built = await build(dir);
    expect(built.warnings.map((w) => [w.code, w.place])).toEqual([
      ['empty_student_text', 'section.case'],
      ['unlisted_folder', 'map.chapters/conduct/opening'],
    ]);
  });
});
