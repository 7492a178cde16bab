import { z } from 'zod';

/**
 * Length limits of tool arguments, in characters. Every string of every tool input gets
 * {@link INPUT_LIMITS.default} unless its contract sets its own `.max()`; a field for which the spec
 * defines its own length refusal (mark_goal evidence: `evidence_too_long`, 500) gets a limit well
 * above the spec's, so that the service still answers with the spec's code.
 */
export const INPUT_LIMITS = {
  /** Identifiers, keys, spaces, statuses, kinds, place addresses: anything not written by a person. */
  default: 128,
  /** Titles of courses, choice options, a choice card's title. */
  title: 300,
  /** Card texts: a course summary or promise, an objective, a quote, a one-line question. */
  summary: 2000,
  /** Texts a person writes: notes, replies, comments, resolutions, evidence, a note about the student. */
  text: 10_000,
  /** Texts the spec cuts itself (report_issue text, student_words) or a course's full description. */
  long: 20_000,
  /** A homework answer's text (answer_too_large is the homework service's own refusal above this size). */
  answer: 100_000,
  /** Every string inside a free-form argument (update_artifact rows and fields) unless it sets its own. */
  structured: 40_000,
} as const;

/** Limits of the strings inside free-form (`z.unknown()`) arguments set by {@link deepStrings}. */
const deepLimits = new WeakMap<z.ZodType, number>();

/**
 * Sets the limit of every string nested in a free-form argument (default
 * {@link INPUT_LIMITS.structured}); returns the same schema, to be used in place.
 */
export function deepStrings<T extends z.ZodType>(schema: T, max: number): T {
  deepLimits.set(schema, max);
  return schema;
}

const NUL_MESSAGE = 'Строка содержит нулевой символ (\\u0000) — уберите его';

function hasMax(s: z.ZodString): boolean {
  return (s._zod.def.checks ?? []).some((c) => {
    const check = (c as unknown as { _zod: { def: { check: string } } })._zod.def.check;
    return check === 'max_length' || check === 'length_equals';
  });
}

/**
 * Identifiers, keys and the other short strings (those without their own `.max()`) never hold
 * control characters: such an id would reach logs and NATS headers raw. The pattern is in the
 * JSON Schema of tools/list; the edge answers a field's spec code where one fits (FIELD_REFUSALS).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
export const ID_PATTERN = /^[^\u0000-\u001f\u007f]*$/;
const ID_MESSAGE = 'Недопустимые символы: управляющие символы (перевод строки, табуляция…) не допускаются';

function boundString(s: z.ZodString): z.ZodType {
  const limited = hasMax(s) ? s : s.max(INPUT_LIMITS.default).regex(ID_PATTERN, ID_MESSAGE);
  return limited.refine((v) => !v.includes('\0'), { message: NUL_MESSAGE, abort: true });
}

/** Numbers of tool arguments stay within ±NUMBER_LIMIT unless the contract sets its own bounds. */
export const NUMBER_LIMIT = 1_000_000_000;

function numberChecks(n: z.ZodNumber): string[] {
  return (n._zod.def.checks ?? []).map((c) => (c as unknown as { _zod: { def: { check: string } } })._zod.def.check);
}

function boundNumber(n: z.ZodNumber): z.ZodType {
  const checks = numberChecks(n);
  let out = n;
  if (!checks.includes('less_than')) out = out.max(NUMBER_LIMIT);
  if (!checks.includes('greater_than')) out = out.min(-NUMBER_LIMIT);
  return out;
}

/**
 * Spec codes for a bad value of a field, by field name: an id that cannot exist (control
 * characters, too long) or a page number out of bounds gets the code the spec gives for an unknown
 * one, when the tool lists that code among its refusals; otherwise it is invalid_arguments.
 */
export const FIELD_REFUSALS: Record<string, readonly string[]> = {
  session: ['not_your_session'],
  attempt: ['not_your_session'],
  goal: ['goal_unknown'],
  question: ['question_mismatch'],
  lesson: ['lesson_not_found', 'lesson_not_in_release'],
  course: ['course_not_found'],
  note: ['note_not_found'],
  key: ['note_not_found'],
  report: ['report_not_found'],
  submission: ['submission_not_found'],
  artifact: ['artifact_not_found'],
  user: ['not_your_student'],
  space: ['space_not_available'],
  project: ['projectNotFound'],
  id: ['noteNotFound'],
  from: ['noteNotFound'],
  start: ['invalid_page'],
  limit: ['invalid_page'],
};

/** The first problem of a free-form value: a string with NUL, a key with NUL, or a too long string. */
function deepProblem(
  value: unknown,
  max: number,
  path: PropertyKey[],
): { path: PropertyKey[]; message: string } | null {
  if (typeof value === 'string') {
    if (value.includes('\0')) return { path, message: NUL_MESSAGE };
    if (value.length > max) return { path, message: `Слишком длинная строка: не больше ${max} символов` };
    return null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = deepProblem(value[i], max, [...path, i]);
      if (p) return p;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\0') || k.length > INPUT_LIMITS.default) {
        return { path: [...path, k.slice(0, 32)], message: 'Недопустимый ключ: нулевой символ или слишком длинный' };
      }
      const p = deepProblem(v, max, [...path, k]);
      if (p) return p;
    }
  }
  return null;
}

function boundFree(schema: z.ZodType): z.ZodType {
  const max = deepLimits.get(schema) ?? INPUT_LIMITS.structured;
  return schema.superRefine((value, ctx) => {
    const problem = deepProblem(value, max, []);
    if (problem) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path });
  });
}

/** A wrapper schema rebuilt around a new inner schema, keeping its own metadata (description). */
function rewrap(schema: z.ZodType, def: Record<string, unknown>): z.ZodType {
  const copy = schema.clone(def as never) as z.ZodType;
  const meta = z.globalRegistry.get(schema);
  if (meta) z.globalRegistry.add(copy, meta);
  return copy;
}

/**
 * The schema with every string bounded and free of NUL bytes, at any depth: strings without their
 * own `.max()` get {@link INPUT_LIMITS.default}; free-form values are searched for strings. PostgreSQL
 * refuses NUL in text, and NATS a message over its payload limit: both would otherwise surface as the
 * outage phrase instead of a refusal.
 */
export function bounded<T extends z.ZodType>(schema: T): T {
  return bound(schema) as T;
}

function bound(schema: z.ZodType): z.ZodType {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case 'string':
      return boundString(schema as unknown as z.ZodString);
    case 'number':
      return boundNumber(schema as unknown as z.ZodNumber);
    case 'unknown':
    case 'any':
      return boundFree(schema);
    case 'object': {
      const shape = def.shape as Record<string, z.ZodType>;
      const next = Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, bound(v)]));
      const catchall = def.catchall as z.ZodType | undefined;
      return rewrap(schema, { ...def, shape: next, ...(catchall ? { catchall: bound(catchall) } : {}) });
    }
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return rewrap(schema, { ...def, innerType: bound(def.innerType as z.ZodType) });
    case 'array':
      return rewrap(schema, { ...def, element: bound(def.element as z.ZodType) });
    case 'union':
      return rewrap(schema, { ...def, options: (def.options as z.ZodType[]).map(bound) });
    case 'record':
      return rewrap(schema, {
        ...def,
        keyType: bound(def.keyType as z.ZodType),
        valueType: bound(def.valueType as z.ZodType),
      });
    case 'pipe':
      return rewrap(schema, { ...def, in: bound(def.in as z.ZodType) });
    default:
      return schema;
  }
}
