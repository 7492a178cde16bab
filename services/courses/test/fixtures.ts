import { createHash } from 'node:crypto';
import { type Principal, RELEASE_FORMAT, type Release } from '@studium/contracts';
import { canonicalJson } from '../src/domain/canonical.ts';

/** A curator (author role) as the edge would send them. */
export const curator: Principal = {
  user: 'curator@test',
  full_name: 'Кира Куратор',
  roles: ['Course Creator'],
  scope: 'write',
  space: 'personal',
};

/** A student: no author role. */
export const student: Principal = {
  user: 'student@test',
  full_name: 'Анна Ученица',
  roles: ['Student'],
  scope: 'write',
  space: 'personal',
};

/**
 * A small valid release: two chapters, three lessons (l-1 with a quiz, l-2 with homework, l-3),
 * a document with two sections. Deliberately one warning: the question q-2 has no explanation.
 */
export function sampleRelease(key = 'negotiations'): Release {
  return {
    format: RELEASE_FORMAT,
    course: {
      key,
      title: 'Переговоры для руководителей',
      summary: 'Как готовить сложный разговор и доводить его до договорённости',
      description: 'Курс о подготовке к сложным разговорам с командой.',
      promise: 'К концу курса у вас будет план разговора, который вы проведёте на этой неделе.',
      curators: ['curator@test', 'lead@test'],
      frame: 'Ты ведёшь курс для руководителей групп. Говори коротко.',
      learn_about_student: [{ key: 'team_size', kind: 'fact', ask: 'Сколько человек в команде?' }],
    },
    document: {
      key: 'plan',
      title: 'План разговора',
      purpose: 'Опора для настоящего разговора',
      sections: [
        {
          key: 'goals',
          title: 'Цели разговора',
          description: 'Чего вы хотите добиться',
          lesson: 'l-1',
          rows: 'many',
          columns: [{ key: 'goal', title: 'Цель', required: true }],
        },
        {
          key: 'next',
          title: 'Следующий шаг',
          description: 'О чём договорились',
          lesson: null,
          rows: 'one',
          columns: [{ key: 'step', title: 'Шаг', required: false }],
        },
      ],
    },
    chapters: [
      {
        key: 'prepare',
        title: 'Подготовить разговор',
        description: 'Цели и рамка',
        lessons: [
          {
            key: 'l-1',
            title: 'Цель разговора',
            hook: 'Вспомните разговор, который пошёл не так.',
            objectives: [
              {
                key: 'o-1',
                text: 'Сформулировать цель разговора',
                items: [
                  {
                    key: 'term:T1',
                    kind: 'term',
                    required: true,
                    title: 'Цель и позиция',
                    details: 'Разведи цель и позицию.',
                  },
                  {
                    key: 'choice:C1',
                    kind: 'choice',
                    required: false,
                    title: 'Выбор формата',
                    details: 'Очно или письменно.',
                  },
                ],
              },
            ],
            directive: 'Начни с истории ученика.',
            material: 'Цель — то, что должно измениться после разговора.',
            section_hints: { goals: 'Запиши одну-две цели.' },
            homework: null,
            quiz: {
              required: true,
              pass_threshold: 0.5,
              attempts: 3,
              pause_minutes: 10,
              questions: [
                {
                  key: 'q-1',
                  text: 'Что такое цель разговора?',
                  objective: 'o-1',
                  options: [
                    { id: 'a', text: 'То, что изменится после разговора' },
                    { id: 'b', text: 'То, что я скажу первым' },
                  ],
                  correct: 'a',
                  explanation: 'Цель — про результат, а не про реплики.',
                },
                {
                  key: 'q-2',
                  text: 'Позиция — это цель?',
                  objective: 'o-1',
                  options: [
                    { id: 'a', text: 'Да' },
                    { id: 'b', text: 'Нет' },
                  ],
                  correct: 'b',
                  explanation: '',
                },
              ],
            },
          },
          {
            key: 'l-2',
            title: 'Рамка разговора',
            hook: 'Как не дать разговору уйти в сторону?',
            objectives: [
              {
                key: 'o-2',
                text: 'Удержать рамку',
                items: [
                  {
                    key: 'execution:E1',
                    kind: 'execution',
                    required: true,
                    title: 'Вернуть к теме',
                    details: 'Практика.',
                  },
                ],
              },
            ],
            directive: 'Разыграй сцену.',
            material: 'Рамка — тема, время и роли.',
            section_hints: {},
            homework: { description: 'Проведите разговор и опишите его.', answer_mode: 'text', due_days: 7 },
            quiz: null,
          },
        ],
      },
      {
        key: 'agree',
        title: 'Договориться о следующем шаге',
        description: 'Итог разговора',
        lessons: [
          {
            key: 'l-3',
            title: 'Следующий шаг',
            hook: 'Чем заканчивается хороший разговор?',
            objectives: [
              {
                key: 'o-3',
                text: 'Договориться о шаге',
                items: [
                  {
                    key: 'misconception:M1',
                    kind: 'misconception',
                    required: true,
                    title: 'Договорились = согласились',
                    details: 'Разбери ошибку.',
                  },
                ],
              },
            ],
            directive: 'Закрой курс.',
            material: 'Шаг — кто, что и когда.',
            section_hints: { next: 'Запиши шаг.' },
            homework: null,
            quiz: null,
          },
        ],
      },
    ],
  };
}

/** The release's digest as the pipeline computes it: SHA-256 of the canonical JSON (sorted keys). */
export function digestOf(release: Release): string {
  return createHash('sha256').update(canonicalJson(release)).digest('hex');
}
