import {
  AssignmentChanged,
  CourseCardChanged,
  DocumentUpdated,
  Enrolled,
  events,
  GoalMarked,
  HomeworkChanged,
  LessonCovered,
  LessonFailed,
  LessonPassed,
  MembershipChanged,
  OrganizationChanged,
  parseLessonId,
  QuizAttemptCancelled,
  QuizAttemptFinished,
  SessionStarted,
  UserCreated,
  UserUpdated,
} from '@studium/contracts';
import type { EventEnvelope, Logger } from '@studium/platform';
import type { z } from 'zod';
import {
  type BatchRow,
  type BatchWriter,
  type ProjectionRepository,
  progressRow,
} from './repositories/projection.repository.ts';

type Apply = (repo: ProjectionRepository, data: unknown) => Promise<void>;
/** What an event writes in a set-based batch: rows for the batch writers. */
type Rows = (data: unknown) => Array<[BatchWriter, BatchRow]>;

function on<S extends z.ZodType>(
  schema: S,
  fn: (repo: ProjectionRepository, e: z.infer<S>) => Promise<void>,
  rows: (e: z.infer<S>) => Array<[BatchWriter, BatchRow]>,
) {
  return { schema, fn: fn as Apply, rows: rows as Rows };
}

/** The fields of a lessons.* event that the session rows take. */
type Place = { user: string; course: string; lesson: string; lesson_key: string; session: string; space: string };
const place = (e: Place & { organization: string | null }) => ({
  session: e.session,
  user_id: e.user,
  course: e.course,
  lesson: e.lesson,
  lesson_key: e.lesson_key,
  space: e.space,
  organization: e.organization,
});
const touch = (e: { user: string; course: string; at: string }): [BatchWriter, BatchRow] => [
  'touch',
  { user_id: e.user, course: e.course, at: e.at },
];
const user = (e: UserUpdated): Array<[BatchWriter, BatchRow]> => [
  ['user', { id: e.user, full_name: e.full_name, at: e.at }],
];
const homework = (e: HomeworkChanged): Array<[BatchWriter, BatchRow]> => [
  [
    'homework',
    {
      user_id: e.user,
      lesson: e.lesson,
      space: e.space,
      course: e.course,
      lesson_key: parseLessonId(e.lesson)?.key ?? e.lesson,
      organization: e.organization,
      status: e.status,
      version: e.version,
      due_at: e.due_at,
      at: e.at,
    },
  ],
  touch(e),
];
const sessionStatus = (
  e: Place & { organization: string | null; at: string },
  status: 'covered' | 'abandoned' | 'passed',
) => ['sessionStatus', { ...place(e), status, at: e.at }] as [BatchWriter, BatchRow];
const attempt = (
  e: Place & { organization: string | null; at: string; attempt: string; number: number },
  status: string,
  score: number,
  passed: boolean,
): Array<[BatchWriter, BatchRow]> => [
  ['attempt', { ...place(e), attempt: e.attempt, number: e.number, status, score, passed, at: e.at }],
  touch(e),
];
/**
 * The attempt a lesson_passed or lesson_failed carries (the answer that passed or failed the
 * lesson emits that one event since issue 32.4): the rows its quiz_attempt_finished wrote before.
 */
const verdict = (e: LessonPassed | LessonFailed): Array<[BatchWriter, BatchRow]> => {
  const v = e.quiz_attempt;
  return v ? attempt({ ...e, ...v }, v.passed ? 'Passed' : 'Failed', v.score, v.passed) : [];
};

/**
 * What each event the read models are built from does to them; the keys are the subjects. `fn`
 * writes one event (one statement per write); `rows` gives the same writes as rows of the
 * set-based batch writers (`BatchProjection`).
 *
 * Both shapes of the lesson loop's events apply, and give the same read models (issue 32.4; the
 * test is merged-events.test.ts): a covering mark as goal_marked with `lesson_covered` or, written
 * before, goal_marked then lesson_covered; a verdict that passed or failed the lesson inside
 * lesson_passed/lesson_failed (`quiz_attempt`) or, written before, as quiz_attempt_finished then
 * that event. Keep the old handlers while the stream holds older events: a rebuild replays them.
 */
const HANDLERS = {
  [events['enrollment.user_created'].subject]: on(UserCreated, (r, e) => r.user(e), user),
  [events['enrollment.user_updated'].subject]: on(UserUpdated, (r, e) => r.user(e), user),
  [events['enrollment.organization_changed'].subject]: on(
    OrganizationChanged,
    (r, e) => r.organization(e),
    (e) => [['organization', { name: e.organization, title: e.title, suspended: e.suspended, at: e.at }]],
  ),
  [events['enrollment.membership_changed'].subject]: on(
    MembershipChanged,
    (r, e) => r.membership(e),
    (e) => [['membership', { org: e.organization, user_id: e.user, role: e.role, at: e.at }]],
  ),
  [events['enrollment.enrolled'].subject]: on(
    Enrolled,
    (r, e) => r.enrolled(e),
    (e) => [
      [
        'enrolled',
        {
          user_id: e.user,
          course: e.course,
          space: e.space,
          organization: e.organization,
          self_enrolled: e.self_enrolled,
          at: e.at,
        },
      ],
    ],
  ),
  [events['enrollment.assignment_changed'].subject]: on(
    AssignmentChanged,
    (r, e) => r.assignment(e),
    (e) => [
      [
        'assignment',
        {
          user_id: e.user,
          course: e.course,
          space: e.space,
          organization: e.organization,
          mandatory: e.mandatory,
          deadline: e.deadline,
          at: e.at,
        },
      ],
    ],
  ),
  [events['courses.course_card_changed'].subject]: on(
    CourseCardChanged,
    (r, e) => r.course(e),
    (e) => {
      const lessons = e.lessons.map((l) => ({ id: l.id, key: l.key, title: l.title }));
      return [
        [
          'course',
          {
            course: e.course,
            revision: e.revision,
            title: e.title,
            lessons,
            lessons_total: lessons.length,
            document: e.document ?? null,
          },
        ],
      ];
    },
  ),
  [events['lessons.session_started'].subject]: on(
    SessionStarted,
    (r, e) => r.sessionStarted(e),
    (e) => [
      [
        'sessionStarted',
        { ...place(e), objectives: e.objectives.map((o) => ({ key: o.key, text: o.text })), at: e.at },
      ],
      // The session this one replaced is over.
      ...(e.abandoned ? [sessionStatus({ ...e, session: e.abandoned }, 'abandoned')] : []),
      touch(e),
    ],
  ),
  [events['lessons.goal_marked'].subject]: on(
    GoalMarked,
    (r, e) => r.goalMarked(e),
    (e) => [
      ['objective', { session: e.session, objective: e.objective, status: e.objective_status, at: e.at }],
      ...(e.lesson_covered ? [sessionStatus(e, 'covered')] : []),
      touch(e),
    ],
  ),
  // No longer emitted (goal_marked's `lesson_covered`): older events in the stream.
  [events['lessons.lesson_covered'].subject]: on(
    LessonCovered,
    (r, e) => r.sessionStatus(e, 'covered'),
    (e) => [sessionStatus(e, 'covered'), touch(e)],
  ),
  [events['lessons.lesson_passed'].subject]: on(
    LessonPassed,
    (r, e) => r.lessonPassed(e),
    (e) => [sessionStatus(e, 'passed'), touch(e), ['progress', progressRow(e)], ...verdict(e)],
  ),
  [events['lessons.lesson_failed'].subject]: on(
    LessonFailed,
    (r, e) => r.lessonFailed(e),
    (e) => [['progress', progressRow(e)], ...verdict(e)],
  ),
  [events['lessons.quiz_attempt_finished'].subject]: on(
    QuizAttemptFinished,
    (r, e) => r.attemptFinished(e),
    (e) => attempt(e, e.passed ? 'Passed' : 'Failed', e.score, e.passed),
  ),
  [events['lessons.quiz_attempt_cancelled'].subject]: on(
    QuizAttemptCancelled,
    (r, e) => r.attemptCancelled(e),
    (e) => attempt(e, 'Cancelled', 0, false),
  ),
  [events['homework.assigned'].subject]: on(HomeworkChanged, (r, e) => r.homework(e), homework),
  [events['homework.submitted'].subject]: on(HomeworkChanged, (r, e) => r.homework(e), homework),
  [events['homework.returned'].subject]: on(HomeworkChanged, (r, e) => r.homework(e), homework),
  [events['homework.accepted'].subject]: on(HomeworkChanged, (r, e) => r.homework(e), homework),
  [events['homework.acceptance_cancelled'].subject]: on(HomeworkChanged, (r, e) => r.homework(e), homework),
  [events['homework.document_updated'].subject]: on(
    DocumentUpdated,
    (r, e) => r.document(e),
    (e) => [
      [
        'document',
        {
          user_id: e.user,
          course: e.course,
          space: e.space,
          artifact: e.artifact,
          organization: e.organization,
          title: e.title,
          blocks_total: e.blocks_total,
          blocks_filled: e.blocks_filled,
          at: e.at,
        },
      ],
      touch(e),
    ],
  ),
} satisfies Record<string, { schema: z.ZodType; fn: Apply; rows: Rows }>;

/** The event subjects (without prefix) the read models are built from. */
export const PROJECTED_SUBJECTS: string[] = Object.keys(HANDLERS);

type Handler = (typeof HANDLERS)[keyof typeof HANDLERS];

/** The handler of an event, or null for an event the read models do not use. */
function handlerOf(event: EventEnvelope): Handler | null {
  return (HANDLERS as Record<string, Handler>)[event.type] ?? null;
}

/** The event's payload as its handler reads it, or null (logged) when it does not parse. */
function parse(handler: Handler, event: EventEnvelope, log: Logger): unknown {
  const parsed = handler.schema.safeParse(event.data);
  if (parsed.success) return parsed.data;
  log.error({ event: event.id, type: event.type, issues: parsed.error.issues }, 'reporting: malformed event skipped');
  return null;
}

/**
 * Why an event's payload cannot be applied (it fails its contract's schema: a publisher bug), or
 * null when it can, or when the read models do not take the event at all. The live consumer parks
 * such an event as a dead letter before it reaches a batch.
 */
export function malformedPayload(event: EventEnvelope): string | null {
  const handler = handlerOf(event);
  if (!handler) return null;
  const parsed = handler.schema.safeParse(event.data);
  if (parsed.success) return null;
  const fields = parsed.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`);
  return `malformed ${event.type} payload: ${fields.join('; ')}`;
}

/**
 * Applies one event to a generation (inside the caller's transaction): marks it processed, then
 * updates the read models, one statement per write. A redelivered event changes nothing; an event
 * with a payload that does not parse is logged and skipped (the live consumer parked it as a dead
 * letter before; a rebuild meets it again in the stream). Returns whether it applied.
 */
export async function applyEvent(repo: ProjectionRepository, event: EventEnvelope, log: Logger): Promise<boolean> {
  const handler = handlerOf(event);
  if (!handler) return false;
  if (!(await repo.markProcessed(event.id))) return false;
  const data = parse(handler, event, log);
  if (data === null) return false;
  await handler.fn(repo, data);
  return true;
}

/**
 * Writers of one table whose one-by-one writes do not commute on a shared key (the first insert
 * sets columns the other one only takes the least of): a batch is cut before an event that
 * would give such a key to the second writer.
 */
const FAMILY: Partial<Record<BatchWriter, (row: BatchRow) => string>> = {
  enrolled: (r) => `enrollments\u0000${r.user_id}\u0000${r.course}\u0000${r.space}`,
  assignment: (r) => `enrollments\u0000${r.user_id}\u0000${r.course}\u0000${r.space}`,
  sessionStarted: (r) => `sessions\u0000${r.session}`,
  sessionStatus: (r) => `sessions\u0000${r.session}`,
};

/**
 * Applies a batch in one transaction, set-based: the ids are marked processed in one statement,
 * and the events that were new are written with one statement per writer (table and kind of
 * write) for the whole batch (`BatchProjection`), which leaves the read models exactly as
 * applying the events one after another in this order would. Returns the events applied, in order.
 */
export async function applyEvents(
  repo: ProjectionRepository,
  batch: EventEnvelope[],
  log: Logger,
): Promise<EventEnvelope[]> {
  const ours = batch.filter((e) => handlerOf(e));
  const fresh = await repo.markManyProcessed([...new Set(ours.map((e) => e.id))]);
  const applied: EventEnvelope[] = [];
  const writers = repo.batch();
  let rows = new Map<BatchWriter, BatchRow[]>();
  // Which writer of a non-commuting pair holds each key in the current part of the batch.
  let claimed = new Map<string, BatchWriter>();
  for (const event of ours) {
    if (!fresh.delete(event.id)) continue;
    const handler = handlerOf(event) as Handler;
    const data = parse(handler, event, log);
    if (data === null) continue;
    const writes = handler.rows(data);
    const clash = writes.some(([w, row]) => {
      const key = FAMILY[w]?.(row);
      const holder = key === undefined ? undefined : claimed.get(key);
      return holder !== undefined && holder !== w;
    });
    if (clash) {
      await writers.write(rows);
      rows = new Map();
      claimed = new Map();
    }
    for (const [w, row] of writes) {
      const key = FAMILY[w]?.(row);
      if (key !== undefined) claimed.set(key, w);
      const list = rows.get(w);
      if (list) list.push(row);
      else rows.set(w, [row]);
    }
    applied.push(event);
  }
  await writers.write(rows);
  return applied;
}
