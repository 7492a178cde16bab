import type { NoteState } from '../repositories/note.repository.ts';
import { findPlace, missingLabel, parseTarget } from './note-target.ts';
import type { ReleaseIndex } from './release-index.ts';

/**
 * How a note's place reads against the active release: the label in words when the place is
 * there; otherwise `missing: true` with the kind of place and its key. A note without a release
 * (the archive of earlier places) shows its address as is.
 */
export function notePlace(
  target: string,
  release: string | null,
  index: ReleaseIndex | null,
): { label: string; missing: boolean } {
  const parsed = release === null ? null : parseTarget(target);
  if (!parsed) return { label: target, missing: true };
  const place = index ? findPlace(index, parsed) : null;
  return place ? { label: place.label, missing: false } : { label: missingLabel(parsed), missing: true };
}

/** A note's state as reply_note and resolve_note return it. */
export function noteState(n: NoteState) {
  return { note: n.id, status: n.status, waiting_on: n.waiting_on, reply_count: n.reply_count };
}
