import type { CourseAccess } from '@studium/contracts';

/**
 * What follows a lesson that can no longer be passed (docs/decisions.md, the failed lesson): the
 * next lesson of the course; when none is left, the next course of the student's program; else
 * whatever start_lesson without arguments finds.
 */
export type Continuation =
  | { kind: 'lesson'; course: string }
  | { kind: 'course'; course: string; title: string; program_title: string; enrolled: boolean }
  | { kind: 'other' };

/** A call as the hints name it: the tool and its arguments as JSON, to be made as written. */
export function callHint(tool: string, args: Record<string, string>): string {
  return `${tool} ${JSON.stringify(args)}`;
}

type Programs = NonNullable<CourseAccess['programs']>;

/**
 * The course that follows a course in the student's programs: of a program the student is a member
 * of, ordered programs first (their order is the one the platform holds the student to).
 */
export function nextInProgram(
  programs: Programs | undefined,
): { course: string; title: string; program_title: string } | null {
  const member = (programs ?? []).filter((p) => p.member && p.next);
  const pick = member.find((p) => p.ordered) ?? member[0];
  return pick?.next ? { course: pick.next.course, title: pick.next.title, program_title: pick.title } : null;
}

/** The continuation as a phrase for the agent, naming the call to make. */
export function continuationPhrase(c: Continuation): string {
  switch (c.kind) {
    case 'lesson':
      return `Дальше — следующий урок курса: ${callHint('start_lesson', { course: c.course })} (этот урок он пропустит).`;
    case 'course': {
      const start = callHint('start_lesson', { course: c.course });
      const head =
        'Уроков к изучению в курсе не осталось: курс закончен без зачёта этого урока, ' +
        `и программа «${c.program_title}» идёт дальше — курс «${c.title}».`;
      return c.enrolled
        ? `${head} Предложите его: ${start}.`
        : `${head} Ученик на него ещё не записан: ${callHint('enroll', { course: c.course })}, затем ${start}.`;
    }
    case 'other':
      return (
        'Уроков к изучению в курсе не осталось: курс закончен без зачёта этого урока. ' +
        `Дальше — урок другого курса ученика: ${callHint('start_lesson', {})}; ответит nothing_to_study — учиться больше нечему.`
      );
    default: {
      const never: never = c;
      return never;
    }
  }
}
