import { describe, expect, it } from 'vitest';
import { type ProgramRow, programsOf } from '../src/domain/programs.ts';
import { releaseMailJobId } from '../src/domain/release-mail.ts';
import { resolveSpace } from '../src/domain/space.ts';

const orgs = [
  { name: 'acme', title: 'Акме', suspended: false },
  { name: 'frozen', title: 'Заморозка', suspended: true },
];

describe('resolveSpace', () => {
  it('gives people without organizations the whole catalog', () => {
    expect(resolveSpace([], 'personal')).toEqual({
      ok: true,
      scope: { space: 'personal', organization: null, catalogOrgs: null, courseSpaces: ['personal'] },
    });
  });

  it('gives an employee in personal the catalogs of the active organizations and every active space', () => {
    expect(resolveSpace(orgs, 'PERSONAL')).toMatchObject({
      ok: true,
      scope: { space: 'personal', catalogOrgs: ['acme'], courseSpaces: ['personal', 'acme'] },
    });
  });

  it('narrows an organization space to that organization', () => {
    expect(resolveSpace(orgs, 'personal', ' acme ')).toMatchObject({
      ok: true,
      scope: { space: 'acme', organization: 'acme', catalogOrgs: ['acme'], courseSpaces: ['acme'] },
    });
  });

  it('refuses a named space that is missing or suspended, but falls back from a stale selection', () => {
    expect(resolveSpace(orgs, 'personal', 'globex')).toMatchObject({
      ok: false,
      error: { code: 'space_not_available', available: ['personal', 'acme'] },
    });
    expect(resolveSpace(orgs, 'personal', 'frozen')).toMatchObject({
      ok: false,
      error: { code: 'organization_suspended', organization: 'frozen' },
    });
    expect(resolveSpace(orgs, 'frozen')).toMatchObject({ ok: true, scope: { space: 'personal' } });
  });
});

describe('programsOf', () => {
  const chain = (ordered: boolean, member: boolean, finished: boolean[]): ProgramRow => ({
    program: 'p',
    title: 'Программа',
    ordered,
    member,
    courses: ['a', 'b', 'c'].map((course, i) => ({ course, title: course.toUpperCase(), finished: finished[i] })),
  });

  it('places the course in the chain with previous and next', () => {
    const { programs, lock } = programsOf('b', [chain(false, true, [false, false, false])]);
    expect(programs).toEqual([
      {
        program: 'p',
        title: 'Программа',
        position: 2,
        total: 3,
        ordered: false,
        previous: { course: 'a', title: 'A' },
        next: { course: 'c', title: 'C' },
        member: true,
      },
    ]);
    expect(lock).toBeNull();
  });

  it('locks only for a member of an ordered program whose previous course is not finished', () => {
    expect(programsOf('b', [chain(true, true, [false, false, false])]).lock).toEqual({
      program: 'p',
      program_title: 'Программа',
      previous: { course: 'a', title: 'A' },
    });
    expect(programsOf('b', [chain(true, false, [false, false, false])]).lock).toBeNull();
    expect(programsOf('b', [chain(true, true, [true, false, false])]).lock).toBeNull();
    expect(programsOf('a', [chain(true, true, [false, false, false])]).lock).toBeNull();
  });
});

describe('releaseMailJobId', () => {
  it('is deterministic and keeps the three-part form BullMQ accepts', () => {
    expect(releaseMailJobId('c1', 'ann@t')).toBe('release-mail:c1:ann@t');
    expect(releaseMailJobId('a:b', 'x%y').split(':')).toHaveLength(3);
  });
});
