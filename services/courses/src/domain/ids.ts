import { randomBytes } from 'node:crypto';

/** A new identifier: a short kind prefix and 16 random hex digits (`crs_`, `rel_`, `note_`). */
export function newId(prefix: 'crs' | 'rel' | 'note'): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}

/**
 * The stable id of a lesson of a course: `<course id>.<lesson key>`. Lesson keys are chosen by the
 * author and survive new releases, so the id does too (the lesson's runs stay attached to it).
 */
export function lessonId(course: string, lessonKey: string): string {
  return `${course}.${lessonKey}`;
}
