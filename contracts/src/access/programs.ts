/**
 * A course of a program, with whether the student has finished it: nothing left to study there,
 * every lesson passed or failed (a required quiz with no attempt left; docs/decisions.md).
 */
export type ProgramCourse = {
  course: string;
  title: string;
  finished: boolean;
};

/** A program that contains a course, as the repository returns it for one student. */
export type ProgramRow = {
  program: string;
  title: string;
  ordered: boolean;
  member: boolean;
  /** Every course of the program, in order. */
  courses: ProgramCourse[];
};

/** A course reference in responses. */
export type ProgramCourseRef = {
  course: string;
  title: string;
};

/** A program as the course lists show it (the contracts' ProgramView). */
export type ProgramRowView = {
  program: string;
  title: string;
  position: number;
  total: number;
  ordered: boolean;
  previous: ProgramCourseRef | null;
  next: ProgramCourseRef | null;
  member: boolean;
};

/** The lock that makes enroll refuse program_order. */
export type ProgramLock = {
  program: string;
  program_title: string;
  previous: ProgramCourseRef;
};

const ref = (c: ProgramCourse | undefined): ProgramCourseRef | null =>
  c ? { course: c.course, title: c.title } : null;

/**
 * The programs of a course and its lock: a course is locked when the student is a member of an
 * ordered program and the course right before it there is not finished (first such program by key):
 * the spec's «предыдущий курс ещё не пройден целиком» — it still has a lesson to study.
 */
export function programsOf(
  course: string,
  rows: readonly ProgramRow[],
): { programs: ProgramRowView[]; lock: ProgramLock | null } {
  const programs: ProgramRowView[] = [];
  let lock: ProgramLock | null = null;
  for (const row of rows) {
    const i = row.courses.findIndex((c) => c.course === course);
    if (i < 0) continue;
    const previous = row.courses[i - 1];
    programs.push({
      program: row.program,
      title: row.title,
      position: i + 1,
      total: row.courses.length,
      ordered: row.ordered,
      previous: ref(previous),
      next: ref(row.courses[i + 1]),
      member: row.member,
    });
    if (!lock && row.ordered && row.member && previous && !previous.finished) {
      lock = {
        program: row.program,
        program_title: row.title,
        previous: { course: previous.course, title: previous.title },
      };
    }
  }
  return { programs, lock };
}
