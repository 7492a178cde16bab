import { refuse } from '@studium/contracts';
import type { HomeworkStatus } from './domain/homework.ts';

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

/** artifact_not_found: the course has no document with this key. */
export function artifactNotFound(artifact: string, artifacts: string[]) {
  return refuse('artifact_not_found', `В курсе нет документа ${artifact}: посмотрите перечень вызовом без artifact`, {
    artifact,
    artifacts,
  });
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
