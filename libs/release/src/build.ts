import { RELEASE_FORMAT, Release } from '@studium/contracts';
import { buildChapters } from './build-chapters.ts';
import { buildDocument } from './build-document.ts';
import { checkObjectiveRefs } from './build-quiz.ts';
import { canonicalJson, digestOf } from './canonical.ts';
import { Diagnostics, type MapError, type MapWarning } from './issues.ts';
import type { CourseMap } from './load.ts';
import { MapReader } from './reader.ts';
import { CourseShape } from './schemas.ts';
import type { CourseScope } from './scope.ts';
import { cleanText } from './text.ts';
import { unusedFiles } from './unused.ts';
import { fieldWarnings } from './warnings.ts';

/** Counts of what a release holds, for the CLI's summary line. */
export interface ReleaseSummary {
  chapters: number;
  lessons: number;
  objectives: number;
  items: number;
  quizzes: number;
  questions: number;
  homework: number;
  sections: number;
}

/** A valid map: the release, its canonical JSON and digest, and the warnings. */
export interface BuiltRelease {
  ok: true;
  release: Release;
  json: string;
  digest: string;
  warnings: MapWarning[];
  summary: ReleaseSummary;
}

/** The result of a build: the release, or every error found (with the warnings seen so far). */
export type BuildResult = BuiltRelease | { ok: false; errors: MapError[]; warnings: MapWarning[] };

/** Validates a course map and builds the canonical release (pure: no I/O, same map → same bytes). */
export function buildRelease(map: CourseMap): BuildResult {
  const diag = new Diagnostics();
  const r = new MapReader(map, diag);
  const course = r.yaml('course.yaml');
  if (!course) {
    diag.error(r.file('course.yaml'), 'not found: a course map folder starts with course.yaml');
    return { ok: false, errors: diag.errors, warnings: diag.warnings };
  }
  const cf = course.fields(CourseShape).value;
  const doc = buildDocument(r);
  const scope: CourseScope = { objectives: new Map(), questions: new Map(), sections: doc.sections, objectiveRefs: [] };
  const built = buildChapters(r, course, scope);
  checkObjectiveRefs(r, scope);
  for (const ref of doc.lessonRefs) {
    if (!built.lessonKeys.has(ref.lesson)) {
      diag.error(ref.at, `unknown lesson '${ref.lesson}'; lessons of the course: ${[...built.lessonKeys].join(', ')}`);
    }
  }
  cf.learn_about_student?.forEach((n, i, all) => {
    if (all.findIndex((x) => x.key === n.key) !== i) {
      diag.error(course.at(['learn_about_student', i, 'key']), `duplicate note key '${n.key}'`);
    }
  });
  cf.curators?.forEach((login, i, all) => {
    if (all.indexOf(login) !== i) diag.error(course.at(['curators', i]), `curator '${login}' is listed twice`);
  });
  const description = r.text(course, ['description'], cf.description, 'description.md');
  const frame = r.text(course, ['frame'], cf.frame, 'frame.md');
  unusedFiles(r, built.folders);
  if (diag.errors.length) return { ok: false, errors: sortErrors(diag.errors), warnings: diag.warnings };
  r.where.set('course#summary', course.at(['summary']));
  r.where.set('course#promise', course.at(['promise']));
  const candidate: Release = {
    format: RELEASE_FORMAT,
    course: {
      key: cf.key ?? '',
      title: cleanText(cf.title),
      summary: cleanText(cf.summary),
      description,
      promise: cleanText(cf.promise),
      curators: cf.curators ?? [],
      frame,
      learn_about_student: (cf.learn_about_student ?? []).map((n) => ({
        key: n.key,
        kind: n.kind,
        ask: cleanText(n.ask),
      })),
    },
    document: doc.document,
    chapters: built.chapters,
  };
  const parsed = Release.safeParse(candidate);
  if (!parsed.success) {
    // A bug of the builder, not of the map: the schema and the builder disagree.
    diag.error(r.file('course.yaml'), `internal: the built release fails the release schema: ${parsed.error.message}`);
    return { ok: false, errors: diag.errors, warnings: diag.warnings };
  }
  const release = parsed.data;
  const json = canonicalJson(release);
  const located = fieldWarnings(release).map(({ field, ...w }) => ({ ...w, at: r.where.get(field) ?? null }));
  return {
    ok: true,
    release,
    json,
    digest: digestOf(json),
    warnings: [...located, ...diag.warnings],
    summary: summarize(release),
  };
}

/** Counts chapters, lessons, objectives, items, quizzes, questions, homework and document sections. */
export function summarize(release: Release): ReleaseSummary {
  const lessons = release.chapters.flatMap((c) => c.lessons);
  const objectives = lessons.flatMap((l) => l.objectives);
  return {
    chapters: release.chapters.length,
    lessons: lessons.length,
    objectives: objectives.length,
    items: objectives.reduce((n, o) => n + o.items.length, 0),
    quizzes: lessons.filter((l) => l.quiz).length,
    questions: lessons.reduce((n, l) => n + (l.quiz?.questions.length ?? 0), 0),
    homework: lessons.filter((l) => l.homework).length,
    sections: release.document?.sections.length ?? 0,
  };
}

/** Errors grouped by file, in line order (a stable sort keeps the build's order within a line). */
function sortErrors(errors: MapError[]): MapError[] {
  return [...errors].sort((a, b) => (a.file === b.file ? (a.line ?? 0) - (b.line ?? 0) : a.file < b.file ? -1 : 1));
}
