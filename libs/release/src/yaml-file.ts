import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import type { z } from 'zod';
import type { Diagnostics, FieldPath, MapPlace } from './issues.ts';
import { pathText } from './issues.ts';
import { unknownFieldMessage } from './suggest.ts';

/** The fields of a mapping that passed their checks; `ok` — all of them did. */
export interface Checked<S extends z.ZodRawShape> {
  ok: boolean;
  value: Partial<z.infer<z.ZodObject<S>>>;
}

/** A parsed YAML file of the map that can say on which line any of its fields sits. */
export class YamlFile {
  /** The plain value of the file; undefined when the YAML itself is broken. */
  readonly data: unknown;
  private readonly lines = new LineCounter();
  private readonly root: Node | null;

  constructor(
    readonly file: string,
    text: string,
    private readonly diag: Diagnostics,
  ) {
    const doc = parseDocument(text, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: true });
    this.root = (doc.contents as Node | null) ?? null;
    for (const err of doc.errors) {
      const pos = this.lines.linePos(err.pos[0]);
      diag.error({ file, line: pos.line, column: pos.col, path: '' }, `YAML: ${err.message.split('\n')[0]}`);
    }
    this.data = doc.errors.length ? undefined : doc.toJS();
  }

  /** The place of a field; with `key`, of the field's name rather than its value. Falls back to the nearest parent. */
  at(path: FieldPath, opts: { key?: boolean } = {}): MapPlace {
    let node: Node | null = this.root;
    let found: Node | null = node;
    for (let i = 0; i < path.length && node; i++) {
      const seg = path[i];
      let next: Node | null = null;
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
        if (pair) {
          const last = i === path.length - 1;
          next = (last && opts.key) || !pair.value ? (pair.key as Node) : (pair.value as Node);
        }
      } else if (isSeq(node) && typeof seg === 'number') {
        next = (node.items[seg] as Node | undefined) ?? null;
      }
      node = next;
      if (node) found = node;
    }
    const offset = found?.range?.[0];
    const pos = offset === undefined ? null : this.lines.linePos(offset);
    return { file: this.file, line: pos?.line ?? null, column: pos?.col ?? null, path: pathText(path) };
  }

  /** The plain value at a path (undefined when absent). */
  get(path: FieldPath): unknown {
    let v: unknown = this.data;
    for (const seg of path) {
      if (v === null || typeof v !== 'object') return undefined;
      v = (v as Record<string | number, unknown>)[seg];
    }
    return v;
  }

  /** Checks the mapping at `path` field by field: unknown fields, then each field against its schema. */
  fields<S extends z.ZodRawShape>(shape: S, path: FieldPath = []): Checked<S> {
    const data = this.get(path);
    if (this.data === undefined) return { ok: false, value: {} };
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      const empty = path.length === 0 && (data === null || data === undefined);
      this.diag.error(this.at(path), empty ? 'the file is empty' : `expected a mapping, got ${typeName(data)}`);
      return { ok: false, value: {} };
    }
    const known = Object.keys(shape);
    const value: Record<string, unknown> = {};
    let ok = true;
    for (const key of Object.keys(data)) {
      if (known.includes(key)) continue;
      ok = false;
      this.diag.error(this.at([...path, key], { key: true }), unknownFieldMessage(key, known));
    }
    for (const key of known) {
      const parsed = (shape[key] as z.ZodType).safeParse((data as Record<string, unknown>)[key]);
      if (parsed.success) value[key] = parsed.data;
      else {
        ok = false;
        this.report(parsed.error.issues, [...path, key]);
      }
    }
    return { ok, value: value as Checked<S>['value'] };
  }

  /** Checks each element of the list at `path` field by field (the list itself is checked by its parent). */
  each<S extends z.ZodRawShape>(shape: S, path: FieldPath): Array<Checked<S>> {
    const list = this.get(path);
    return Array.isArray(list) ? list.map((_, i) => this.fields(shape, [...path, i])) : [];
  }

  /** Checks the whole file against one schema (small files: programs, announcements). */
  check<S extends z.ZodType>(schema: S): z.infer<S> | null {
    if (this.data === undefined) return null;
    const parsed = schema.safeParse(this.data);
    if (parsed.success) return parsed.data;
    this.report(parsed.error.issues, []);
    return null;
  }

  private report(issues: z.core.$ZodIssue[], base: FieldPath): void {
    for (const issue of issues) {
      const path = [...base, ...(issue.path as Array<string | number>)];
      if (issue.code === 'unrecognized_keys') {
        // strict() in schemas.ts puts the known fields in the message: `known:a,b,c`.
        const known = issue.message.startsWith('known:') ? issue.message.slice(6).split(',') : [];
        for (const key of issue.keys) {
          this.diag.error(this.at([...path, key], { key: true }), unknownFieldMessage(key, known));
        }
        continue;
      }
      this.diag.error(this.at(path), messageOf(issue, this.get(path), path.length === 0));
    }
  }
}

function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return `${typeof v} ${JSON.stringify(v)}`;
}

function messageOf(issue: z.core.$ZodIssue, value: unknown, isRoot: boolean): string {
  if (isRoot && (value === undefined || value === null)) return 'the file is empty';
  if (value === undefined) return 'required field is missing';
  if (value === null && issue.code === 'invalid_type') return 'has no value';
  if (issue.code === 'invalid_type') {
    const expected = issue.expected === 'object' ? 'a mapping' : issue.expected === 'array' ? 'a list' : issue.expected;
    const hint = issue.expected === 'string' && typeof value === 'number' ? ' (put it in quotes)' : '';
    return `expected ${expected}, got ${typeName(value)}${hint}`;
  }
  return issue.message;
}
