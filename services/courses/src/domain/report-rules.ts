import { LIMITS, REPORT_KINDS, REPORT_RESOLVE_STATUSES } from '@studium/contracts';
import type { ReportStatus } from '../db.ts';

/** A status resolve_report may set. */
export type ResolveStatus = (typeof REPORT_RESOLVE_STATUSES)[number];
/** A report kind of the spec. */
export type ReportKind = (typeof REPORT_KINDS)[number];

/** Statuses that close a report: the student hears of them once (closed_reports). */
export const CLOSED_STATUSES = ['fixed', 'rejected', 'duplicate'] as const satisfies readonly ReportStatus[];

/** Statuses course_reports filters by: the report statuses and `open` (new and in_progress). */
export const REPORT_FILTERS = ['open', 'new', 'in_progress', 'fixed', 'rejected', 'duplicate'] as const;

/** resolution is kept up to this many characters (the spec sets no limit; a reply must stay small). */
export const RESOLUTION_LIMIT = 4000;

export function isReportKind(kind: string): kind is ReportKind {
  return (REPORT_KINDS as readonly string[]).includes(kind);
}

export function isResolveStatus(status: string): status is ResolveStatus {
  return (REPORT_RESOLVE_STATUSES as readonly string[]).includes(status);
}

export function isClosed(status: ReportStatus): boolean {
  return (CLOSED_STATUSES as readonly string[]).includes(status);
}

/**
 * Where a report may go from its status (spec, resolve_report): an open report to any other
 * status, a closed one only back to in_progress; never to the status it has.
 */
export function allowedTransitions(from: ReportStatus): ResolveStatus[] {
  switch (from) {
    case 'new':
      return ['in_progress', 'fixed', 'rejected', 'duplicate'];
    case 'in_progress':
      return ['fixed', 'rejected', 'duplicate'];
    case 'fixed':
    case 'rejected':
    case 'duplicate':
      return ['in_progress'];
    default: {
      const never: never = from;
      throw new Error(`unknown report status ${String(never)}`);
    }
  }
}

/** A report number from an agent (a number or a numeric string); null when it cannot be one. */
export function parseReportNumber(value: number | string): number | null {
  const n = typeof value === 'number' ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** Cuts a text to a number of characters (code points, so no surrogate pair is split). */
export function cut(text: string, limit: number): string {
  const chars = Array.from(text);
  return chars.length > limit ? chars.slice(0, limit).join('') : text;
}

/** report_issue's text: trimmed and cut to the spec's 2000 characters; empty when nothing is left. */
export function reportText(text: string): string {
  return cut(text.trim(), LIMITS.reportText).trim();
}

/** report_issue's objective: trimmed, cut to 140 characters; null when empty. */
export function reportObjective(objective: string | undefined): string | null {
  const o = cut((objective ?? '').trim(), LIMITS.reportObjective).trim();
  return o || null;
}
