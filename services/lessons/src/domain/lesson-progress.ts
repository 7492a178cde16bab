import type { ReleaseLesson } from '@studium/contracts';

/** Status of an item as mark_goal sets it. */
export type GoalStatus = 'open' | 'done' | 'planned' | 'not_needed';
/** Status of an objective by its items. */
export type ObjectiveStatus = 'not_started' | 'touched' | 'covered';
/** Status of a lesson run; it only moves forward. */
export type RunStatus = 'not_started' | 'in_progress' | 'covered' | 'passed';

export const RUN_ORDER: readonly RunStatus[] = ['not_started', 'in_progress', 'covered', 'passed'];

/** The latest mark of an item. */
export interface Mark {
  goal: string;
  objective: string;
  status: GoalStatus;
  evidence: string | null;
  session_id: string;
  marked_at: string;
}

/** An item that blocks the quiz or complete_lesson. */
export type OpenGoal = {
  objective: string;
  goal: string;
  title: string;
};

export type GoalView = {
  key: string;
  kind: string;
  required: boolean;
  title: string;
  status: GoalStatus;
};

export type ObjectiveView = {
  key: string;
  text: string;
  status: ObjectiveStatus;
  goals: GoalView[];
};

/** What follows: the next open required item, the quiz, complete_lesson, or nothing (passed). */
export type NextStep =
  | { kind: 'goal'; objective: string; goal: string; title: string }
  | { kind: 'quiz' }
  | { kind: 'complete' }
  | null;

/** An item closes its requirement when done or planned; not_needed only skips an optional one. */
export function closes(status: GoalStatus | undefined): boolean {
  return status === 'done' || status === 'planned';
}

/**
 * The objective's status: covered when every required item is done or planned; an objective
 * without required items is covered once any of its items is marked (not open). touched — some
 * item is marked but the objective is not covered; not_started — nothing marked.
 */
export function objectiveStatus(
  items: ReadonlyArray<{ key: string; required: boolean }>,
  marks: ReadonlyMap<string, Mark>,
): ObjectiveStatus {
  const marked = items.filter((i) => {
    const s = marks.get(i.key)?.status;
    return s !== undefined && s !== 'open';
  });
  const required = items.filter((i) => i.required);
  const covered =
    required.length > 0 ? required.every((i) => closes(marks.get(i.key)?.status)) : marked.length > 0 || !items.length;
  if (covered) return 'covered';
  return marked.length > 0 ? 'touched' : 'not_started';
}

/** The lesson map: objectives in order with statuses and their items (only those of this release). */
export function lessonMap(lesson: ReleaseLesson, marks: ReadonlyMap<string, Mark>): ObjectiveView[] {
  return lesson.objectives.map((o) => ({
    key: o.key,
    text: o.text,
    status: objectiveStatus(o.items, marks),
    goals: o.items.map((i) => ({
      key: i.key,
      kind: i.kind,
      required: i.required,
      title: i.title,
      status: marks.get(i.key)?.status ?? 'open',
    })),
  }));
}

/** Required items not closed yet, in lesson order. */
export function openGoals(lesson: ReleaseLesson, marks: ReadonlyMap<string, Mark>): OpenGoal[] {
  const open: OpenGoal[] = [];
  for (const o of lesson.objectives) {
    for (const i of o.items) {
      if (i.required && !closes(marks.get(i.key)?.status)) open.push({ objective: o.key, goal: i.key, title: i.title });
    }
  }
  return open;
}

/** Every objective is covered. */
export function lessonCovered(lesson: ReleaseLesson, marks: ReadonlyMap<string, Mark>): boolean {
  return lesson.objectives.every((o) => objectiveStatus(o.items, marks) === 'covered');
}

/** The lesson's quiz must be passed to close it. */
export function quizRequired(lesson: ReleaseLesson): boolean {
  return (lesson.quiz?.required ?? false) && (lesson.quiz?.questions.length ?? 0) > 0;
}

/**
 * The next step as data; none when the lesson is passed, or when its required quiz has no attempt
 * left (`exhausted`: the lesson cannot be passed any more, see docs/decisions.md).
 */
export function nextStep(
  lesson: ReleaseLesson,
  marks: ReadonlyMap<string, Mark>,
  passed: boolean,
  exhausted = false,
): NextStep {
  if (passed || exhausted) return null;
  const [first] = openGoals(lesson, marks);
  if (first) return { kind: 'goal', ...first };
  return quizRequired(lesson) ? { kind: 'quiz' } : { kind: 'complete' };
}

/**
 * The run's status after a change: the status the marks give, never below the current one (a
 * re-opened item does not take a covered lesson back; a passed lesson stays passed).
 */
export function advanceRun(current: RunStatus, lesson: ReleaseLesson, marks: ReadonlyMap<string, Mark>): RunStatus {
  const anyMarked = [...marks.values()].some((m) => m.status !== 'open');
  const byMarks: RunStatus =
    lessonCovered(lesson, marks) && anyMarked ? 'covered' : anyMarked ? 'in_progress' : current;
  return maxStatus(current, byMarks);
}

/** The later of two run statuses. */
export function maxStatus(a: RunStatus, b: RunStatus): RunStatus {
  return RUN_ORDER.indexOf(a) >= RUN_ORDER.indexOf(b) ? a : b;
}

/** Finds an item of the lesson with its objective; null when the lesson has no such item. */
export function findItem(lesson: ReleaseLesson, goal: string) {
  for (const o of lesson.objectives) {
    const item = o.items.find((i) => i.key === goal);
    if (item) return { objective: o, item };
  }
  return null;
}

/** Every item key of the lesson, in order. */
export function goalKeys(lesson: ReleaseLesson): string[] {
  return lesson.objectives.flatMap((o) => o.items.map((i) => i.key));
}
