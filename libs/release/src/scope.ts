import type { MapPlace } from './issues.ts';

/** Course-wide keys the build checks lessons against. */
export interface CourseScope {
  /** Objective key → where it was first defined (objective keys are unique in the course). */
  objectives: Map<string, MapPlace>;
  /** Question key → where it was first defined (question keys are unique in the course). */
  questions: Map<string, MapPlace>;
  /** Section keys of the document; 'none' — no document.yaml; 'broken' — it failed its own checks. */
  sections: Set<string> | 'none' | 'broken';
  /** Question → objective references, checked once every lesson is read (the objective may sit in a later lesson). */
  objectiveRefs: Array<{ objective: string; lesson: Set<string>; at: MapPlace }>;
}
