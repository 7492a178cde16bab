import { describe, expect, it } from 'vitest';
import { parseIsoDate } from '../src/domain/iso-date.ts';

describe('parseIsoDate', () => {
  it.each([
    ['2030-01-31', '2030-01-31T00:00:00.000Z'],
    ['2030-01-31T18:00', '2030-01-31T18:00:00.000Z'],
    ['2030-01-31T18:00:05Z', '2030-01-31T18:00:05.000Z'],
    ['2030-01-31T18:00:00+05:00', '2030-01-31T13:00:00.000Z'],
    ['2030-01-31T18:00:00+0500', '2030-01-31T13:00:00.000Z'],
    ['2030-01-31T18:00:00-03', '2030-01-31T21:00:00.000Z'],
    ['2030-01-31 18:00:00.250Z', '2030-01-31T18:00:00.250Z'],
    ['2028-02-29', '2028-02-29T00:00:00.000Z'],
  ])('reads %s', (value, iso) => {
    expect(parseIsoDate(value, '--deadline')).toBe(iso);
  });

  it.each([
    'tomorrow',
    '1',
    '31.01.2030',
    '2030-02-30',
    '2029-02-29',
    '2030-13-01',
    '2030-01-31T25:00',
    '2030-1-5',
    '',
  ])('refuses %j, naming the flag and the format', (value) => {
    expect(() => parseIsoDate(value, '--deadline')).toThrow(/--deadline must be an ISO-8601 date/);
  });
});
