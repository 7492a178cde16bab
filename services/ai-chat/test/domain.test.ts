import { describe, expect, it } from 'vitest';
import { failureText } from '../src/domain/failures.ts';
import { modelMessages, SYSTEM_PROMPT } from '../src/domain/prompt.ts';
import { charCount, isUuid, messageProblem, threadTitle } from '../src/domain/text.ts';
import { tutorInstructions } from '../src/tutor/prompt.ts';

describe('messages and titles', () => {
  it('counts characters, not UTF-16 units', () => {
    expect(charCount('😀я')).toBe(2);
    expect(messageProblem('😀'.repeat(8000))).toBeNull();
    expect(messageProblem('😀'.repeat(8001))).toEqual({ reason: 'too_long', length: 8001 });
    expect(messageProblem(' \n\t')).toEqual({ reason: 'empty', length: 3 });
    expect(messageProblem('')).toEqual({ reason: 'empty', length: 0 });
  });

  it('titles with the start of the first message, up to 80 characters', () => {
    expect(threadTitle('  Как объяснить\n дроби?  ')).toBe('Как объяснить дроби?');
    const exact = 'я'.repeat(80);
    expect(threadTitle(exact)).toBe(exact);
    const words = 'слово '.repeat(30);
    const title = threadTitle(words);
    expect([...title].length).toBeLessThanOrEqual(80);
    expect(title.endsWith('слово…')).toBe(true);
    const noSpaces = 'я'.repeat(200);
    expect(threadTitle(noSpaces)).toBe(`${'я'.repeat(79)}…`);
    expect([...threadTitle('😀'.repeat(100))].length).toBe(80);
  });

  it('recognizes uuids', () => {
    expect(isUuid('5f0c2b1a-7d3e-4f6a-9b8c-1d2e3f4a5b6c')).toBe(true);
    expect(isUuid('5f0c2b1a')).toBe(false);
  });
});

describe('the assistant', () => {
  it('holds the spec’s rules in its Russian system prompt', () => {
    expect(SYSTEM_PROMPT).toMatch(/на русском/);
    expect(SYSTEM_PROMPT).toMatch(/Markdown/);
    expect(SYSTEM_PROMPT).toContain('$a^2 + b^2 = c^2$');
    expect(SYSTEM_PROMPT).toContain('$$\\frac{a}{b} = \\frac{c}{d}$$');
    expect(SYSTEM_PROMPT).toMatch(/не открываешь файлы и ссылки/);
    expect(SYSTEM_PROMPT).toMatch(/только текстом/);
    expect(modelMessages([{ id: '1', role: 'user', content: 'Привет' }])).toEqual([
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: 'Привет' },
    ]);
  });

  it('tells the teacher how to connect a model when there is none', () => {
    expect(failureText('no_model')).toMatch(/AI_BASE_URL.*AI_MODEL.*AI_API_KEY/s);
  });
});

describe("the tutor's instructions", () => {
  const rules = { start: 'старт', quiz: 'квиз', closing: 'закрытие' };
  const first = (lesson: string, titles: { course: string | null; lesson: string | null }) =>
    tutorInstructions(lesson, titles, rules).split('\n\n')[1];

  it('name what the student opened by its titles; the id is only start_lesson’s argument', () => {
    expect(first('crs_1.batna', { course: 'Переговоры', lesson: 'Альтернатива' })).toBe(
      'Ученик открыл чат для урока «Альтернатива» курса «Переговоры». Начни занятие вызовом start_lesson с lesson="crs_1.batna", если занятие ещё не начато в этом разговоре.',
    );
    expect(first('crs_1', { course: 'Переговоры', lesson: null })).toMatch(
      /^Ученик открыл чат для курса «Переговоры»\. Начни занятие вызовом start_lesson с course="crs_1"/,
    );
    // A title not known is left out, never replaced by the id.
    expect(first('crs_1.batna', { course: null, lesson: null })).toMatch(/^Ученик открыл чат для урока\. Начни/);
  });
});
