/** course_outline as the pages read it. */
export interface Outline {
  course: string;
  title?: string;
  chapters: Array<{
    key?: string;
    title: string;
    description: string | null;
    lessons_started: number;
    lessons_completed: number;
    lessons: OutlineLesson[];
  }>;
  programs: import('./common.ts').Programs['programs'];
  locked_by?: { course: string; title: string } | null;
}

export interface OutlineLesson {
  id: string;
  key: string | null;
  title: string;
  hook: string | null;
  completed: boolean;
  current: boolean;
  objectives: Array<{ key: string; text: string; status: string }>;
  blocks: Array<{ artifact: string; key: string; title: string }>;
  homework: { title: string; description: string; answer_mode: string; due: string | null } | null;
}

/** The course of a lesson id (`<course>.<lesson key>`, as contracts' lessonId builds it). */
export function courseOfLesson(lesson: string): string {
  const dot = lesson.indexOf('.');
  return dot > 0 ? lesson.slice(0, dot) : lesson;
}
