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
