import { RELEASE_FORMAT, type Release, type ReleaseLesson } from '@studium/contracts';

function lesson(key: string, title: string, homework: ReleaseLesson['homework']): ReleaseLesson {
  return {
    key,
    title,
    hook: `Зачин урока ${title}`,
    objectives: [
      {
        key: `o-${key}`,
        text: `Цель урока ${title}`,
        items: [{ key: 'term:T1', kind: 'term', required: true, title: 'Термин', details: 'Подробности' }],
      },
      {
        key: `p-${key}`,
        text: `Практика урока ${title}`,
        items: [
          { key: 'execution:E1', kind: 'execution', required: true, title: 'Упражнение', details: 'Подробности' },
          { key: 'choice:C1', kind: 'choice', required: false, title: 'Выбор', details: 'Подробности' },
        ],
      },
    ],
    directive: '',
    material: '',
    section_hints: {},
    homework,
    quiz: null,
  };
}

/**
 * A course for the homework tests (each lesson has two objectives: a required term, and practice
 * with a required and an optional item, so mark_goal can leave one covered and one touched): a document with a `many` section (required columns and an
 * if_column) collected in l-text and a `one` section (fields, with an if_column) in l-both; lessons
 * whose homework is answered by text (due in 7 days), by text or files, by files only, and one without homework.
 */
export function homeworkRelease(key: string, curators: string[]): Release {
  return {
    format: RELEASE_FORMAT,
    course: {
      key,
      title: 'Договорённости в команде',
      summary: 'Как договариваться и записывать договорённости',
      description: '',
      promise: 'Журнал договорённостей вашей команды',
      curators,
      frame: '',
      learn_about_student: [],
    },
    document: {
      key: 'agreements_log',
      title: 'Журнал договорённостей',
      purpose: 'Чтобы договорённости не терялись',
      sections: [
        {
          key: 'agreements',
          title: 'Договорённости',
          description: 'Что сюда записывают',
          lesson: 'l-text',
          rows: 'many',
          columns: [
            { key: 'topic', title: 'Тема', required: true },
            { key: 'driver', title: 'Ведущий', required: false },
            { key: 'area', title: 'Область', required: { if_column: 'driver' } },
          ],
        },
        {
          key: 'team',
          title: 'Команда',
          description: 'Кто в команде',
          lesson: 'l-both',
          rows: 'one',
          columns: [
            { key: 'lead', title: 'Лид', required: true },
            { key: 'size', title: 'Размер', required: false },
            { key: 'split', title: 'Как делится', required: { if_column: 'size' } },
          ],
        },
      ],
    },
    chapters: [
      {
        key: 'main',
        title: 'Основное',
        description: '',
        lessons: [
          lesson('l-text', 'Текстовая домашка', {
            description: 'Опишите договорённость',
            answer_mode: 'text',
            due_days: 7,
          }),
          lesson('l-both', 'Текст или файлы', {
            description: 'Приложите протокол',
            answer_mode: 'both',
            due_days: null,
          }),
          lesson('l-files', 'Только файлы', { description: 'Приложите файлы', answer_mode: 'files', due_days: 3 }),
          lesson('l-none', 'Без домашки', null),
        ],
      },
    ],
  };
}
