import { HOMEWORK_STATUSES, LIMITS, refuse } from '@studium/contracts';
import { CELL_LIMIT, ROW_LIMIT, type Section } from './domain/document.ts';
import type { HomeworkStatus } from './domain/homework.ts';

// Every refusal of the homework service: one function per spec code, with its Russian message.

// --- answers and files ---

/** lesson_not_found: no such lesson (bad id, or not in the course's active release). */
export function lessonNotFound(lesson: string) {
  return refuse('lesson_not_found', `Урока ${lesson} нет: возьмите идентификатор урока из course_outline`, { lesson });
}

/** no_homework: the lesson has no homework. */
export function noHomework(lesson: string) {
  return refuse('no_homework', 'У этого урока нет домашнего задания', { lesson });
}

/** accepted_locked: the homework was accepted; the answer is closed for edits. */
export function acceptedLocked(lesson: string) {
  return refuse('accepted_locked', 'Домашку уже приняли: правка закрыта', { lesson, status: 'Accepted' });
}

/** busy: the same submission is being saved by another request right now. */
export function busy(lesson: string) {
  return refuse('busy', 'Эту же сдачу в этот момент сохраняет другой запрос: повторите сдачу', { lesson });
}

/** answer_mode: the homework takes only files (upload_homework_file) or only text (submit_homework). */
export function answerMode(mode: 'files' | 'text') {
  return refuse(
    'answer_mode',
    mode === 'files'
      ? 'Это задание сдаётся только файлами: откройте окно upload_homework_file'
      : 'Это задание сдаётся только текстом: передайте ответ через submit_homework',
    { answer_mode: mode },
  );
}

/** answer_too_large: the text is over its limit, or the new files of one submission are over 30 MB. */
export function answerTooLarge(
  too: { text: number; limit: number } | { batchBytes: number } | { quota: number; used: number; adding: number },
) {
  if ('quota' in too) {
    const mb = Math.round(too.quota / 1024 / 1024);
    return refuse(
      'answer_too_large',
      `Место для файлов ученика — ${mb} МБ на все ответы, и оно почти занято: новые файлы не поместятся`,
      {
        quota: too.quota,
        used: too.used,
        size: too.adding,
      },
    );
  }
  if ('text' in too) {
    return refuse('answer_too_large', `Текст ответа длиннее ${too.limit} знаков: сократите его или сдайте файлом`, {
      limit: too.limit,
      length: too.text,
    });
  }
  return refuse('answer_too_large', 'За раз можно сдать не больше 30 МБ новых файлов: сдайте их частями', {
    size: too.batchBytes,
    limit: LIMITS.homeworkBatchBytes,
  });
}

/** empty_answer: neither text nor files. */
export function emptyAnswer(lesson: string) {
  return refuse('empty_answer', 'В ответе нет ни текста, ни файлов: напишите ответ', { lesson });
}

/** invalid_files: the staged file list did not come in its form. */
export function invalidFiles() {
  return refuse(
    'invalid_files',
    'Список файлов пришёл не в той форме: нужен список {name, content} с содержимым base64',
  );
}

/** file_missing: no files given, an empty file, or a file that did not reach the object store. */
export function fileMissing(problem: 'none' | { empty: string } | { lost: string }) {
  if (problem === 'none') return refuse('file_missing', 'Файлы не переданы: бросьте файлы в окно и нажмите «Сдать»');
  if ('empty' in problem) {
    return refuse('file_missing', `Файл ${problem.empty} пуст или не передан`, { name: problem.empty });
  }
  return refuse('file_missing', `Файл ${problem.lost} не дошёл до хранилища: сдайте его ещё раз`, {
    name: problem.lost,
  });
}

/** too_many_files: the answer would have more than ten files. */
export function tooManyFiles(existing: number, offered: number) {
  return refuse('too_many_files', `В ответе не больше ${LIMITS.homeworkFiles} файлов`, {
    limit: LIMITS.homeworkFiles,
    existing,
    offered,
  });
}

/** file_too_large: one file is over 10 MB. */
export function fileTooLarge(name: string, size: number) {
  return refuse('file_too_large', `Файл ${name} больше 10 МБ`, { name, size, limit: LIMITS.homeworkFileBytes });
}

/** file_rejected: the platform does not take this file (by its content). */
export function fileRejected(name: string, accepted: readonly string[]) {
  return refuse('file_rejected', `Файл ${name} платформа не принимает: подходят ${accepted.join(', ')}`, {
    name,
    accepted,
  });
}

// --- documents (update_artifact) ---

/** artifact_not_found: the course has no document with this key. */
export function artifactNotFound(artifact: string, artifacts: string[]) {
  return refuse('artifact_not_found', `В курсе нет документа ${artifact}: посмотрите перечень вызовом без artifact`, {
    artifact,
    artifacts,
  });
}

/** artifact_block_not_found: the document has no section with this key. */
export function artifactBlockNotFound(document: string, key: string, blocks: string[]) {
  return refuse('artifact_block_not_found', `В документе ${document} нет раздела ${key}`, { key, blocks });
}

/** artifact_too_many_rows: the section is over its row limit, or the whole document over its size. */
export function artifactTooManyRows(section: string, over: { rows: number } | { bytes: number; limitBytes: number }) {
  if ('rows' in over) {
    return refuse('artifact_too_many_rows', `В разделе ${section} не больше ${ROW_LIMIT} строк: удалите лишние`, {
      section,
      limit: ROW_LIMIT,
      rows: over.rows,
    });
  }
  return refuse('artifact_too_many_rows', 'Документ стал слишком большим: удалите лишние строки или сократите записи', {
    section,
    limit_bytes: over.limitBytes,
    bytes: over.bytes,
  });
}

/** artifact_clear_with_content: clear comes alone. */
export function artifactClearWithContent(section: string) {
  return refuse('artifact_clear_with_content', 'clear не передаётся вместе с rows, delete_rows или fields', {
    section,
  });
}

/** artifact_nothing_to_write: neither rows, delete_rows, fields nor clear. */
export function artifactNothingToWrite(section: string) {
  return refuse(
    'artifact_nothing_to_write',
    'Записывать нечего: передайте rows, delete_rows (раздел many), fields (раздел one) или clear',
    { section },
  );
}

/** artifact_wrong_section: rows for a one-section, or fields for a many-section. */
export function artifactWrongSection(section: Section) {
  const hint =
    section.rows === 'one'
      ? 'раздел one заполняется полями: fields'
      : 'раздел many ведётся строками: rows и delete_rows';
  return refuse('artifact_wrong_section', `Не тот вид записи для раздела ${section.key}: ${hint}`, {
    section: section.key,
    rows: section.rows,
  });
}

/**
 * artifact_invalid_value: a parameter not in its form (`param`), a cell that is neither text nor a
 * number, or a cell over CELL_LIMIT characters (`length`).
 */
export function artifactInvalidValue(
  problem: { param: string; expected: string } | { where: { column: string } | { field: string }; length?: number },
) {
  if ('param' in problem) {
    return refuse('artifact_invalid_value', `Параметр ${problem.param} не той формы: ожидается ${problem.expected}`, {
      param: problem.param,
    });
  }
  if (problem.length === undefined) {
    return refuse('artifact_invalid_value', 'Значение клетки — текст или число', { ...problem.where, max: CELL_LIMIT });
  }
  return refuse('artifact_invalid_value', `Значение длиннее ${CELL_LIMIT} знаков: сократите его`, {
    ...problem.where,
    max: CELL_LIMIT,
    length: problem.length,
  });
}

/** artifact_unknown_field: a one-section has no such field. */
export function artifactUnknownField(section: Section, name: string) {
  return refuse('artifact_unknown_field', `В разделе ${section.key} нет поля ${name}`, {
    field: name,
    fields: section.columns.map((c) => c.key),
  });
}

/** artifact_unknown_row: a many-section has no row with this id. */
export function artifactUnknownRow(section: string, id: string, rows: string[]) {
  return refuse('artifact_unknown_row', `В разделе ${section} нет строки ${id}`, { row: id, rows });
}

/** artifact_unknown_column: a many-section has no such column. */
export function artifactUnknownColumn(section: Section, name: string) {
  return refuse('artifact_unknown_column', `В разделе ${section.key} нет колонки ${name}`, {
    column: name,
    columns: section.columns.map((c) => c.key),
  });
}

// --- review ---

/** homework_status_unknown: homework_queue was given a status that does not exist. */
export function homeworkStatusUnknown(status: string | undefined) {
  return refuse('homework_status_unknown', `Статуса ${status} нет`, { status, allowed: HOMEWORK_STATUSES });
}

/** submission_not_found: no submission with this id. */
export function submissionNotFound(submission: string) {
  return refuse('submission_not_found', `Сдачи ${submission} нет: возьмите идентификатор из homework_queue`, {
    submission,
  });
}

/** invalid_transition: the curator's action does not fit the submission's status. */
export function invalidTransition(status: HomeworkStatus, allowed: HomeworkStatus[]) {
  const why: Record<HomeworkStatus, string> = {
    Assigned: 'ученик ещё не сдал домашку',
    Submitted: 'домашка сдана и ждёт проверки',
    Returned: 'домашка возвращена ученику на доработку',
    Accepted: 'домашка уже принята',
  };
  return refuse('invalid_transition', `Сейчас это сделать нельзя: ${why[status]}`, { status, allowed });
}

/** comment_required: returning or cancelling an acceptance needs a comment for the student. */
export function commentRequired() {
  return refuse('comment_required', 'Нужен комментарий: напишите ученику, что доработать', { where: 'comment' });
}
