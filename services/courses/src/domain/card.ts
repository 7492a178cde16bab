import type { CourseCardChanged, Release } from '@studium/contracts';
import type { CourseStatus } from '../db.ts';
import { lessonId } from './ids.ts';
import { lessonsOf } from './release-index.ts';

/** What the catalog card is made of on the course row. */
export interface CardSource {
  id: string;
  course_key: string | null;
  title: string;
  summary: string;
  description: string;
  status: CourseStatus;
  objectives: string[];
  card_revision: number;
  testers?: string[];
}

/** The active release as the card needs it. */
export interface ActiveContent {
  id: string;
  version: number;
  content: Release;
}

/** Goals the catalog shows: a released course's chapter titles, otherwise the announcement's own. */
export function catalogObjectives(objectives: string[], release: Release | null): string[] {
  return release ? release.chapters.map((c) => c.title) : objectives;
}

/** The full catalog card (state transfer, see CourseCardChanged). */
export function courseCard(course: CardSource, active: ActiveContent | null, at: string): CourseCardChanged {
  const release = active?.content ?? null;
  return {
    course: course.id,
    revision: course.card_revision,
    course_key: course.course_key,
    title: course.title,
    summary: course.summary,
    description: course.description,
    status: course.status,
    testers: course.testers ?? [],
    objectives: catalogObjectives(course.objectives, release),
    release: active?.id ?? null,
    version: active?.version ?? null,
    lessons: release
      ? lessonsOf(release).map(({ lesson, chapter }) => ({
          id: lessonId(course.id, lesson.key),
          key: lesson.key,
          title: lesson.title,
          chapter: chapter.title,
        }))
      : [],
    document: release?.document
      ? { key: release.document.key, title: release.document.title, blocks_total: release.document.sections.length }
      : null,
    at,
  };
}
