import { type Principal, RELEASE_FORMAT, type Release, type ReleaseLesson } from '@studium/contracts';

/** The curator of the chain courses (their releases name this login). */
export const CHAIN_CURATOR: Principal = {
  user: 'curator@chain',
  full_name: 'Вера Куратор',
  roles: ['Course Creator'],
  scope: 'write',
  space: 'personal',
};

/** A lesson with one required item; `quiz` — a required quiz of two questions with so many attempts. */
function lesson(key: string, title: string, opts: { quizAttempts?: number; homework?: boolean } = {}): ReleaseLesson {
  return {
    key,
    title,
    hook: `Зачин урока «${title}»`,
    objectives: [
      {
        key: `o-${key}`,
        text: `Цель урока «${title}»`,
        items: [
          { key: 'term:T1', kind: 'term', required: true, title: `Термин урока «${title}»`, details: 'Подробности' },
        ],
      },
    ],
    directive: '',
    material: '',
    section_hints: {},
    homework: opts.homework
      ? { description: 'Опишите, как применили урок', answer_mode: 'text', due_days: null }
      : null,
    quiz:
      opts.quizAttempts === undefined
        ? null
        : {
            required: true,
            pass_threshold: 1,
            attempts: opts.quizAttempts,
            pause_minutes: 0,
            questions: ['q1', 'q2'].map((q) => ({
              key: `${key}-${q}`,
              text: `Вопрос ${q} урока «${title}»`,
              objective: `o-${key}`,
              options: [
                { id: 'A', text: 'Верный вариант' },
                { id: 'B', text: 'Неверный вариант' },
              ],
              correct: 'A',
              explanation: 'Пояснение автора',
            })),
          },
  };
}

function course(key: string, title: string, lessons: ReleaseLesson[]): Release {
  return {
    format: RELEASE_FORMAT,
    course: {
      key,
      title,
      summary: `Курс «${title}»`,
      description: '',
      promise: `Обещание курса «${title}»`,
      curators: [CHAIN_CURATOR.user],
      frame: '',
      learn_about_student: [],
    },
    document: null,
    chapters: [{ key: 'main', title: 'Основное', description: '', lessons }],
  };
}

/**
 * The first course of an ordered program: three lessons, the last with a required quiz of a single
 * attempt (and a text homework) — the lesson a student can fail for good.
 */
export function firstCourse(key: string): Release {
  return course(key, 'Подготовка', [
    lesson('x1', 'Зачем готовиться'),
    lesson('x2', 'Интересы сторон'),
    lesson('x3', 'Итоговая проверка', { quizAttempts: 1, homework: true }),
  ]);
}

/** The second course of the program: two lessons without a quiz. */
export function secondCourse(key: string): Release {
  return course(key, 'Трудные переговоры', [lesson('y1', 'Давление'), lesson('y2', 'Ультиматумы')]);
}
