import type { ReleaseLesson } from '@studium/contracts';
import { placeText } from './issues.ts';
import type { MapReader } from './reader.ts';
import { QuestionShape, QuizShape } from './schemas.ts';
import type { CourseScope } from './scope.ts';
import { cleanText } from './text.ts';
import type { Checked, YamlFile } from './yaml-file.ts';

type ReleaseQuiz = NonNullable<ReleaseLesson['quiz']>;
type Question = ReleaseQuiz['questions'][number];

/** Checks that each question's objective is an objective of its own lesson (after every lesson is read). */
export function checkObjectiveRefs(r: MapReader, scope: CourseScope): void {
  for (const { objective, lesson, at } of scope.objectiveRefs) {
    if (lesson.has(objective)) continue;
    const elsewhere = scope.objectives.get(objective);
    r.diag.error(
      at,
      elsewhere
        ? `objective '${objective}' belongs to another lesson (${placeText(elsewhere)}); a question checks an objective of its own lesson`
        : `unknown objective '${objective}'; objectives of this lesson: ${[...lesson].join(', ')}`,
    );
  }
}

/**
 * Builds a lesson's quiz.yaml, or null without one. `objectives` are the lesson's objective keys
 * (null when they are not all known: references are then not checked, to avoid echo errors).
 */
export function buildQuiz(r: MapReader, path: string, objectives: Set<string> | null, scope: CourseScope) {
  const yaml = r.yaml(path);
  if (!yaml) return null;
  const head = yaml.fields(QuizShape).value;
  const questions = yaml
    .each(QuestionShape, ['questions'])
    .map(({ value }, qi) => question(r, yaml, qi, value, objectives, scope));
  const quiz: ReleaseQuiz = {
    required: head.required ?? false,
    pass_threshold: head.pass_threshold ?? 0,
    attempts: head.attempts ?? null,
    pause_minutes: head.pause_minutes ?? 0,
    questions,
  };
  return quiz;
}

type QuestionFields = Checked<typeof QuestionShape>['value'];

function question(
  r: MapReader,
  yaml: YamlFile,
  qi: number,
  q: QuestionFields,
  objectives: Set<string> | null,
  scope: CourseScope,
): Question {
  const at = (...rest: Array<string | number>) => yaml.at(['questions', qi, ...rest]);
  const name = q.key ?? `#${qi}`;
  if (q.key !== undefined) {
    const first = scope.questions.get(q.key);
    if (first) r.diag.error(at('key'), `duplicate question key '${q.key}' (already used at ${placeText(first)})`);
    else scope.questions.set(q.key, at('key'));
    r.where.set(`question.${q.key}#explanation`, at('explanation'));
  }
  if (q.objective && objectives)
    scope.objectiveRefs.push({ objective: q.objective, lesson: objectives, at: at('objective') });
  const raw = q.options ?? [];
  const options = raw.map((o, oi) => ({ id: o.id ?? `V${oi + 1}`, text: cleanText(o.text) }));
  options.forEach((o, oi) => {
    if (options.findIndex((x) => x.id === o.id) !== oi) {
      r.diag.error(at('options', oi), `duplicate option id '${o.id}' in question '${name}'`);
    }
  });
  const correct = options.filter((_, oi) => raw[oi].correct === true).map((o) => o.id);
  if (q.options && correct.length === 0) {
    r.diag.error(
      at('options'),
      `no option is marked correct in question '${name}'; mark exactly one with correct: true`,
    );
  } else if (correct.length > 1) {
    r.diag.error(
      at('options'),
      `${correct.length} options are marked correct in question '${name}' (${correct.join(', ')}); exactly one must be`,
    );
  }
  return {
    key: q.key ?? '',
    text: cleanText(q.text),
    objective: q.objective ?? null,
    options,
    correct: correct[0] ?? '',
    explanation: cleanText(q.explanation),
  };
}
