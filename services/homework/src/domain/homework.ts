import { homeworkDueRule, homeworkTask, type ReleaseLesson } from '@studium/contracts';

/** Status of a homework submission (spec 000, my_homework). */
export type HomeworkStatus = 'Assigned' | 'Submitted' | 'Returned' | 'Accepted';

/** What can happen to a submission; each is a journal event. */
export type HomeworkAction = 'assign' | 'submit' | 'return' | 'accept' | 'cancel_acceptance';

/** The journal event each action writes. */
export const JOURNAL_EVENT: Record<HomeworkAction, string> = {
  assign: 'assigned',
  submit: 'submitted',
  return: 'returned',
  accept: 'accepted',
  cancel_acceptance: 'acceptance_cancelled',
};

/** Statuses from which each curator action is allowed. */
export const ALLOWED_FROM: Record<Exclude<HomeworkAction, 'assign' | 'submit'>, HomeworkStatus[]> = {
  return: ['Submitted'],
  accept: ['Submitted'],
  cancel_acceptance: ['Accepted'],
};

/**
 * The status after an action, or null when the action is not allowed from the status (null
 * status: no submission yet). Assigning never lowers a submission the student already made: a
 * homework handed in before the lesson closed stays Submitted (spec: «тогда домашка сразу Submitted»).
 */
export function transition(status: HomeworkStatus | null, action: HomeworkAction): HomeworkStatus | null {
  switch (action) {
    case 'assign':
      return status ?? 'Assigned';
    case 'submit':
      return status === 'Accepted' ? null : 'Submitted';
    case 'return':
      return status === 'Submitted' ? 'Returned' : null;
    case 'accept':
      return status === 'Submitted' ? 'Accepted' : null;
    case 'cancel_acceptance':
      return status === 'Accepted' ? 'Returned' : null;
    default: {
      const never: never = action;
      throw new Error(`unknown action ${String(never)}`);
    }
  }
}

/** The due date of a homework: due_days after the lesson closed; null without a rule or before closing. */
export function dueAt(homework: ReleaseLesson['homework'], closedAt: string | null): string | null {
  if (!homework || homework.due_days === null || closedAt === null) return null;
  return new Date(new Date(closedAt).getTime() + homework.due_days * 86_400_000).toISOString();
}

/** Overdue is a flag, not a status: the due date passed and the student is expected to act (Assigned, Returned). */
export function isOverdue(status: HomeworkStatus, due: string | null, now: Date = new Date()): boolean {
  if (due === null) return false;
  return (status === 'Assigned' || status === 'Returned') && new Date(due).getTime() < now.getTime();
}

/** The due rule in words (HomeworkTask.due), worded by the shared function; null — no due date. */
export function dueRule(homework: NonNullable<ReleaseLesson['homework']>): string | null {
  return homeworkDueRule(homework.due_days);
}

/** The answer mode in words, as the student and the agent read it. */
export const ANSWER_MODE_TEXT = {
  text: 'text — только текст (submit_homework)',
  files: 'files — только файлы (upload_homework_file)',
  both: 'both — текст и/или файлы',
} as const;

/** The homework task as my_homework shows it: the shared wording of every tool (contracts). */
export { homeworkTask };
