import { readFile } from 'node:fs/promises';
import { Release } from '@studium/contracts';
import { canonicalJson, digestOf } from './canonical.ts';

/** A release read back from a built JSON file, with its canonical JSON and digest recomputed. */
export type ReleaseFile =
  | { ok: true; release: Release; json: string; digest: string }
  | { ok: false; errors: string[] };

/** Reads a built release JSON (`release build --out`); checks it against the release schema. */
export async function readReleaseFile(path: string): Promise<ReleaseFile> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    return { ok: false, errors: [`${path}: not a JSON file: ${(err as Error).message}`] };
  }
  const parsed = Release.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      errors: parsed.error.issues.map((i) => `${path}: ${i.path.join('.') || '(root)'}: ${i.message}`),
    };
  }
  const json = canonicalJson(parsed.data);
  return { ok: true, release: parsed.data, json, digest: digestOf(json) };
}
