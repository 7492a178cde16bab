import { FIELD_REFUSALS, INVALID_ARGUMENTS, READ_ONLY_TOKEN, type ToolContract } from '@studium/contracts';
import type { ArgumentIssue } from './arguments.ts';

// The refusals the edge builds itself, before or instead of a service's answer: for arguments
// that fail a tool's schema (every tool call, choose's too) and for a read token on /kb.

/** Fields a refusal names at most: the rest are counted (a huge call must not get a huge reply). */
export const SHOWN_FIELDS = 5;

/**
 * The refusal for arguments that fail the schema: a missing required parameter, a wrong JSON type,
 * a bound or pattern. A bad value of a field for which the spec has its own code (an id that cannot
 * exist, a page out of bounds: FIELD_REFUSALS) is that code instead.
 */
export function invalidArguments(
  tool: ToolContract,
  check: { issues: readonly ArgumentIssue[]; more: boolean },
  args?: unknown,
) {
  const given = (args ?? {}) as Record<string, unknown>;
  for (const issue of check.issues) {
    const field = issue.path[0];
    // A missing field or a wrong JSON type stays invalid_arguments: only a value of the right type
    // that cannot exist (pattern, length, bounds) is the spec's code.
    if (typeof field !== 'string' || given[field] === undefined) continue;
    if (issue.code === 'invalid_type' || issue.code === 'invalid_union') continue;
    const code = FIELD_REFUSALS[field]?.find((c) => tool.refusals.includes(c));
    if (!code) continue;
    const value = given[field];
    const details = code === 'invalid_page' ? { where: field, value: typeof value === 'number' ? value : null } : {};
    return {
      code,
      message: `${field}: такого значения нет — ${issue.message.slice(0, 200)}`,
      field,
      ...details,
    };
  }
  // Paths and messages name the field and the rule, never the value: a refusal echoes no input.
  const fields = check.issues.slice(0, SHOWN_FIELDS).map((i) => ({
    field: i.path.map(String).join('.').slice(0, 200) || '(аргументы)',
    problem: i.message.slice(0, 300),
  }));
  // A large call was checked until its first problems only (arguments.ts): how many more is unknown.
  const more = check.issues.length - fields.length;
  const rest = check.more ? ' и другие' : more > 0 ? ` и ещё ${more}` : '';
  return {
    code: INVALID_ARGUMENTS,
    message: `Аргументы не подходят инструменту ${tool.name}: ${fields.map((f) => f.field).join(', ')}${rest} — посмотрите его параметры`,
    fields,
    issues: check.issues.length,
    ...(check.more ? { more: true } : {}),
  };
}

/** The /kb refusal of a write tool called with a read-scoped token (Kazakh, like every /kb text). */
export function readOnlyToken(tool: string) {
  return {
    code: READ_ONLY_TOKEN,
    message: `Бұл токен тек оқуға арналған: ${tool} жазу құралы, оған write рұқсаты бар токен керек`,
    scope: 'read',
    tool,
  };
}
