import { LIMITS, type Release } from '@studium/contracts';

/** A document section as the release defines it. */
export type Section = NonNullable<Release['document']>['sections'][number];
/** A column of a section (a field of a `one` section). */
export type Column = Section['columns'][number];

/** One row of a `many` section: its id (A1, A2…) and its non-empty cells. */
export interface StoredRow {
  id: string;
  cells: Record<string, string>;
}

/** What the student wrote in one section. `next` numbers new rows; ids are never reused. */
export interface SectionState {
  next: number;
  rows: StoredRow[];
  values: Record<string, string>;
}

/** The stored content of one document of one student, course and space. */
export interface DocumentState {
  sections: Record<string, SectionState>;
}

/** Rows a `many` section may hold (artifact_too_many_rows). Bounds the document's size on the bus. */
export const ROW_LIMIT = 30;

/** A missing required cell: row and column of a `many` section, field of a `one` section. */
export type EmptyCell = { row: string; column: string } | { field: string };

/** An empty state of a section. */
export function emptySection(): SectionState {
  return { next: 1, rows: [], values: {} };
}

/** The state of a section, empty when nothing was written. */
export function sectionState(doc: DocumentState, key: string): SectionState {
  return doc.sections[key] ?? emptySection();
}

/** Whether a column is required in a row (or a field in a `one` section) given its filled cells. */
export function isRequired(column: Column, cells: Record<string, string>): boolean {
  const r = column.required;
  if (typeof r === 'boolean') return r;
  return (cells[r.if_column] ?? '') !== '';
}

/** The required cells a section still misses (spec: row and column of many, field of one). */
export function emptyCells(section: Section, state: SectionState): EmptyCell[] {
  if (section.rows === 'many') {
    const out: EmptyCell[] = [];
    for (const row of state.rows) {
      for (const c of section.columns) {
        if (isRequired(c, row.cells) && !row.cells[c.key]) out.push({ row: row.id, column: c.key });
      }
    }
    return out;
  }
  return section.columns
    .filter((c) => isRequired(c, state.values) && !state.values[c.key])
    .map((c) => ({ field: c.key }));
}

/**
 * A section is ready (spec: filled): a `many` one has rows and every row has its required cells;
 * a `one` one has at least one field and every required field. «уточнить у …» is a value like any other.
 */
export function isFilled(section: Section, state: SectionState): boolean {
  const missing = emptyCells(section, state).length;
  if (section.rows === 'many') return state.rows.length > 0 && missing === 0;
  return Object.values(state.values).some((v) => v !== '') && missing === 0;
}

/** How many sections a document has and how many are filled. */
export function documentFill(sections: readonly Section[], doc: DocumentState) {
  return {
    blocks_total: sections.length,
    blocks_filled: sections.filter((s) => isFilled(s, sectionState(doc, s.key))).length,
  };
}

/** Finds a section by key, case-insensitively (spec: «регистр не важен»). */
export function findSection(sections: readonly Section[], key: string): Section | undefined {
  const k = key.trim().toLowerCase();
  return sections.find((s) => s.key.toLowerCase() === k);
}

/** The section as artifact shows it: columns, rows or values (empty cells left out), filled, empty_cells. */
export function blockView(section: Section, state: SectionState, lessonId: (key: string) => string) {
  const base = {
    key: section.key,
    title: section.title,
    description: section.description,
    lesson: section.lesson === null ? null : lessonId(section.lesson),
    rows: section.rows,
    columns: section.columns.map((c) => ({ key: c.key, title: c.title, required: c.required })),
  };
  const content =
    section.rows === 'many'
      ? { items: state.rows.map((r) => ({ id: r.id, ...r.cells })) }
      : { values: { ...state.values } };
  return { ...base, ...content, filled: isFilled(section, state), empty_cells: emptyCells(section, state) };
}

/** The limit of one cell value, characters. */
export const CELL_LIMIT = LIMITS.cell;
