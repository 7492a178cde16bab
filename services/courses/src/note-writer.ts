import { ok } from '@studium/contracts';
import type { WaitingOn } from './db.ts';
import { newId } from './domain/ids.ts';
import { findPlace, parseTarget } from './domain/note-target.ts';
import { indexRelease } from './domain/release-index.ts';
import { courseNotFound, courseNotReleased, invalidNote, invalidTarget, noteTargetUnknown } from './refusals.ts';
import type { Store } from './store.ts';

/** A note to write on a place of the active release. */
export interface NewNote {
  course: string;
  target: string;
  text: string;
  quote?: string | null;
  author: string;
  /** Who moves next: the curator (a question from the agent) or the agent (a note from the cabinet). */
  waiting_on: Exclude<WaitingOn, null>;
}

/**
 * Writes an open note on a place of the course's active release (add_note, and the author
 * cabinet through the admin). Refuses before any write: unknown course, no release, an address
 * not in the table's form (invalid_target), a place the release does not have, an empty text.
 */
export async function writeNote(s: Store, n: NewNote) {
  const course = await s.courses.find(n.course);
  if (!course) return courseNotFound(n.course);
  const active = await s.releases.active(n.course);
  if (!active) return courseNotReleased(n.course);
  const target = n.target.trim();
  const parsed = parseTarget(target);
  if (!parsed) return invalidTarget(target);
  const place = findPlace(indexRelease(active.content), parsed);
  if (!place) return noteTargetUnknown(target, active.id);
  const text = n.text.trim();
  if (!text) return invalidNote('empty_note');
  const note = {
    id: newId('note'),
    course: n.course,
    target,
    lesson_key: place.lesson_key,
    release: active.id,
    version: active.version,
    quote: n.quote?.trim() || null,
    text,
    author: n.author,
    status: 'open' as const,
    waiting_on: n.waiting_on,
  };
  await s.notes.insert(note);
  return ok({
    note: note.id,
    course: note.course,
    target,
    release: note.release,
    version: note.version,
    lesson_key: note.lesson_key,
    label: place.label,
    missing: false,
    status: note.status,
    waiting_on: note.waiting_on,
  });
}
