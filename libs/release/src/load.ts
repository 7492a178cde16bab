import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';

/** A course map read into memory: its folder and every YAML/Markdown file in it, by POSIX path relative to it. */
export interface CourseMap {
  root: string;
  files: Record<string, string>;
}

const EXTENSIONS = ['.yaml', '.yml', '.md'];
/** Guards against pointing the CLI at a home folder by mistake. */
const MAX_FILES = 5000;

/** Reads a course map folder (skipping dot-folders and node_modules); throws when the folder does not exist. */
export async function loadCourseMap(dir: string): Promise<CourseMap> {
  const root = resolve(dir);
  const info = await stat(root).catch(() => null);
  if (!info?.isDirectory()) throw new Error(`course map folder not found: ${dir}`);
  const paths: string[] = [];
  await walk(root, root, paths);
  paths.sort();
  const files: Record<string, string> = {};
  for (const path of paths) files[path] = await readFile(join(root, ...path.split('/')), 'utf8');
  return { root, files };
}

async function walk(root: string, dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) await walk(root, full, out);
    else if (entry.isFile() && EXTENSIONS.some((ext) => entry.name.endsWith(ext))) {
      if (out.length >= MAX_FILES) throw new Error(`more than ${MAX_FILES} files under ${root}: is this a course map?`);
      out.push(relative(root, full).split(sep).join('/'));
    }
  }
}
