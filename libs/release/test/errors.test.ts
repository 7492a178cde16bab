import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildFromDir, formatError } from '@studium/release';
import { afterAll, describe, expect, it } from 'vitest';
import { copyMap, edit, removeTemps } from './support.ts';

afterAll(removeTemps);

/** Builds a broken map and returns its errors rendered as the CLI prints them. */
async function errorsOf(dir: string): Promise<string[]> {
  const result = await buildFromDir(dir);
  if (result.ok) throw new Error('expected the map to be rejected');
  return result.errors.map(formatError);
}

const WHY = 'chapters/preparation/why-prepare/lesson.yaml';
const INTERESTS_QUIZ = 'chapters/preparation/interests/quiz.yaml';

describe('a broken map is rejected with located errors', () => {
  it('names a missing required field with its file and line', async () => {
    const dir = await copyMap();
    await edit(dir, 'chapters/preparation/batna/lesson.yaml', 'title: Альтернатива и границы\n', '');
    expect(await errorsOf(dir)).toEqual([
      'chapters/preparation/batna/lesson.yaml:1:1: title: required field is missing',
    ]);
  });

  it('names a question with two correct options, and one with none', async () => {
    const dir = await copyMap();
    await edit(
      dir,
      INTERESTS_QUIZ,
      '      - text: Интерес заказчика\n',
      '      - text: Интерес заказчика\n        correct: true\n',
    );
    await edit(
      dir,
      INTERESTS_QUIZ,
      /(«Что произойдёт, если мы выпустим релиз пятнадцатого\?»)\n {8}correct: true/,
      '$1',
    );
    expect(await errorsOf(dir)).toEqual([
      `${INTERESTS_QUIZ}:11:7: questions[0].options: 2 options are marked correct in question 'interests-q1' (V1, V2); exactly one must be`,
      `${INTERESTS_QUIZ}:24:7: questions[1].options: no option is marked correct in question 'interests-q2'; mark exactly one with correct: true`,
    ]);
  });

  it('names duplicate keys: chapter, lesson, objective, item, question, section, column', async () => {
    const dir = await copyMap();
    await edit(dir, 'course.yaml', '  - conduct\n', '  - conduct\n  - conduct\n');
    await edit(dir, 'chapters/conduct/chapter.yaml', '  - closing\n', '  - closing\n  - batna\n');
    await edit(dir, WHY, 'key: case-chosen', 'key: spot-negotiations');
    await edit(dir, WHY, 'id: C1', 'id: T1');
    await edit(dir, 'chapters/conduct/opening/quiz.yaml', 'key: opening-q1', 'key: interests-q1');
    await edit(dir, 'document.yaml', 'key: agreements', 'key: interests');
    await edit(dir, 'document.yaml', 'key: target', 'key: batna');
    const errors = await errorsOf(dir);
    expect(errors).toEqual([
      "chapters/conduct/chapter.yaml:8:5: lessons[2]: duplicate lesson key 'batna' (already listed at chapters/preparation/chapter.yaml:8:5); lesson keys are unique in the course",
      "chapters/conduct/closing/lesson.yaml:41:3: section_hints.agreements: unknown section 'agreements'; sections of the document: case, interests, alternatives",
      "chapters/conduct/opening/quiz.yaml:7:10: questions[0].key: duplicate question key 'interests-q1' (already used at chapters/preparation/interests/quiz.yaml:7:10)",
      `${WHY}:26:10: objectives[1].key: duplicate objective key 'spot-negotiations' (already used at ${WHY}:6:10)`,
      `${WHY}:38:13: objectives[1].items[1].id: duplicate item id 'T1' in this lesson (already used by term:T1)`,
      "course.yaml:32:5: chapters[2]: chapter 'conduct' is listed twice",
      "document.yaml:63:14: sections[2].columns[2].key: duplicate column key 'batna' in section 'alternatives'",
      "document.yaml:77:10: sections[3].key: duplicate section key 'interests'",
    ]);
  });

  it('names dangling references: hint, section lesson, question objective, if_column, missing lesson folder', async () => {
    const dir = await copyMap();
    await edit(dir, 'chapters/preparation/batna/lesson.yaml', '  alternatives: >-', '  alternativez: >-');
    await edit(dir, 'document.yaml', 'lesson: closing', 'lesson: wrap-up');
    await edit(dir, INTERESTS_QUIZ, 'objective: interests-found', 'objective: batna-known');
    await edit(dir, 'chapters/conduct/opening/quiz.yaml', 'objective: open-questions', 'objective: no-such-goal');
    await edit(dir, 'document.yaml', 'if_column: risk', 'if_column: risks');
    await edit(dir, 'chapters/conduct/chapter.yaml', '  - closing\n', '  - closing\n  - summary\n');
    const errors = await errorsOf(dir);
    expect(errors).toEqual([
      "chapters/conduct/chapter.yaml:8:5: lessons[2]: lesson 'summary' has no chapters/conduct/summary/lesson.yaml",
      "chapters/conduct/opening/quiz.yaml:24:16: questions[1].objective: unknown objective 'no-such-goal'; objectives of this lesson: opening-frame, open-questions",
      "chapters/preparation/batna/lesson.yaml:53:3: section_hints.alternativez: unknown section 'alternativez'; sections of the document: case, interests, alternatives, agreements",
      `${INTERESTS_QUIZ}:21:16: questions[1].objective: objective 'batna-known' belongs to another lesson (chapters/preparation/batna/lesson.yaml:6:10); a question checks an objective of its own lesson`,
      "document.yaml:82:13: sections[3].lesson: unknown lesson 'wrap-up'; lessons of the course: why-prepare, interests, batna, opening, closing, summary",
      "document.yaml:100:22: sections[3].columns[4].required.if_column: if_column names unknown column 'risks'; columns of section 'agreements': topic, owner, due, risk, mitigation",
    ]);
  });

  it('names wrong types and values, unknown fields and YAML syntax errors, all in one run', async () => {
    const dir = await copyMap();
    await edit(dir, INTERESTS_QUIZ, 'pass_threshold: 0.67', 'pass_threshold: 1.5');
    await edit(dir, INTERESTS_QUIZ, 'attempts: 3', 'atempts: 3');
    await edit(dir, 'document.yaml', '    rows: one\n', '    rows: single\n');
    await edit(dir, WHY, 'kind: choice', 'kind: quiz');
    await edit(dir, 'course.yaml', 'key: negotiation-basics', 'key: 2024');
    await edit(dir, 'chapters/conduct/closing/lesson.yaml', 'answer_mode: text', 'answer_mode: [text');
    const errors = await errorsOf(dir);
    expect(errors).toEqual([
      expect.stringMatching(/^chapters\/conduct\/closing\/lesson\.yaml:\d+:\d+: YAML: /),
      `${INTERESTS_QUIZ}:3:17: pass_threshold: must be between 0 and 1`,
      `${INTERESTS_QUIZ}:4:1: atempts: unknown field 'atempts' (did you mean 'attempts'?); fields here: required, pass_threshold, attempts, pause_minutes, questions`,
      `${WHY}:37:15: objectives[1].items[1].kind: must be term, choice, execution or misconception`,
      'course.yaml:3:6: key: expected string, got number 2024 (put it in quotes)',
      'document.yaml:13:11: sections[0].rows: must be many or one',
    ]);
  });

  it('rejects homework.md without homework, details for an unknown item, a hint without a document', async () => {
    const dir = await copyMap();
    await writeFile(join(dir, 'chapters/preparation/interests/homework.md'), 'Сделайте что-нибудь.');
    await writeFile(join(dir, 'chapters/preparation/batna/items/T9.md'), 'Подробности.');
    await rm(join(dir, 'document.yaml'));
    const errors = await errorsOf(dir);
    expect(errors).toContain(
      'chapters/preparation/interests/homework.md: homework.md without homework in lesson.yaml (add homework: with answer_mode)',
    );
    expect(errors).toContain(
      "chapters/preparation/batna/items/T9.md: no item with id 'T9' in chapters/preparation/batna/lesson.yaml for these details",
    );
    expect(errors).toContain(
      "chapters/preparation/why-prepare/lesson.yaml:45:3: section_hints.case: hint for section 'case', but the course has no document.yaml",
    );
  });

  it('rejects a map folder without course.yaml and a text given both inline and as Markdown', async () => {
    const dir = await copyMap();
    await edit(dir, 'course.yaml', 'promise: >-', 'frame: Рамка.\npromise: >-');
    expect(await errorsOf(dir)).toEqual(['course.yaml:8:1: frame: given twice: here and in frame.md; keep one']);
    await rm(join(dir, 'course.yaml'));
    expect(await errorsOf(dir)).toEqual(['course.yaml: not found: a course map folder starts with course.yaml']);
  });
});
