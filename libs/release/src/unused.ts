import type { MapReader } from './reader.ts';

/**
 * Warns about files the build did not read: folders under chapters/ that no list names
 * (`unlisted_folder`, once per folder) and stray files (`unused_file`). README files are left alone.
 */
export function unusedFiles(r: MapReader, listed: Set<string>): void {
  const reported = new Set<string>();
  for (const file of Object.keys(r.map.files)) {
    if (r.used.has(file) || /(^|\/)readme\.md$/i.test(file)) continue;
    const parts = file.split('/');
    const folder = unlistedFolder(parts, listed);
    if (folder) {
      if (reported.has(folder)) continue;
      reported.add(folder);
      r.diag.warn(
        'unlisted_folder',
        `map.${folder}`,
        `${folder}/ is not listed, so it is not in the release`,
        r.file(folder),
      );
      continue;
    }
    r.diag.warn(
      'unused_file',
      `map.${file}`,
      `${file} is not part of the map format, so it is not in the release`,
      r.file(file),
    );
  }
}

function unlistedFolder(parts: string[], listed: Set<string>): string | null {
  if (parts[0] !== 'chapters' || parts.length < 3) return null;
  const chapter = parts.slice(0, 2).join('/');
  if (!listed.has(chapter)) return chapter;
  if (parts.length < 4) return null;
  const lesson = parts.slice(0, 3).join('/');
  return listed.has(lesson) ? null : lesson;
}
