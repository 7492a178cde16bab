import type { Release, ReleaseWarning } from '@studium/contracts';

/** A release warning and the field it is about (`<place>#<field>`, to find it in the map). */
export type FieldWarning = ReleaseWarning & { field: string };

function empty(out: FieldWarning[], text: string, place: string, field: string, message: string): void {
  if (text.trim() === '') out.push({ code: 'empty_student_text', place, message, field: `${place}#${field}` });
}

/**
 * The spec's release warnings, computed from the release alone (so the courses service can compute
 * the same ones): empty student-facing text and a question without explanation. An empty course
 * description is not warned about: the course page then shows the summary (as create_course does). `place` is a note
 * place of the spec (`course`, `chapter.<key>`, `lesson.<key>`, `section.<key>`, `question.<key>`).
 */
export function fieldWarnings(release: Release): FieldWarning[] {
  const out: FieldWarning[] = [];
  const c = release.course;
  empty(
    out,
    c.summary,
    'course',
    'summary',
    'Пустое краткое описание курса: карточка в каталоге останется без текста.',
  );
  empty(
    out,
    c.promise,
    'course',
    'promise',
    'Пустое обещание курса: на первом уроке агенту нечего сказать о том, что ученик получит.',
  );
  const doc = release.document;
  if (doc) {
    empty(out, doc.purpose, 'course', 'document.purpose', `Не сказано, зачем ученику документ «${doc.title}».`);
    for (const s of doc.sections) {
      empty(
        out,
        s.description,
        `section.${s.key}`,
        'description',
        `Пустое описание раздела «${s.title}»: ученик не увидит, что в него записывать.`,
      );
    }
  }
  for (const ch of release.chapters) {
    empty(out, ch.description, `chapter.${ch.key}`, 'description', `Пустое описание главы «${ch.title}».`);
    for (const l of ch.lessons) {
      empty(
        out,
        l.hook,
        `lesson.${l.key}`,
        'hook',
        `Пустой зачин урока «${l.title}»: агент начнёт урок без вступления.`,
      );
      for (const q of l.quiz?.questions ?? []) {
        if (q.explanation.trim() === '') {
          out.push({
            code: 'question_without_explanation',
            place: `question.${q.key}`,
            message: `Вопрос «${q.key}» урока «${l.title}» без пояснения: ошибившийся ученик не узнает, почему верен другой ответ.`,
            field: `question.${q.key}#explanation`,
          });
        }
      }
    }
  }
  return out;
}

/** The release warnings as publish returns them: `{code, place, message}`. */
export function releaseWarnings(release: Release): ReleaseWarning[] {
  return fieldWarnings(release).map(({ code, place, message }) => ({ code, place, message }));
}
