import { z } from 'zod';

/** The JetStream object store bucket of homework files (prefixed per deployment or test). */
export const HOMEWORK_FILES_BUCKET = 'homework_files';

/**
 * A file of store_homework_file as it crosses the bus. The edge puts the bytes of each well-formed
 * `{name, content}` entry into the object store and sends this instead of the base64 (a NATS message
 * stops at 1 MB); an entry that is not well-formed crosses as `{ invalid: true }` so the service
 * answers the spec's invalid_files, and an empty one with size 0 (file_missing). `head` is the first
 * bytes (base64) the service checks the type by.
 */
/** A file the edge put in the object store. */
export const StoredStagedFile = z.object({
  name: z.string(),
  object: z.string(),
  size: z.number().int(),
  sha256: z.string(),
  head: z.string(),
});
export type StoredStagedFile = z.infer<typeof StoredStagedFile>;

/** A file of store_homework_file on the bus: stored, or an entry that was not well-formed. */
export const StagedFile = z.union([StoredStagedFile, z.object({ invalid: z.literal(true) })]);
export type StagedFile = z.infer<typeof StagedFile>;

/** How many first bytes of a staged file travel as `head`. */
export const STAGED_HEAD_BYTES = 512;

// Line breaks, tabs and other C0/C1 controls become a space; format characters that change how a
// name reads without being seen are removed: bidi marks, embeddings, overrides and isolates
// (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069), zero-width ones (U+200B–U+200D,
// U+2060, U+FEFF). Line and paragraph separators are breaks too.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it replaces
const NAME_BREAKS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;
const NAME_INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

/**
 * A homework file's name as the platform keeps and shows it: Unicode NFC, no control or bidi
 * characters (a right-to-left override makes `отчёт\u202Efdp.exe` read as «отчётexe.pdf»), runs of
 * spaces as one, trimmed. '' when nothing is left: such an entry is not a file (invalid_files).
 */
export function cleanFileName(name: string): string {
  return name.normalize('NFC').replace(NAME_INVISIBLE, '').replace(NAME_BREAKS, ' ').replace(/\s+/g, ' ').trim();
}
