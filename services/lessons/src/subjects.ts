import { events } from '@studium/contracts';

// Subjects of the lesson events, taken from the catalog (no string literals in the service).
export const SESSION_STARTED = events['lessons.session_started'].subject;
export const GOAL_MARKED = events['lessons.goal_marked'].subject;
export const LESSON_COVERED = events['lessons.lesson_covered'].subject;
export const LESSON_PASSED = events['lessons.lesson_passed'].subject;
export const QUIZ_ATTEMPT_FINISHED = events['lessons.quiz_attempt_finished'].subject;
export const QUIZ_ATTEMPT_CANCELLED = events['lessons.quiz_attempt_cancelled'].subject;
