import type { Kysely } from 'kysely';
import type { CoursesDb } from './db.ts';
import { noteState } from './domain/note-view.ts';
import { writeNote } from './note-writer.ts';
import { type CoursesDeps, coursesDeps } from './store.ts';

/**
 * Administrative operations of the courses context: what the author cabinet and the importer do
 * outside the MCP tools (the demo seed and tests use them). They write the schema as the service does.
 */
export class CoursesAdmin {
  private readonly deps: CoursesDeps;

  constructor(db: Kysely<CoursesDb>) {
    this.deps = coursesDeps(db);
  }

  /** A curator's note from the cabinet on a place of the active release: the agent moves next. */
  async addNote(course: string, target: string, text: string, by: string, quote?: string) {
    const reply = await writeNote(this.deps.store, { course, target, text, quote, author: by, waiting_on: 'agent' });
    if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
    return reply.data;
  }

  /**
   * The curator's review of a note in the cabinet: accept closes it (waiting on nobody); return
   * reopens it with the curator's answer in the thread, and the agent moves next.
   */
  async reviewNote(note: string, decision: 'accept' | 'return', text: string, by = 'curator') {
    return this.deps.transaction(async (s) => {
      const current = await s.notes.lock(note);
      if (!current) throw new Error(`no such note: ${note}`);
      if (current.status === 'accepted') throw new Error(`note ${note} is already accepted`);
      if (decision === 'return' && !text.trim()) throw new Error('a returned note needs the curator’s answer');
      if (text.trim()) await s.notes.addReply(note, by, text.trim());
      const next =
        decision === 'accept'
          ? await s.notes.setState(note, 'accepted', null)
          : await s.notes.setState(note, 'open', 'agent');
      return noteState(next);
    });
  }

  /** Marks a course imported from the previous LMS as having lessons without a release. */
  async setLegacyLessons(course: string, count: number): Promise<void> {
    if (!Number.isInteger(count) || count < 0) throw new Error(`a lesson count is a whole number ≥ 0, not ${count}`);
    if (!(await this.deps.store.courses.setLegacyLessons(course, count))) throw new Error(`no such course: ${course}`);
  }
}
