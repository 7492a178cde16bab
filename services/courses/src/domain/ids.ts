import { randomBytes } from 'node:crypto';

/** A new identifier: a short kind prefix and 16 random hex digits (`crs_`, `rel_`, `note_`). */
export function newId(prefix: 'crs' | 'rel' | 'note'): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}

/** Lesson ids are shared by every context: see `lessonId` in the contracts. */
export { lessonId } from '@studium/contracts';
