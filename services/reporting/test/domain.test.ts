import { describe, expect, it } from 'vitest';
import { csvField } from '../src/domain/csv.ts';
import { resolveProgressSpace, share } from '../src/domain/space.ts';
import { page } from '../src/handlers/org-report.ts';

describe('csvField', () => {
  it('quotes commas, quotes and line breaks, and defuses spreadsheet formulas', () => {
    expect(csvField('Иванов, Иван')).toBe('"Иванов, Иван"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('a\nb')).toBe('"a\nb"');
    expect(csvField('=SUM(A1)')).toBe("'=SUM(A1)");
    expect(csvField(null)).toBe('');
    expect(csvField(0.5)).toBe('0.5');
    expect(csvField(false)).toBe('false');
  });
});

describe('resolveProgressSpace', () => {
  const orgs = [
    { organization: 'acme', title: 'Акме', suspended: false },
    { organization: 'ice', title: 'Лёд', suspended: true },
  ];
  it('covers personal and every active organization in the personal space', () => {
    expect(resolveProgressSpace(orgs, 'personal')).toEqual({
      ok: true,
      scope: { space: 'personal', spaces: ['personal', 'acme'] },
    });
  });
  it('refuses an unknown or suspended explicit space, falls back to personal for a selected one', () => {
    expect(resolveProgressSpace(orgs, 'personal', 'nope')).toMatchObject({
      ok: false,
      error: { code: 'space_not_available' },
    });
    expect(resolveProgressSpace(orgs, 'personal', 'ice')).toMatchObject({
      ok: false,
      error: { code: 'organization_suspended' },
    });
    expect(resolveProgressSpace(orgs, 'ice')).toMatchObject({ ok: true, scope: { space: 'personal' } });
  });
});

describe('share and paging', () => {
  it('rounds the share of lessons and never divides by zero', () => {
    expect(share(1, 3)).toBe(0.33);
    expect(share(5, 3)).toBe(1);
    expect(share(0, 0)).toBe(0);
  });
  it('clamps paging instead of refusing it (paging is beyond the spec)', () => {
    expect(page({}, 100)).toEqual({ limit: 100, offset: 0 });
    expect(page({ limit: 0, offset: -5 }, 100)).toEqual({ limit: 1, offset: 0 });
    expect(page({ limit: 10_000 }, 100)).toEqual({ limit: 500, offset: 0 });
  });
});
