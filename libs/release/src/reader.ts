import type { Diagnostics, FieldPath, MapPlace } from './issues.ts';
import type { CourseMap } from './load.ts';
import { cleanText } from './text.ts';
import { YamlFile } from './yaml-file.ts';

/** Gives the build the files of a map, remembers which ones it used, and where each warned-about field lives. */
export class MapReader {
  /** Files the build consumed; the rest are reported as unused. */
  readonly used = new Set<string>();
  /** `<release place>#<field>` → where the field is in the map, for locating warnings. */
  readonly where = new Map<string, MapPlace>();

  constructor(
    readonly map: CourseMap,
    readonly diag: Diagnostics,
  ) {}

  /** Whether the map has this file. */
  has(path: string): boolean {
    return path in this.map.files;
  }

  /** Paths of the map's files under a folder (POSIX, sorted). */
  under(folder: string): string[] {
    return Object.keys(this.map.files).filter((p) => p.startsWith(`${folder}/`));
  }

  /** Parses a YAML file of the map (errors recorded); null when the map has no such file. */
  yaml(path: string): YamlFile | null {
    const text = this.map.files[path];
    if (text === undefined) return null;
    this.used.add(path);
    return new YamlFile(path, text, this.diag);
  }

  /** A Markdown file's cleaned text; null when the map has no such file. */
  markdown(path: string): string | null {
    const text = this.map.files[path];
    if (text === undefined) return null;
    this.used.add(path);
    return cleanText(text);
  }

  /** The place of a whole file (no line). */
  file(path: string): MapPlace {
    return { file: path, line: null, column: null, path: '' };
  }

  /**
   * A text that may be written inline in YAML or as a Markdown file beside it (long texts), not both.
   * `place` (e.g. `lesson.l1#directive`) records where it lives for warnings.
   */
  text(
    yaml: YamlFile,
    path: FieldPath,
    inline: string | null | undefined,
    mdPath: string | null,
    place?: string,
  ): string {
    const md = mdPath ? this.markdown(mdPath) : null;
    const hasInline = inline !== undefined && inline !== null;
    if (hasInline && md !== null) {
      this.diag.error(yaml.at(path, { key: true }), `given twice: here and in ${mdPath}; keep one`);
    }
    const at = md !== null && mdPath ? { ...this.file(mdPath), line: 1, column: 1 } : yaml.at(path);
    if (place) this.where.set(place, at);
    return md ?? cleanText(inline);
  }
}
