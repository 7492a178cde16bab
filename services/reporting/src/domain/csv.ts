import type { orgReportRow } from './rows.ts';

type Row = ReturnType<typeof orgReportRow>;

/** Columns of the org_report CSV export, in order. */
export const CSV_COLUMNS = [
  'organization',
  'user',
  'full_name',
  'course',
  'course_title',
  'status',
  'progress',
  'lessons_passed',
  'lessons_total',
  'mandatory',
  'deadline',
  'overdue',
  'last_activity',
  'document_blocks_total',
  'document_blocks_filled',
] as const;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. A text that a
 * spreadsheet would run as a formula (=, +, -, @ first) gets a leading apostrophe.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let s = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** A report row as a CSV line (CRLF line ends, as RFC 4180 and spreadsheets expect). */
export function csvLine(r: Row): string {
  const values: Record<(typeof CSV_COLUMNS)[number], unknown> = {
    organization: r.organization,
    user: r.user,
    full_name: r.full_name,
    course: r.course,
    course_title: r.course_title,
    status: r.status,
    progress: r.progress,
    lessons_passed: r.lessons_passed,
    lessons_total: r.lessons_total,
    mandatory: r.mandatory,
    deadline: r.deadline,
    overdue: r.overdue,
    last_activity: r.last_activity,
    document_blocks_total: r.document.blocks_total,
    document_blocks_filled: r.document.blocks_filled,
  };
  return `${CSV_COLUMNS.map((c) => csvField(values[c])).join(',')}\r\n`;
}

/** The header line. */
export function csvHeader(): string {
  return `${CSV_COLUMNS.join(',')}\r\n`;
}
