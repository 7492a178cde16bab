import { z } from 'zod';
import { defineOperation } from '../tool.ts';
import { start_lesson } from '../tools/student/start-lesson.ts';

/**
 * start_lesson over a named channel (ai-chat → lessons, channel `web`): the MCP tool is the
 * `agent` channel. A web session carries no teaching rules (they are in the chat's system
 * instructions) and counts towards the trial lessons. Refusals: those of start_lesson, and
 * `unknown_channel` when the channel is neither agent nor web.
 */
export const startLessonChannel = defineOperation({
  subject: 'lessons.start_lesson_channel',
  input: start_lesson.input.extend({ channel: z.string() }),
  output: start_lesson.output,
});

/**
 * Resets a student's progress in a course (admin, support): every live lesson run is archived
 * with its sessions, marks and attempts; writes into the old sessions are refused `run_archived`,
 * goal_runs no longer shows them and the next start_lesson begins afresh.
 */
export const resetProgress = defineOperation({
  subject: 'lessons.reset_progress',
  input: z.object({ user: z.string(), course: z.string() }),
  output: z.object({ archived: z.number().int() }),
});

/**
 * The three teaching-rule packs («старт и разбор», «квиз», «закрытие»): the web chat puts them in
 * its model's system instructions, since its tool replies carry none (spec 000).
 */
export const lessonsTeachingRules = defineOperation({
  subject: 'lessons.teaching_rules',
  input: z.object({}),
  output: z.object({ start: z.string(), quiz: z.string(), closing: z.string() }),
});
