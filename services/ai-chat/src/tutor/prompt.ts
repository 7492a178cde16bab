import { studentTools, TUTOR_TOOLS, type TutorTool } from '@studium/contracts';
import { z } from 'zod';
import type { ModelTool } from '../model/model.ts';
import type { LessonTitles } from './repository.ts';

/**
 * The tools the tutor's model is offered, with the contracts' descriptions and JSON schemas: the
 * same route and the same wording as a student's own agent gets at /mcp. Computed once: the
 * contracts are code.
 */
export const TUTOR_MODEL_TOOLS: ModelTool[] = studentTools
  .filter((t) => (TUTOR_TOOLS as readonly string[]).includes(t.name))
  .map((t) => {
    const { $schema: _drop, ...parameters } = z.toJSONSchema(t.input, { io: 'input' }) as Record<string, unknown>;
    return { name: t.name, description: t.description, parameters };
  });

/** The three rule packs as lessons serves them. */
export interface TeachingRules {
  start: string;
  quiz: string;
  closing: string;
}

/**
 * The tutor's system instructions: who it is, what it works with, the web chat's own rules, and
 * the three teaching-rule packs (spec 000: in the web chat they stand here, not in tool replies).
 */
export function tutorInstructions(lesson: string, titles: LessonTitles, rules: TeachingRules): string {
  return [
    'Ты — репетитор платформы Studium и ведёшь занятие с учеником в веб-чате платформы. Пиши по-русски, коротко, по одной мысли за реплику; формулы — в LaTeX между $…$ или $$…$$.',
    `${opened(lesson, titles)} Начни занятие вызовом start_lesson с ${lesson.includes('.') ? 'lesson' : 'course'}="${lesson}", если занятие ещё не начато в этом разговоре.`,
    'Занятие идёт по инструментам платформы: start_lesson, lesson_item, mark_goal, request_quiz, submit_answer, complete_lesson, update_artifact, remember, report_issue, choose. Других инструментов нет; заполнение документа целиком (fill_document) веб-чат не ведёт — его делают со своим агентом или на странице документа.',
    'choose рисует кнопки на странице: после вызова закончи реплику и жди — нажатая кнопка придёт репликой ученика.',
    'Вопрос квиза страница показывает ученику целиком сама; ответ ученика придёт его следующей репликой. Ответ на вопрос, выданный в этом ходе, передавай submit_answer только в следующем ходе, после реплики ученика: в том же ходе платформа его не примет.',
    'Отказ инструмента приходит результатом с полем error (code, message): прочитай его и поступи, как он велит, не повторяя тот же вызов.',
    rules.start,
    rules.quiz,
    rules.closing,
  ].join('\n\n');
}

/**
 * What the student opened, by its titles (the id is only start_lesson's argument): «урок „…“
 * курса „…“» or «курс „…“»; a title not known is left out rather than replaced by the id.
 */
function opened(lesson: string, titles: LessonTitles): string {
  const course = titles.course ? ` «${titles.course}»` : '';
  if (!lesson.includes('.')) return `Ученик открыл чат для курса${course}.`;
  return `Ученик открыл чат для урока${titles.lesson ? ` «${titles.lesson}»` : ''}${course ? ` курса${course}` : ''}.`;
}

/** Whether a tool name is one the tutor may call. */
export function isTutorTool(name: string): name is TutorTool {
  return (TUTOR_TOOLS as readonly string[]).includes(name);
}
