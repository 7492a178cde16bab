import {
  forget,
  lessonHistory,
  my_notes,
  NOTE_KINDS,
  ok,
  PROFILE_KEYS,
  remember,
  sessionCourse,
} from '@studium/contracts';
import { type Bus, type CallContext, endpoint, Failure, requireActsFor } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { KnowledgeDb } from '../db.ts';
import { noteView, orderByKeys } from '../domain/student-notes.ts';
import {
  noteKeyRequired,
  noteLimitReached,
  noteTextRequired,
  notYourSession,
  studentNoteNotFound,
  unknownNoteKind,
} from '../refusals.ts';
import { StudentNoteRepository } from '../repositories/student-note.repository.ts';

function caller(ctx: CallContext) {
  if (!ctx.principal) throw new Failure(401, 'no principal');
  return ctx.principal;
}

/** remember: a fact (every course) or a project/observation note (the session's course); a key replaces. */
export function rememberHandler(db: Kysely<KnowledgeDb>, bus: Bus, noteLimit: number) {
  return endpoint(remember, async (args, ctx) => {
    const who = caller(ctx);
    const kind = args.kind.trim();
    if (!(NOTE_KINDS as readonly string[]).includes(kind)) return unknownNoteKind(args.kind);
    const key = args.key.trim();
    if (!key) return noteKeyRequired();
    const text = args.text.trim();
    if (!text) return noteTextRequired();
    let course = '';
    let courseTitle = '';
    let objectives: unknown;
    if (kind !== 'fact') {
      if (!args.session) return notYourSession(undefined);
      // The student's signed principal goes along: lessons checks the session is theirs.
      const found = await bus.request(sessionCourse, who, { session: args.session, user: who.user });
      if (!found.ok || !found.data.found) return notYourSession(args.session);
      course = found.data.course;
      courseTitle = found.data.course_title;
      if (found.data.open) objectives = found.data.objectives;
    }
    return db.transaction().execute(async (trx) => {
      const repo = new StudentNoteRepository(trx);
      const exempt = kind === 'fact' ? PROFILE_KEYS : [];
      // The set's lock, whether the key exists and the keys counted: one statement.
      const { exists, used } = await repo.lockAndCount(who.user, course, key, exempt);
      if (!exists && !(exempt as readonly string[]).includes(key) && used >= noteLimit) {
        return noteLimitReached(noteLimit);
      }
      await repo.upsert(who.user, { key, kind: kind as 'fact', course, text, course_title: courseTitle });
      return ok({ key, kind, ...(objectives ? { objectives } : {}) } as { key: string; kind: string });
    });
  });
}

/** forget: deletes a fact (no course) or a project/observation note of the course. */
export function forgetHandler(db: Kysely<KnowledgeDb>) {
  return endpoint(forget, async (args, ctx) => {
    const who = caller(ctx);
    const key = args.key.trim();
    const course = args.course?.trim() || '';
    const kind = await new StudentNoteRepository(db).delete(who.user, course, key);
    if (!kind) return studentNoteNotFound(key, course || null);
    return ok({ key, kind, course: course || null });
  });
}

/** my_notes: facts; with course also its observations, project and projects of other courses while it has none. */
export function myNotesHandler(db: Kysely<KnowledgeDb>) {
  return endpoint(my_notes, async (args, ctx) => {
    const who = caller(ctx);
    const repo = new StudentNoteRepository(db);
    const facts = orderByKeys(await repo.facts(who.user), PROFILE_KEYS).map(noteView);
    const course = args.course?.trim();
    if (!course) return ok({ facts });
    const own = await repo.ofCourse(who.user, course);
    const project = own.filter((n) => n.kind === 'project').map(noteView);
    const observations = own.filter((n) => n.kind === 'observation').map(noteView);
    const elsewhere = project.length
      ? []
      : (await repo.projectsElsewhere(who.user, course)).map((n) => ({
          ...noteView(n),
          course: n.course,
          course_title: n.course_title,
        }));
    return ok({ facts, observations, project, projects_elsewhere: elsewhere });
  });
}

/** knowledge.lesson_history: facts and the course's notes, frame keys first (see the contract). */
export function lessonHistoryHandler(db: Kysely<KnowledgeDb>) {
  return endpoint(
    lessonHistory,
    async (args, ctx) => {
      // lessons passes on the student of its start_lesson.
      requireActsFor(ctx, args.user);
      const repo = new StudentNoteRepository(db);
      const frame = new Set(args.keys);
      const tag = (n: Awaited<ReturnType<StudentNoteRepository['facts']>>[number]) => ({
        ...noteView(n),
        kind: n.kind,
        course: n.course || null,
        frame: frame.has(n.key),
      });
      // Facts (course '') and the course's notes in one statement.
      const both = await repo.ofCourse(args.user, args.course, true);
      const facts = orderByKeys(
        both.filter((n) => n.course === ''),
        args.keys,
      ).map(tag);
      const course = orderByKeys(
        both.filter((n) => n.course !== ''),
        args.keys,
      ).map(tag);
      return ok({ notes: [...facts, ...course] });
    },
    { forwarded: true },
  );
}
