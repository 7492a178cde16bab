import { describe, expect, it } from 'vitest';
import { emptyCells, emptySection, isFilled, type Section, type SectionState } from '../src/domain/document.ts';
import { applyWrite } from '../src/domain/document-write.ts';
import { checkLimits, sniffType } from '../src/domain/files.ts';
import { dueAt, dueRule, isOverdue, transition } from '../src/domain/homework.ts';

const many: Section = {
  key: 'log',
  title: 'Журнал',
  description: '',
  lesson: null,
  rows: 'many',
  columns: [
    { key: 'topic', title: 'Тема', required: true },
    { key: 'risk', title: 'Риск', required: false },
    { key: 'fix', title: 'Что делаем', required: { if_column: 'risk' } },
  ],
};
const one: Section = { ...many, key: 'form', rows: 'one' };

describe('document fill rules', () => {
  it('a many section is filled when it has rows and each has its required cells', () => {
    expect(isFilled(many, emptySection())).toBe(false);
    const state: SectionState = {
      next: 3,
      rows: [
        { id: 'A1', cells: { topic: 'x' } },
        { id: 'A2', cells: { topic: 'y', risk: 'r' } },
      ],
      values: {},
    };
    expect(emptyCells(many, state)).toEqual([{ row: 'A2', column: 'fix' }]);
    expect(isFilled(many, state)).toBe(false);
    state.rows[1] = { id: 'A2', cells: { topic: 'y', risk: 'r', fix: 'уточнить у Ани' } };
    expect(isFilled(many, state)).toBe(true);
  });

  it('a one section needs a value and every required field, if_column by a field of the same section', () => {
    expect(isFilled(one, emptySection())).toBe(false);
    expect(emptyCells(one, emptySection())).toEqual([{ field: 'topic' }]);
    expect(isFilled(one, { next: 1, rows: [], values: { risk: 'r' } })).toBe(false);
    expect(emptyCells(one, { next: 1, rows: [], values: { risk: 'r' } })).toEqual([
      { field: 'topic' },
      { field: 'fix' },
    ]);
    expect(isFilled(one, { next: 1, rows: [], values: { topic: 't' } })).toBe(true);
  });

  it('numbers new rows from the counter and never reuses an id', () => {
    const a = applyWrite(many, emptySection(), { rows: [{ topic: 'a' }, { topic: 'b' }, { topic: '   ' }] });
    if (!a.ok) throw new Error('refused');
    expect(a.created).toEqual(['A1', 'A2']);
    const b = applyWrite(many, a.state, { delete_rows: ['a2'] });
    if (!b.ok) throw new Error('refused');
    const c = applyWrite(many, b.state, { rows: [{ topic: 'c' }] });
    if (!c.ok) throw new Error('refused');
    expect(c.created).toEqual(['A3']);
    expect(c.state.rows.map((r) => r.id)).toEqual(['A1', 'A3']);
  });

  it('refuses before changing anything', () => {
    const state = emptySection();
    expect(applyWrite(many, state, {})).toMatchObject({ ok: false, error: { code: 'artifact_nothing_to_write' } });
    expect(applyWrite(many, state, { rows: [{ topic: 'a' }, { topik: 'b' }] })).toMatchObject({
      error: { code: 'artifact_unknown_column' },
    });
    expect(state).toEqual(emptySection());
  });
});

describe('homework statuses and due dates', () => {
  it('moves through Assigned, Submitted, Returned, Accepted', () => {
    expect(transition(null, 'assign')).toBe('Assigned');
    expect(transition('Submitted', 'assign')).toBe('Submitted');
    expect(transition('Assigned', 'submit')).toBe('Submitted');
    expect(transition('Returned', 'submit')).toBe('Submitted');
    expect(transition('Accepted', 'submit')).toBeNull();
    expect(transition('Submitted', 'return')).toBe('Returned');
    expect(transition('Assigned', 'return')).toBeNull();
    expect(transition('Submitted', 'accept')).toBe('Accepted');
    expect(transition('Returned', 'accept')).toBeNull();
    expect(transition('Accepted', 'cancel_acceptance')).toBe('Returned');
    expect(transition('Submitted', 'cancel_acceptance')).toBeNull();
  });

  it('counts the due date from the lesson close; overdue only while the student must act', () => {
    const hw = { description: '', answer_mode: 'text' as const, due_days: 7 };
    expect(dueAt(hw, '2026-01-01T10:00:00.000Z')).toBe('2026-01-08T10:00:00.000Z');
    expect(dueAt({ ...hw, due_days: null }, '2026-01-01T10:00:00.000Z')).toBeNull();
    expect(dueAt(hw, null)).toBeNull();
    expect(dueRule(hw)).toBe('7 дней после закрытия урока');
    expect(dueRule({ ...hw, due_days: 1 })).toBe('1 день после закрытия урока');
    expect(dueRule({ ...hw, due_days: 3 })).toBe('3 дня после закрытия урока');
    const now = new Date('2026-02-01T00:00:00Z');
    expect(isOverdue('Assigned', '2026-01-08T10:00:00.000Z', now)).toBe(true);
    expect(isOverdue('Returned', '2026-01-08T10:00:00.000Z', now)).toBe(true);
    expect(isOverdue('Submitted', '2026-01-08T10:00:00.000Z', now)).toBe(false);
    expect(isOverdue('Accepted', '2026-01-08T10:00:00.000Z', now)).toBe(false);
    expect(isOverdue('Assigned', '2026-03-01T00:00:00.000Z', now)).toBe(false);
    expect(isOverdue('Assigned', null, now)).toBe(false);
  });
});

describe('file limits and types', () => {
  const MB = 1024 * 1024;
  it('applies the count, size and batch limits', () => {
    expect(checkLimits([], 0)?.error.code).toBe('file_missing');
    expect(checkLimits([{ name: 'a.pdf', size: 0 }], 0)?.error.code).toBe('file_missing');
    expect(checkLimits([{ name: 'a.pdf', size: 1 }], 10)?.error.code).toBe('too_many_files');
    expect(checkLimits([{ name: 'a.pdf', size: 10 * MB + 1 }], 0)?.error.code).toBe('file_too_large');
    const four = Array.from({ length: 4 }, (_, i) => ({ name: `${i}.pdf`, size: 8 * MB }));
    expect(checkLimits(four, 0)?.error.code).toBe('answer_too_large');
    expect(checkLimits([{ name: 'a.pdf', size: 10 * MB }], 9)).toBeNull();
  });

  it('checks the type by content, not only by name', () => {
    const pdf = Buffer.from('%PDF-1.7\n');
    expect(sniffType('report.pdf', pdf)?.mime).toBe('application/pdf');
    expect(sniffType('report.PDF', pdf)?.mime).toBe('application/pdf');
    expect(sniffType('report.exe', pdf)).toBeNull();
    expect(sniffType('virus.pdf', Buffer.from([0x4d, 0x5a, 0x90, 0x00]))).toBeNull();
    expect(sniffType('notes.txt', Buffer.from('Протокол встречи\n'))).not.toBeNull();
    expect(sniffType('notes.txt', Buffer.from([0x00, 0x01, 0x02]))).toBeNull();
    expect(sniffType('pic.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))?.mime).toBe('image/png');
  });
});
