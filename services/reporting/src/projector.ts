import {
  AssignmentChanged,
  CourseCardChanged,
  DocumentUpdated,
  Enrolled,
  events,
  GoalMarked,
  HomeworkChanged,
  LessonCovered,
  LessonPassed,
  MembershipChanged,
  OrganizationChanged,
  QuizAttemptCancelled,
  QuizAttemptFinished,
  SessionStarted,
  UserCreated,
  UserUpdated,
} from '@studium/contracts';
import type { EventEnvelope, Logger } from '@studium/platform';
import type { z } from 'zod';
import type { ProjectionRepository } from './repositories/projection.repository.ts';

type Apply = (repo: ProjectionRepository, data: unknown) => Promise<void>;

function on<S extends z.ZodType>(schema: S, fn: (repo: ProjectionRepository, e: z.infer<S>) => Promise<void>) {
  return { schema, fn: fn as (repo: ProjectionRepository, e: unknown) => Promise<void> };
}

/** What each event the read models are built from does to them; the keys are the subjects. */
const HANDLERS = {
  [events['enrollment.user_created'].subject]: on(UserCreated, (r, e) => r.user(e)),
  [events['enrollment.user_updated'].subject]: on(UserUpdated, (r, e) => r.user(e)),
  [events['enrollment.organization_changed'].subject]: on(OrganizationChanged, (r, e) => r.organization(e)),
  [events['enrollment.membership_changed'].subject]: on(MembershipChanged, (r, e) => r.membership(e)),
  [events['enrollment.enrolled'].subject]: on(Enrolled, (r, e) => r.enrolled(e)),
  [events['enrollment.assignment_changed'].subject]: on(AssignmentChanged, (r, e) => r.assignment(e)),
  [events['courses.course_card_changed'].subject]: on(CourseCardChanged, (r, e) => r.course(e)),
  [events['lessons.session_started'].subject]: on(SessionStarted, (r, e) => r.sessionStarted(e)),
  [events['lessons.goal_marked'].subject]: on(GoalMarked, (r, e) => r.goalMarked(e)),
  [events['lessons.lesson_covered'].subject]: on(LessonCovered, (r, e) => r.sessionStatus(e, 'covered')),
  [events['lessons.lesson_passed'].subject]: on(LessonPassed, (r, e) => r.lessonPassed(e)),
  [events['lessons.quiz_attempt_finished'].subject]: on(QuizAttemptFinished, (r, e) => r.attemptFinished(e)),
  [events['lessons.quiz_attempt_cancelled'].subject]: on(QuizAttemptCancelled, (r, e) => r.attemptCancelled(e)),
  [events['homework.assigned'].subject]: on(HomeworkChanged, (r, e) => r.homework(e)),
  [events['homework.submitted'].subject]: on(HomeworkChanged, (r, e) => r.homework(e)),
  [events['homework.returned'].subject]: on(HomeworkChanged, (r, e) => r.homework(e)),
  [events['homework.accepted'].subject]: on(HomeworkChanged, (r, e) => r.homework(e)),
  [events['homework.acceptance_cancelled'].subject]: on(HomeworkChanged, (r, e) => r.homework(e)),
  [events['homework.document_updated'].subject]: on(DocumentUpdated, (r, e) => r.document(e)),
} satisfies Record<string, { schema: z.ZodType; fn: Apply }>;

/** The event subjects (without prefix) the read models are built from. */
export const PROJECTED_SUBJECTS: string[] = Object.keys(HANDLERS);

/**
 * Why an event's payload cannot be applied (it fails its contract's schema: a publisher bug), or
 * null when it can, or when the read models do not take the event at all. The live consumer parks
 * such an event as a dead letter before it reaches a batch.
 */
export function malformedPayload(event: EventEnvelope): string | null {
  const handler = HANDLERS[event.type as keyof typeof HANDLERS];
  if (!handler) return null;
  const parsed = handler.schema.safeParse(event.data);
  if (parsed.success) return null;
  const fields = parsed.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`);
  return `malformed ${event.type} payload: ${fields.join('; ')}`;
}

/**
 * Applies one event to a generation (inside the caller's transaction): marks it processed, then
 * updates the read models. A redelivered event changes nothing; an event with a payload that does
 * not parse is logged and skipped (the live consumer parked it as a dead letter before; a rebuild
 * meets it again in the stream). Returns whether it applied.
 */
export async function applyEvent(
  repo: ProjectionRepository,
  event: EventEnvelope,
  log: Logger,
  /** Set when the caller marked a batch processed in one statement ({@link applyEvents}). */
  marked?: boolean,
): Promise<boolean> {
  const handler = HANDLERS[event.type as keyof typeof HANDLERS];
  if (!handler) return false;
  if (!marked && !(await repo.markProcessed(event.id))) return false;
  const parsed = handler.schema.safeParse(event.data);
  if (!parsed.success) {
    log.error({ event: event.id, type: event.type, issues: parsed.error.issues }, 'reporting: malformed event dropped');
    return false;
  }
  await handler.fn(repo, parsed.data);
  return true;
}

/**
 * Applies a batch in one transaction: the ids are marked processed in one statement, and only the
 * events that were new change the read models. Returns the events applied, in order.
 */
export async function applyEvents(
  repo: ProjectionRepository,
  batch: EventEnvelope[],
  log: Logger,
): Promise<EventEnvelope[]> {
  const ours = batch.filter((e) => e.type in HANDLERS);
  const fresh = await repo.markManyProcessed([...new Set(ours.map((e) => e.id))]);
  const applied: EventEnvelope[] = [];
  for (const event of ours) {
    if (!fresh.delete(event.id)) continue;
    if (await applyEvent(repo, event, log, true)) applied.push(event);
  }
  return applied;
}
