import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The demo course maps shipped in examples/. */
export const EXAMPLES = resolve(import.meta.dirname, '../../../examples');
export const BASICS = join(EXAMPLES, 'negotiation-basics');
export const ADVANCED = join(EXAMPLES, 'negotiation-advanced');

const made: string[] = [];

/** A fresh temp folder (removed by removeTemps). */
export async function tempDir(label = 'map'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `studium-release-${label}-`));
  made.push(dir);
  return dir;
}

/** A copy of a demo map in a temp folder, to break on purpose. */
export async function copyMap(source = BASICS): Promise<string> {
  const dir = join(await tempDir(), 'map');
  await cp(source, dir, { recursive: true });
  return dir;
}

/** Rewrites one file of a map: `replace` must find `from` exactly (so a test never edits nothing). */
export async function edit(dir: string, file: string, from: string | RegExp, to: string): Promise<void> {
  const path = join(dir, file);
  const text = await readFile(path, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`edit of ${file}: '${from}' not found`);
  await writeFile(path, next);
}

/** Removes every temp folder this test file made. */
export async function removeTemps(): Promise<void> {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}
