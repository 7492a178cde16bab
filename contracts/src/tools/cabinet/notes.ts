import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { defineTool, WRITE, WRITE_IDEMPOTENT } from '../../tool.ts';
import { CuratorNote, NoteState } from '../shapes.ts';

// The curator's own half of the notes (spec 000, «кабинет автора»): a person's actions, served
// only to the cabinet pages, never on /authoring (an agent must not accept its own work).

/** write_note: the curator's note on a place of the active release; the agent moves next. */
export const write_note = defineTool({
  name: 'write_note',
  surface: 'cabinet',
  service: 'courses',
  title: 'Заметка куратора',
  description:
    'Заметка куратора на месте действующего релиза (ключ места — как у add_note), с цитатой. ' +
    'Ход переходит к агенту: заметка открыта и ждёт его (waiting_on: agent). ' +
    'Отказы: invalid_target, note_target_unknown, course_not_released, course_not_found, invalid_note.',
  input: z.object({
    course: z.string(),
    target: z.string(),
    text: z.string().max(INPUT_LIMITS.text),
    quote: z.string().max(INPUT_LIMITS.summary).optional(),
  }),
  output: CuratorNote,
  annotations: WRITE,
  refusals: ['course_not_found', 'course_not_released', 'invalid_target', 'note_target_unknown', 'invalid_note'],
});

/** The curator's moves on a note in the cabinet. */
export const NOTE_REVIEW_ACTIONS = ['reply', 'accept', 'return'] as const;

/**
 * review_note: the curator answers in the thread (reply: the agent moves next), accepts the work
 * (accepted, waiting on nobody) or returns it (open again with the answer, the agent moves next).
 */
export const review_note = defineTool({
  name: 'review_note',
  surface: 'cabinet',
  service: 'courses',
  title: 'Ответить, принять или вернуть заметку',
  description:
    'reply — ответ в нити, ход агента; accept — принять сделанное (accepted, никого не ждёт); ' +
    'return — вернуть с ответом: заметка снова открыта в course_notes и ждёт агента. ' +
    'Отказы: note_not_found; invalid_transition — заметка уже принята, return без ответа или reply пуст.',
  input: z.object({
    note: z.string(),
    action: z.enum(NOTE_REVIEW_ACTIONS),
    text: z.string().max(INPUT_LIMITS.text).optional(),
  }),
  output: NoteState,
  annotations: WRITE_IDEMPOTENT,
  refusals: ['note_not_found', 'invalid_transition'],
});
