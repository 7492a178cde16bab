import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { z } from 'zod';
import { Diagnostics, formatError } from './issues.ts';
import { KEY_PATTERN } from './schemas.ts';
import { YamlFile } from './yaml-file.ts';

const Key = z.string().regex(KEY_PATTERN, 'a key is latin letters, digits, "-" or "_"');
const Text = z.string().refine((s) => s.trim() !== '', 'must not be empty');

/** A program: a chain of courses (by course key); `ordered` — each course opens after the previous one is passed. */
export const Program = z.strictObject({
  key: Key,
  title: Text,
  description: z.string().optional(),
  ordered: z.boolean(),
  courses: z.array(Key).min(2, 'a program chains at least two courses'),
});
export type Program = z.infer<typeof Program>;

/** An announced course, before its first release: card and the objectives announce_course shows. */
export const Announcement = z.strictObject({
  /** The course key its first release will have (publish it with --attach to keep subscribers). */
  key: Key,
  title: Text,
  summary: Text,
  description: z.string().optional(),
  objectives: z.array(Text).min(1, 'an announcement needs at least one objective'),
});
export type Announcement = z.infer<typeof Announcement>;

async function readList<T extends { key: string }>(path: string, field: string, item: z.ZodType<T>): Promise<T[]> {
  const diag = new Diagnostics();
  const yaml = new YamlFile(basename(path), await readFile(path, 'utf8'), diag);
  const parsed = yaml.check(z.strictObject({ [field]: z.array(item) })) as Record<string, T[]> | null;
  const raw = yaml.get([field]);
  (Array.isArray(raw) ? raw : []).forEach((entry, i, all) => {
    const key = (entry as { key?: unknown } | null)?.key;
    if (typeof key !== 'string') return;
    if (all.findIndex((e) => (e as { key?: unknown } | null)?.key === key) !== i) {
      diag.error(yaml.at([field, i, 'key']), `duplicate key '${key}'`);
    }
  });
  if (diag.errors.length) throw new Error(diag.errors.map(formatError).join('\n'));
  return parsed?.[field] ?? [];
}

/** Reads programs.yaml (`programs: [...]`); throws with every located error. */
export function loadPrograms(path: string): Promise<Program[]> {
  return readList(path, 'programs', Program);
}

/** Reads announcements.yaml (`announcements: [...]`); throws with every located error. */
export function loadAnnouncements(path: string): Promise<Announcement[]> {
  return readList(path, 'announcements', Announcement);
}
