import { readFileSync } from 'node:fs';
import {
  complete_lesson,
  course_outline,
  lesson_item,
  mark_goal,
  request_quiz,
  start_lesson,
  submit_answer,
  type ToolContract,
} from '@studium/contracts';
import { describe, expect, it } from 'vitest';
import { refusals } from '../src/refusals.ts';

// Every refusal code a lesson tool's handler can return is named in the tool's description and
// declared in its contract (issue 19 point 11). The codes are read from the handler's source: the
// refusals it builds itself, and those of the shared steps it calls.

/** The code each refusal builder of refusals.ts produces. */
function codeOf(name: string): string {
  const build = refusals[name as keyof typeof refusals] as (...a: unknown[]) => { error: { code: string } };
  for (const args of [['x', 'x', 'x'], [[], 1, 1], [{ program: 'x', course: 'x', title: 'x' }]]) {
    try {
      return build(...args).error.code;
    } catch {}
  }
  throw new Error(`cannot build refusal ${name}`);
}

/** The access check's refusals (enrollment.course_access) as the tools pass them on. */
const ACCESS = ['not_enrolled', 'organization_suspended', 'space_not_available', 'course_not_in_space'];
/** Through a session: a space that is gone is not_enrolled (see sessionAccess). */
const SESSION_ACCESS = ['not_enrolled', 'organization_suspended'];

/** What a shared step called in a handler can refuse. */
const STEPS: Record<string, readonly string[]> = {
  'writeRun(': ['run_archived', 'busy'],
  'loadSession(': ['not_your_session', ...SESSION_ACCESS, 'course_not_released'],
  'checkSession(': ['not_your_session', ...SESSION_ACCESS, 'course_not_released'],
  'sessionAccess(': SESSION_ACCESS,
  'chooseTarget(': ['lesson_not_found', 'nothing_to_study'],
};

/** Codes a handler file can return: its own refusals.X(...) and its steps'. */
function handlerCodes(file: string): Set<string> {
  const source = readFileSync(new URL(`../src/handlers/${file}`, import.meta.url), 'utf8');
  const codes = new Set<string>();
  for (const m of source.matchAll(/refusals\.(\w+)\(/g)) codes.add(codeOf(m[1] as string));
  for (const [step, stepCodes] of Object.entries(STEPS)) {
    if (source.includes(step)) for (const c of stepCodes) codes.add(c);
  }
  // The access check: a named space adds its own refusals; without one (null) only the course's.
  for (const m of source.matchAll(/checkAccess\(deps, \w+, \w+, ([^,]+),/g)) {
    for (const c of m[1] === 'null' ? SESSION_ACCESS : ACCESS) codes.add(c);
  }
  // writeRun with the session checks it is still open.
  if (/writeRun(<\w+>)?\(deps, session\.run_id, session,/.test(source)) codes.add('session_closed');
  return codes;
}

const TOOLS: Array<[ToolContract, string]> = [
  [start_lesson, 'start-lesson.ts'],
  [lesson_item, 'lesson-item.ts'],
  [mark_goal, 'mark-goal.ts'],
  [request_quiz, 'request-quiz.ts'],
  [submit_answer, 'submit-answer.ts'],
  [complete_lesson, 'complete-lesson.ts'],
  [course_outline, 'course-outline.ts'],
];

describe('the refusal codes of the lesson tools', () => {
  it.each(TOOLS.map(([tool, file]) => [tool.name, tool, file] as const))(
    '%s: every code its handler can return is declared and named in its description',
    (_name, tool, file) => {
      const codes = [...handlerCodes(file)].sort();
      expect(codes.length).toBeGreaterThan(0);
      const undeclared = codes.filter((c) => !tool.refusals.includes(c));
      const unnamed = codes.filter((c) => !new RegExp(`(^|[^a-z_])${c}([^a-z_]|$)`).test(tool.description));
      expect({ undeclared, unnamed }, tool.name).toEqual({ undeclared: [], unnamed: [] });
    },
  );
});
