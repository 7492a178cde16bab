import type { ToolContract } from '../../tool.ts';
import { review_note, write_note } from './notes.ts';
import { pass_counts } from './passes.ts';
import { course_testers, grant_tester, revoke_tester } from './testers.ts';

export { NOTE_REVIEW_ACTIONS, review_note, write_note } from './notes.ts';
export { pass_counts } from './passes.ts';
export { course_testers, grant_tester, revoke_tester, TESTERS_MAX } from './testers.ts';

/** The cabinet's own operations (a person's, on no MCP endpoint). */
export const cabinetTools = [
  write_note,
  review_note,
  course_testers,
  grant_tester,
  revoke_tester,
  pass_counts,
] as const satisfies readonly ToolContract[];
