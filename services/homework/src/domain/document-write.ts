import type { refuse } from '@studium/contracts';
import {
  artifactClearWithContent,
  artifactInvalidValue,
  artifactNothingToWrite,
  artifactTooManyRows,
  artifactUnknownColumn,
  artifactUnknownField,
  artifactUnknownRow,
  artifactWrongSection,
} from '../refusals.ts';
import { CELL_LIMIT, type Column, ROW_LIMIT, type Section, type SectionState, type StoredRow } from './document.ts';

/** What update_artifact asks to write (the arguments as they came: shapes are checked here). */
export interface WriteRequest {
  rows?: unknown;
  delete_rows?: unknown;
  fields?: unknown;
  /** true or false; anything else is artifact_invalid_value (param clear). */
  clear?: unknown;
}

type Refused = ReturnType<typeof refuse<string>>;

/** The section after a write, and the ids of the rows it created. */
export interface WriteResult {
  ok: true;
  state: SectionState;
  created: string[];
}

const given = (v: unknown) => v !== undefined && v !== null;
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Applies one update_artifact write to a section's state: every check first, so a refused write
 * changes nothing (spec 000, update_artifact). Pure: the caller stores the returned state.
 */
export function applyWrite(section: Section, current: SectionState, req: WriteRequest): WriteResult | Refused {
  const content = given(req.rows) || given(req.delete_rows) || given(req.fields);
  if (req.clear !== undefined && typeof req.clear !== 'boolean') return invalidParam('clear', 'true или false');
  if (req.clear === true) {
    if (content) return artifactClearWithContent(section.key);
    return { ok: true, state: { next: current.next, rows: [], values: {} }, created: [] };
  }
  if (!content) return artifactNothingToWrite(section.key);
  if (section.rows === 'one') {
    if (given(req.rows) || given(req.delete_rows)) return artifactWrongSection(section);
    return writeFields(section, current, req.fields);
  }
  if (given(req.fields)) return artifactWrongSection(section);
  return writeRows(section, current, req.rows, req.delete_rows);
}

function invalidParam(param: string, expected: string) {
  return artifactInvalidValue({ param, expected });
}

/** A cell value: text or a number, trimmed, at most CELL_LIMIT characters; '' erases the cell. */
function cellValue(where: { column: string } | { field: string }, raw: unknown): string | Refused {
  if (typeof raw !== 'string' && !(typeof raw === 'number' && Number.isFinite(raw))) {
    return artifactInvalidValue({ where });
  }
  const value = String(raw).trim();
  if (value.length > CELL_LIMIT) return artifactInvalidValue({ where, length: value.length });
  return value;
}

function findColumn(section: Section, key: string): Column | undefined {
  return (
    section.columns.find((c) => c.key === key) ?? section.columns.find((c) => c.key.toLowerCase() === key.toLowerCase())
  );
}

function setCell(cells: Record<string, string>, key: string, value: string): void {
  if (value === '') delete cells[key];
  else cells[key] = value;
}

function writeFields(section: Section, current: SectionState, fields: unknown): WriteResult | Refused {
  if (!isPlainObject(fields)) return invalidParam('fields', 'объект {"поле": "текст"}');
  const values = { ...current.values };
  for (const [name, raw] of Object.entries(fields)) {
    const column = findColumn(section, name);
    if (!column) return artifactUnknownField(section, name);
    const value = cellValue({ field: column.key }, raw);
    if (typeof value !== 'string') return value;
    setCell(values, column.key, value);
  }
  return { ok: true, state: { next: current.next, rows: current.rows, values }, created: [] };
}

function writeRows(section: Section, current: SectionState, rows: unknown, deleteRows: unknown): WriteResult | Refused {
  if (given(rows) && !(Array.isArray(rows) && rows.every(isPlainObject))) {
    return invalidParam('rows', 'список строк [{"id": "A1", "колонка": "текст"}]');
  }
  if (given(deleteRows) && !(Array.isArray(deleteRows) && deleteRows.every((d) => typeof d === 'string'))) {
    return invalidParam('delete_rows', 'список ID строк ["A1", "A2"]');
  }
  const byId = new Map(current.rows.map((r) => [r.id, { id: r.id, cells: { ...r.cells } } as StoredRow]));
  const order = current.rows.map((r) => r.id);
  const unknownRow = (id: string) =>
    artifactUnknownRow(
      section.key,
      id,
      order.filter((o) => byId.has(o)),
    );
  let next = current.next;
  const created: string[] = [];
  for (const row of (rows as Record<string, unknown>[] | undefined) ?? []) {
    const { id: rawId, ...cells } = row;
    let target: StoredRow;
    if (rawId === undefined || rawId === null || rawId === '') {
      target = { id: `A${next}`, cells: {} };
    } else {
      const id = String(rawId).trim().toUpperCase();
      const found = byId.get(id);
      if (!found) return unknownRow(String(rawId));
      target = found;
    }
    for (const [name, raw] of Object.entries(cells)) {
      const column = findColumn(section, name);
      if (!column) return artifactUnknownColumn(section, name);
      const value = cellValue({ column: column.key }, raw);
      if (typeof value !== 'string') return value;
      setCell(target.cells, column.key, value);
    }
    if (!byId.has(target.id)) {
      // A new row with nothing in it gets no id: there is nothing to keep.
      if (Object.keys(target.cells).length === 0) continue;
      next += 1;
      byId.set(target.id, target);
      order.push(target.id);
      created.push(target.id);
    }
  }
  for (const raw of (deleteRows as string[] | undefined) ?? []) {
    const id = raw.trim().toUpperCase();
    if (!byId.has(id) || created.includes(id)) return unknownRow(raw);
    byId.delete(id);
  }
  const kept = order.filter((id) => byId.has(id)).map((id) => byId.get(id) as StoredRow);
  if (kept.length > ROW_LIMIT) return artifactTooManyRows(section.key, { rows: kept.length });
  return { ok: true, state: { next, rows: kept, values: current.values }, created };
}
