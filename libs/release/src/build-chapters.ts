import type { Release } from '@studium/contracts';
import { buildLesson } from './build-lesson.ts';
import { placeText } from './issues.ts';
import type { MapReader } from './reader.ts';
import { ChapterShape } from './schemas.ts';
import type { CourseScope } from './scope.ts';
import { cleanText } from './text.ts';
import type { YamlFile } from './yaml-file.ts';

/** The chapters as built and every lesson key the map lists (also of lessons with errors). */
export interface BuiltChapters {
  chapters: Release['chapters'];
  lessonKeys: Set<string>;
  /** Folders the map lists (`chapters/<c>` and `chapters/<c>/<l>`), to spot unlisted ones. */
  folders: Set<string>;
}

/** Strings of a list field, even when the rest of its file has errors (so its entries are still checked). */
export function keysOf(yaml: YamlFile, field: string): string[] {
  const list = yaml.get([field]);
  return Array.isArray(list) ? list.map((x) => (typeof x === 'string' ? x : '')) : [];
}

/** Builds the chapters that course.yaml lists, in that order, recording every error in r.diag. */
export function buildChapters(r: MapReader, course: YamlFile, scope: CourseScope): BuiltChapters {
  const out: BuiltChapters = { chapters: [], lessonKeys: new Set(), folders: new Set() };
  const lessonPlaces = new Map<string, string>();
  for (const [ci, key] of keysOf(course, 'chapters').entries()) {
    if (!key) continue; // a wrong entry: course.yaml's own check reports it
    const at = course.at(['chapters', ci]);
    if (out.folders.has(`chapters/${key}`)) {
      r.diag.error(at, `chapter '${key}' is listed twice`);
      continue;
    }
    out.folders.add(`chapters/${key}`);
    const yaml = r.yaml(`chapters/${key}/chapter.yaml`);
    if (!yaml) {
      r.diag.error(at, `chapter '${key}' has no chapters/${key}/chapter.yaml`);
      continue;
    }
    const cf = yaml.fields(ChapterShape).value;
    r.where.set(`chapter.${key}#description`, yaml.at(['description']));
    const lessons = keysOf(yaml, 'lessons').flatMap((lk, li) => {
      if (!lk) return [];
      const lat = yaml.at(['lessons', li]);
      const first = lessonPlaces.get(lk);
      if (first) {
        r.diag.error(
          lat,
          `duplicate lesson key '${lk}' (already listed at ${first}); lesson keys are unique in the course`,
        );
        return [];
      }
      lessonPlaces.set(lk, placeText(lat));
      out.lessonKeys.add(lk);
      const dir = `chapters/${key}/${lk}`;
      out.folders.add(dir);
      if (!r.has(`${dir}/lesson.yaml`)) {
        r.diag.error(lat, `lesson '${lk}' has no ${dir}/lesson.yaml`);
        return [];
      }
      return [buildLesson(r, dir, lk, scope)];
    });
    out.chapters.push({ key, title: cleanText(cf.title), description: cleanText(cf.description), lessons });
  }
  return out;
}
