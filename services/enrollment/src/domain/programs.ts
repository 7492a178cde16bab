/** A course of a program, with whether the student has completed it. */
export type ProgramCourse = {
  course: string;
  title: string;
  completed: boolean;
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
export type CourseRef = {
  course: string;
  title: string;
};

/** A program as the course lists show it (ProgramView of the contracts). */
export type ProgramView = {
  program: string;
  title: string;
  position: number;
  total: number;
  ordered: boolean;
  previous: CourseRef | null;
  next: CourseRef | null;
  member: boolean;
};

/** The lock that makes enroll refuse program_order. */
export type ProgramLock = {
  program: string;
  program_title: string;
  previous: CourseRef;
};

const ref = (c: ProgramCourse | undefined): CourseRef | null => (c ? { course: c.course, title: c.title } : null);

/**
 * The programs of a course and its lock: a course is locked when the student is a member of an
 * ordered program and the course right before it there is not completed (first such program by key).
 */
export function programsOf(
  course: string,
  rows: readonly ProgramRow[],
): { programs: ProgramView[]; lock: ProgramLock | null } {
  const programs: ProgramView[] = [];
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
    if (!lock && row.ordered && row.member && previous && !previous.completed) {
      lock = {
        program: row.program,
        program_title: row.title,
        previous: { course: previous.course, title: previous.title },
      };
    }
  }
  return { programs, lock };
}
