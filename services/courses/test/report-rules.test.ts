import { describe, expect, it } from 'vitest';
import { allowedTransitions, cut, parseReportNumber, reportObjective, reportText } from '../src/domain/report-rules.ts';

describe('report rules', () => {
  it('lets an open report go anywhere else and a closed one only back to in_progress', () => {
    expect(allowedTransitions('new')).toEqual(['in_progress', 'fixed', 'rejected', 'duplicate']);
    expect(allowedTransitions('in_progress')).toEqual(['fixed', 'rejected', 'duplicate']);
    for (const closed of ['fixed', 'rejected', 'duplicate'] as const) {
      expect(allowedTransitions(closed)).toEqual(['in_progress']);
    }
  });

  it('reads report numbers given as numbers or numeric strings', () => {
    expect(parseReportNumber(12)).toBe(12);
    expect(parseReportNumber(' 12 ')).toBe(12);
    for (const bad of ['', 'abc', '1.5', '-3', 0, 1.5, -1, '99999999999999999999']) {
      expect(parseReportNumber(bad)).toBeNull();
    }
  });

  it('cuts by characters, not UTF-16 units, and trims', () => {
    expect(cut('😀😀😀', 2)).toBe('😀😀');
    expect(reportText(`  ${'а'.repeat(2001)}`)).toHaveLength(2000);
    expect(reportText('   ')).toBe('');
    expect(reportObjective(' ')).toBeNull();
    expect(reportObjective(undefined)).toBeNull();
    expect(reportObjective('ц'.repeat(141))).toHaveLength(140);
  });
});
