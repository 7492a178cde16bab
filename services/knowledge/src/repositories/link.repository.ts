import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { KnowledgeDb } from '../db.ts';
import { titleKey } from '../domain/markdown.ts';

/** A link row. */
export interface LinkRow {
  id: string;
  from_note: string;
  type: string;
  to_note: string | null;
  to_title: string | null;
  origin: 'tool' | 'body';
}

const COLS = ['id', 'from_note', 'type', 'to_note', 'to_title', 'origin'] as const;

/** All SQL of typed links and forward references. */
export class LinkRepository {
  constructor(private readonly db: Kysely<KnowledgeDb>) {}

  /**
   * Adds a link unless the same one exists (same from, type and target: the target note, or the
   * title while it is a forward reference); returns the link and whether it is new.
   */
  async add(l: { from: string; type: string; to: string | null; toTitle: string | null; origin: 'tool' | 'body' }) {
    let existing = this.db.selectFrom('links').select(COLS).where('from_note', '=', l.from).where('type', '=', l.type);
    existing = l.to
      ? existing.where('to_note', '=', l.to)
      : existing.where('to_note', 'is', null).where('to_key', '=', `t:${titleKey(l.toTitle ?? '')}`);
    const found = await existing.where('origin', '=', l.origin).executeTakeFirst();
    if (found) return { link: found as LinkRow, created: false };
    const row = await this.db
      .insertInto('links')
      .values({
        id: randomUUID(),
        from_note: l.from,
        type: l.type,
        to_note: l.to,
        to_title: l.toTitle,
        to_key: l.to ? `id:${l.to}` : `t:${titleKey(l.toTitle ?? '')}`,
        origin: l.origin,
      })
      .onConflict((oc) => oc.columns(['from_note', 'type', 'to_key', 'origin']).doNothing())
      .returning(COLS)
      .executeTakeFirst();
    if (row) return { link: row as LinkRow, created: true };
    const again = await this.db
      .selectFrom('links')
      .select(COLS)
      .where('from_note', '=', l.from)
      .where('type', '=', l.type)
      .where('origin', '=', l.origin)
      .where('to_key', '=', l.to ? `id:${l.to}` : `t:${titleKey(l.toTitle ?? '')}`)
      .executeTakeFirstOrThrow();
    return { link: again as LinkRow, created: false };
  }

  /** Drops the links a note's body made (they are rebuilt from the new body). */
  async dropBodyLinks(from: string): Promise<void> {
    await this.db.deleteFrom('links').where('from_note', '=', from).where('origin', '=', 'body').execute();
  }

  /** Resolves forward references to `title` from notes of the project to the note `id`. */
  async resolvePending(project: string, title: string, id: string): Promise<number> {
    const r = await sql`update links l set to_note = ${id}
      from notes f where l.from_note = f.id and f.project = ${project} and l.to_note is null
        and l.to_key = ${`t:${titleKey(title)}`} and l.from_note <> ${id}`.execute(this.db);
    return Number(r.numAffectedRows ?? 0);
  }

  async outgoing(id: string): Promise<LinkRow[]> {
    return this.db
      .selectFrom('links')
      .select(COLS)
      .where('from_note', '=', id)
      .orderBy('created_at')
      .orderBy('id')
      .execute() as Promise<LinkRow[]>;
  }

  /** Links into a note from live notes: a trashed note's links stay (restore brings them back) but do not show. */
  async incoming(id: string): Promise<LinkRow[]> {
    return this.db
      .selectFrom('links as l')
      .innerJoin('notes as f', 'f.id', 'l.from_note')
      .select(COLS.map((c) => `l.${c}` as const))
      .where('l.to_note', '=', id)
      .where('f.deleted_at', 'is', null)
      .orderBy('l.created_at')
      .orderBy('l.id')
      .execute() as Promise<LinkRow[]>;
  }

  /** Neighbours of a set of notes over resolved links, both ways (two index lookups, not one OR scan). */
  async neighbours(ids: string[]): Promise<Array<{ from: string; to: string; type: string }>> {
    if (!ids.length) return [];
    const { rows } = await sql<{ from: string; to: string; type: string }>`
      select from_note as "from", to_note as "to", type, created_at from links where from_note = any(${ids}::uuid[]) and to_note is not null
      union
      select from_note, to_note, type, created_at from links where to_note = any(${ids}::uuid[])
      order by created_at`.execute(this.db);
    return rows;
  }
}

/** A link as the tools show it. */
export function linkView(l: LinkRow) {
  return {
    id: l.id,
    type: l.type,
    from: l.from_note,
    to: l.to_note,
    toTitle: l.to_title,
    resolved: l.to_note !== null,
  };
}
