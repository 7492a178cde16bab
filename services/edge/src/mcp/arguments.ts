import type { z } from 'zod';

/** One problem of a tool call's arguments, as zod describes it. */
export interface ArgumentIssue {
  code: string;
  path: PropertyKey[];
  message: string;
}

/** The arguments checked against a tool's schema: its parsed value, or the first problems. */
export type ArgumentCheck =
  | { success: true; data: unknown }
  | {
      success: false;
      issues: ArgumentIssue[];
      /** The check stopped at the first problems: there are more than `issues` holds. */
      more: boolean;
    };

/** Problems a refusal is built from at most when the call is large (the refusal shows five). */
export const FIRST_ISSUES = 6;

/**
 * Past this many JSON values the arguments are walked first: zod reports every bad value of a
 * call (a 480 KB array of numbers where objects belong: 240,000 issues, 130 MB of heap and six
 * seconds of one core), so a large call is checked until its first few problems only.
 */
export const WALK_FROM_VALUES = 256;

/**
 * Checks a call's arguments against its schema with memory bounded by the call's size: a small
 * call is parsed by zod as it is; a large one is first walked along the schema, value by value,
 * stopping at {@link FIRST_ISSUES} problems, and parsed by zod only when the walk found none
 * (zod then gives the parsed value: defaults, transforms, the checks the walk does not model).
 */
export function checkArguments(schema: z.ZodType, args: unknown): ArgumentCheck {
  if (countValues(args, WALK_FROM_VALUES) > WALK_FROM_VALUES) {
    const issues: ArgumentIssue[] = [];
    walk(schema, args, [], issues);
    if (issues.length)
      return { success: false, issues: issues.slice(0, FIRST_ISSUES), more: issues.length >= FIRST_ISSUES };
  }
  const parsed = schema.safeParse(args);
  if (parsed.success) return { success: true, data: parsed.data };
  return { success: false, issues: parsed.error.issues as ArgumentIssue[], more: false };
}

/** JSON values (objects, arrays, scalars) in `value`, counted up to just past `cap`. */
export function countValues(value: unknown, cap: number): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length && n <= cap) {
    const v = stack.pop();
    n++;
    if (Array.isArray(v)) for (let i = 0; i < v.length && stack.length <= cap; i++) stack.push(v[i]);
    else if (v !== null && typeof v === 'object') {
      for (const k in v) {
        if (stack.length > cap) break;
        stack.push((v as Record<string, unknown>)[k]);
      }
    }
  }
  return n + stack.length;
}

type Def = Record<string, unknown> & { type: string };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** zod's own check of one value (a leaf, or a shape the walk does not go into), its issues kept. */
function leaf(schema: z.ZodType, value: unknown, path: PropertyKey[], out: ArgumentIssue[]): void {
  const r = schema.safeParse(value);
  if (r.success) return;
  for (const i of r.error.issues) {
    if (out.length >= FIRST_ISSUES) return;
    out.push({ code: i.code, path: [...path, ...i.path], message: i.message });
  }
}

/**
 * The schema's problems with `value`, into `out` until it holds {@link FIRST_ISSUES}. Goes into
 * objects, arrays, records and the wrappers around them; any other schema is a leaf zod checks.
 * It may miss what only zod sees (checks on a whole object or array): zod's parse that follows
 * a clean walk finds those, and they are few.
 */
function walk(schema: z.ZodType, value: unknown, path: PropertyKey[], out: ArgumentIssue[]): void {
  if (out.length >= FIRST_ISSUES) return;
  const def = schema._zod.def as unknown as Def;
  switch (def.type) {
    case 'optional':
      if (value !== undefined) walk(def.innerType as z.ZodType, value, path, out);
      return;
    case 'nullable':
      if (value !== null) walk(def.innerType as z.ZodType, value, path, out);
      return;
    case 'default':
    case 'prefault':
      if (value !== undefined) walk(def.innerType as z.ZodType, value, path, out);
      return;
    case 'readonly':
      walk(def.innerType as z.ZodType, value, path, out);
      return;
    case 'pipe':
      walk(def.in as z.ZodType, value, path, out);
      return;
    case 'object': {
      if (!isObject(value)) {
        leaf(schema, value, path, out);
        return;
      }
      const shape = def.shape as Record<string, z.ZodType>;
      for (const key of Object.keys(shape)) walk(shape[key] as z.ZodType, value[key], [...path, key], out);
      const rest = def.catchall as z.ZodType | undefined;
      if (
        rest &&
        (rest._zod.def as unknown as Def).type !== 'never' &&
        (rest._zod.def as unknown as Def).type !== 'unknown'
      ) {
        for (const key of Object.keys(value))
          if (!Object.hasOwn(shape, key)) walk(rest, value[key], [...path, key], out);
      }
      return;
    }
    case 'array': {
      if (!Array.isArray(value)) {
        leaf(schema, value, path, out);
        return;
      }
      const element = def.element as z.ZodType;
      for (let i = 0; i < value.length && out.length < FIRST_ISSUES; i++) walk(element, value[i], [...path, i], out);
      return;
    }
    case 'record': {
      if (!isObject(value)) {
        leaf(schema, value, path, out);
        return;
      }
      for (const [key, v] of Object.entries(value)) {
        if (out.length >= FIRST_ISSUES) return;
        leaf(def.keyType as z.ZodType, key, [...path, key], out);
        walk(def.valueType as z.ZodType, v, [...path, key], out);
      }
      return;
    }
    case 'union': {
      // Valid when one option finds nothing; else one problem here (zod reports every option's).
      for (const option of def.options as z.ZodType[]) {
        const trial: ArgumentIssue[] = [];
        walk(option, value, path, trial);
        if (!trial.length) return;
      }
      out.push({ code: 'invalid_union', path, message: 'Значение не подходит ни под один из вариантов' });
      return;
    }
    default:
      leaf(schema, value, path, out);
      return;
  }
}
