import {
  choose,
  create_notes,
  goal_runs,
  link_many,
  store_homework_file,
  type ToolContract,
  update_artifact,
} from '@studium/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkArguments, countValues, FIRST_ISSUES, WALK_FROM_VALUES } from '../src/mcp/arguments.ts';
import { invalidArguments } from '../src/mcp/refusals.ts';

z.config(z.locales.ru());

// Issue 30 point 5: one 488 KB invalid create_notes call took the edge from 289 to 511 MB, because
// zod reports every bad value. A large call is now checked until its first few problems.
const notes = create_notes as unknown as ToolContract;

/** Roughly 480 KB of JSON each, every value wrong. */
const HOSTILE: Array<[string, unknown]> = [
  ['numbers where notes belong', { project: 'p', notes: Array.from({ length: 240_000 }, () => 1) }],
  ['notes whose body is a number', { project: 'p', notes: Array.from({ length: 40_000 }, () => ({ body: 1 })) }],
  ['empty notes', { project: 'p', notes: Array.from({ length: 160_000 }, () => ({})) }],
  [
    'one note with 240,000 bad tags',
    { project: 'p', notes: [{ body: 'x', tags: Array.from({ length: 240_000 }, () => 1) }] },
  ],
  [
    'links of notes, all bad',
    {
      project: 'p',
      notes: Array.from({ length: 2000 }, () => ({
        body: 'x',
        links: Array.from({ length: 40 }, () => ({ type: 1 })),
      })),
    },
  ],
];

describe('checkArguments: a large bad call costs its first problems only', () => {
  it.each(HOSTILE)('%s: a few issues, at once, and a small refusal', (_name, args) => {
    const body = JSON.stringify(args);
    expect(body.length).toBeGreaterThan(200_000);
    const started = performance.now();
    const check = checkArguments(notes.input, JSON.parse(body));
    const ms = performance.now() - started;
    expect(check.success).toBe(false);
    if (check.success) return;
    expect(check.issues.length).toBeLessThanOrEqual(FIRST_ISSUES);
    expect(check.more).toBe(true);
    // zod alone took 1–6 s of CPU for these (and the tags case overflowed the stack).
    expect(ms).toBeLessThan(500);
    const refusal = invalidArguments(notes, check, args);
    expect(refusal).toMatchObject({ code: 'invalid_arguments', more: true });
    expect(JSON.stringify(refusal).length).toBeLessThan(2_000);
    expect(refusal.message).toContain('и другие');
  });

  it('a small bad call keeps zod’s full list and count', () => {
    const args = { project: 'p', notes: [{ body: 1 }, { body: 2 }, {}, { body: 'x', tags: [1, 2] }] };
    const check = checkArguments(notes.input, args);
    expect(check.success).toBe(false);
    if (check.success) return;
    expect(check.more).toBe(false);
    expect(check.issues.length).toBe(5);
    expect(invalidArguments(notes, check, args)).toMatchObject({ code: 'invalid_arguments', issues: 5 });
  });

  it('names the same fields as zod for a large call: path and the rule, no value', () => {
    const args = { project: 'p', notes: [...Array.from({ length: 300 }, () => ({ body: 'ok' })), { body: 7 }] };
    const check = checkArguments(notes.input, args);
    expect(check.success).toBe(false);
    if (check.success) return;
    expect(check.issues.map((i) => i.path.join('.'))).toEqual(['notes.300.body']);
    const zod = notes.input.safeParse(args);
    expect(zod.error?.issues.map((i) => i.path.join('.'))).toEqual(['notes.300.body']);
    expect(check.issues[0]?.message).toBe(zod.error?.issues[0]?.message);
  });

  it('counts values only up to just past the cap', () => {
    expect(countValues({ a: [1, 2, { b: 3 }] }, 100)).toBe(6);
    expect(
      countValues(
        Array.from({ length: 1_000_000 }, () => 0),
        10,
      ),
    ).toBeLessThan(30);
  });
});

/**
 * Arguments near a tool's shape, large enough to be walked: well-formed ones (every value of the
 * right type; some still fail a bound) and ones with a wrong value here and there.
 */
function nearShape(tool: ToolContract): fc.Arbitrary<unknown> {
  return fc.boolean().chain((wellFormed) => shaped(tool, wellFormed));
}

function shaped(tool: ToolContract, wellFormed: boolean): fc.Arbitrary<unknown> {
  const junk = fc.oneof(
    fc.integer(),
    fc.string({ maxLength: 5 }),
    fc.constant(null),
    fc.boolean(),
    fc.constant(undefined),
  );
  const or = <T>(a: fc.Arbitrary<T>) =>
    wellFormed ? a : fc.oneof({ weight: 30, arbitrary: a }, { weight: 1, arbitrary: junk });
  const str = or(fc.string({ maxLength: 8 }));
  const big = <T>(a: fc.Arbitrary<T>) => fc.array(a, { minLength: 0, maxLength: WALK_FROM_VALUES + 40, size: 'max' });
  const rec = <T extends Record<string, fc.Arbitrary<unknown>>>(r: T, requiredKeys: (keyof T)[]) =>
    or(fc.record(r, { requiredKeys: requiredKeys as never }));
  switch (tool.name) {
    case 'create_notes':
      return rec(
        {
          project: str,
          notes: or(
            big(
              rec(
                {
                  body: str,
                  path: str,
                  tags: or(fc.array(str, { maxLength: 4 })),
                  links: or(fc.array(rec({ type: str, to: str, toTitle: str }, ['type']), { maxLength: 3 })),
                },
                ['body'],
              ),
            ),
          ),
        },
        ['project', 'notes'],
      );
    case 'link_many':
      return rec({ links: or(big(rec({ from: str, type: str, to: str, toTitle: str }, ['from', 'type']))) }, ['links']);
    case 'choose':
      return rec({ prompt: str, options: or(big(str)), title: str }, ['prompt', 'options']);
    case 'goal_runs':
      return rec(
        {
          course: str,
          start: or(fc.oneof(fc.integer(), fc.stringMatching(/^\d{1,12}$/))),
          limit: or(fc.integer({ min: -5, max: 500 })),
          padding: big(junk),
        },
        ['course'],
      );
    default:
      return fc.anything({ maxDepth: 3 });
  }
}

describe('checkArguments agrees with zod on whether a call is valid', () => {
  const tools = [
    create_notes,
    link_many,
    choose,
    goal_runs,
    update_artifact,
    store_homework_file,
  ] as unknown as ToolContract[];
  it.each(tools.map((t) => [t.name, t] as const))(
    '%s: the same answer, and the same parsed value',
    (_name, tool) => {
      let valid = 0;
      let walked = 0;
      fc.assert(
        fc.property(nearShape(tool), (args) => {
          const ours = checkArguments(tool.input, args ?? {});
          const zod = tool.input.safeParse(args ?? {});
          expect(ours.success).toBe(zod.success);
          if (ours.success && zod.success) expect(ours.data).toEqual(zod.data);
          if (zod.success) valid++;
          if (countValues(args, WALK_FROM_VALUES) > WALK_FROM_VALUES) walked++;
        }),
        { numRuns: 300 },
      );
      // Both kinds were tried, and large calls (the walked ones) among them.
      if (tool.name !== 'update_artifact' && tool.name !== 'store_homework_file') {
        expect(valid).toBeGreaterThan(20);
        expect(walked).toBeGreaterThan(20);
      }
    },
    30_000,
  );
});
