import { type Kysely, type Selectable, sql } from 'kysely';
import type { KnowledgeDb } from '../db.ts';
import { kazakhStemText } from '../domain/index-text.ts';
import { titleKey } from '../domain/markdown.ts';
import { vectorLiteral } from '../vector-store.ts';

export const NOTE_COLUMNS = [
  'id',
  'project',
  'class',
  'owner',
  'category',
  'folder',
  'title',
  'body',
  'type',
  'tags',
  'frontmatter',
  'version',
  'created_by',
  'created_kind',
  'created_at',
  'updated_by',
  'updated_kind',
  'updated_at',
  'deleted_at',
] as const;

/** A note as the service reads it: the columns above (no tsv, no embedding, no search text). */
export type NoteRow = Pick<Selectable<KnowledgeDb['notes']>, (typeof NOTE_COLUMNS)[number]>;

/** Version of the full-text index a note written now gets (older ones are re-indexed at start). */
export const INDEX_VERSION = 1;

/**
 * How much of a body is indexed, and how much Kazakh stem text at most. A tsvector holds at most
 * 1 MB; three analyses of 100,000 characters of distinct words came to 0.8 MB, so the index takes
 * the first 50,000 characters (some 7,000 words), which keeps the worst case under the limit.
 */
export const INDEXED_BODY_CHARS = 50_000;
const KAZAKH_STEM_CHARS = 120_000;

/**
 * The full-text vector of a note (the SQL function `note_tsv`: Russian/English stems, hunspell-kk
 * lemmas and the Kazakh stems computed here; title weighs more than the body).
 */
export function tsvOf(hunspell: string | null, title: string, body: string) {
  const b = body.slice(0, INDEXED_BODY_CHARS);
  return sql`note_tsv(${title}, ${b}, ${kazakhStemText(title)}, ${kazakhStemText(b, KAZAKH_STEM_CHARS)}, ${hunspell}::regconfig)`;
}

/**
 * Adds the lexemes of notes' vectors to the vocabulary typo tolerance looks in, each under the
 * scope of its note ('s:<space>' for the shared notes of a space's projects, 'o:<owner>' for one
 * owner's agent memory), so that another tenant's lexemes never take the places a correction is
 * looked for in. Call it once per transaction, for all its notes: one statement inserting in
 * sorted order waits at most for other transactions' uncommitted lexemes and can never close a
 * cycle of waits with another such one.
 */
export async function addWords(db: Kysely<KnowledgeDb>, ids: string[]): Promise<void> {
  await sql`insert into kb_vocabulary (scope, word)
    select distinct n.scope, l
    from (
      select case when n.class = 'user-doc' then 's:' || p.space else 'o:' || n.owner end as scope, n.tsv
      from notes n left join projects p on p.id = n.project where n.id = any(${ids}::uuid[])) as n,
      unnest(tsvector_to_array(n.tsv)) as l
    where n.scope is not null and length(l) between 3 and 40 and l !~ '[0-9_]'
    order by n.scope, l
    on conflict do nothing`.execute(db);
}

/**
 * The text trigram similarity looks at: the title (what typos in a query usually aim at; the body
 * is left to full text, where a trigram scan of long texts would cost a full table read).
 */
export function searchText(title: string, _body: string): string {
  return title;
}

/** A new note's values. */
export interface NewNote {
  id: string;
  project: string | null;
  class: 'user-doc' | 'agent-memory';
  owner: string | null;
  category: string | null;
  folder: string;
  title: string;
  body: string;
  type: string | null;
  tags: string[];
  by: string;
  byKind: string;
  lang: string;
  /** The hunspell-kk configuration, null where it is missing. */
  hunspell: string | null;
}

/** All SQL of notes, their revisions and aliases. */
export class NoteRepository {
  constructor(private readonly db: Kysely<KnowledgeDb>) {}

  async insert(n: NewNote): Promise<NoteRow> {
    const fm = JSON.stringify({ ...(n.type ? { type: n.type } : {}), ...(n.tags.length ? { tags: n.tags } : {}) });
    await sql`insert into notes (id, project, class, owner, category, folder, title, body, type, tags, frontmatter, lang, tsv,
        index_version, search_text, created_by, created_kind, updated_by, updated_kind)
      values (${n.id}, ${n.project}, ${n.class}, ${n.owner}, ${n.category}, ${n.folder}, ${n.title}, ${n.body}, ${n.type},
        ${n.tags}::text[], ${fm}::jsonb, ${n.lang}, ${tsvOf(n.hunspell, n.title, n.body)}, ${INDEX_VERSION},
        ${searchText(n.title, n.body)}, ${n.by}, ${n.byKind}, ${n.by}, ${n.byKind})`.execute(this.db);
    await addWords(this.db, [n.id]);
    return (await this.get(n.id)) as NoteRow;
  }

  async get(id: string): Promise<NoteRow | undefined> {
    if (!isUuid(id)) return undefined;
    return this.db.selectFrom('notes').select(NOTE_COLUMNS).where('id', '=', id).executeTakeFirst() as Promise<
      NoteRow | undefined
    >;
  }

  /** Notes by id, in no particular order (missing ids are left out). */
  async many(ids: string[]): Promise<NoteRow[]> {
    const valid = [...new Set(ids.filter(isUuid))];
    if (!valid.length) return [];
    return this.db.selectFrom('notes').select(NOTE_COLUMNS).where('id', 'in', valid).execute() as Promise<NoteRow[]>;
  }

  /**
   * Locks a note row for a change. `for no key update` (what an UPDATE of non-key columns takes):
   * writers of the note still queue behind each other, but a link, revision or activity row that
   * merely references the note (a foreign-key check takes `for key share`) does not wait. With
   * `for update`, a folder move holding note A and waiting for note B deadlocks against an edit of
   * B whose new body links to A.
   */
  async lock(id: string): Promise<NoteRow | undefined> {
    if (!isUuid(id)) return undefined;
    return this.db
      .selectFrom('notes')
      .select(NOTE_COLUMNS)
      .where('id', '=', id)
      .forNoKeyUpdate()
      .executeTakeFirst() as Promise<NoteRow | undefined>;
  }

  /**
   * Locks the live shared notes of a folder and every folder below it, in id order (two folder
   * operations lock their common notes in the same order, so they queue instead of deadlocking).
   * A note changed meanwhile is re-checked after the wait: one moved out or trashed by the writer
   * we waited for is left out.
   */
  async lockFolder(project: string, folder: string): Promise<Array<{ id: string; folder: string }>> {
    const below = `${folder.replace(/[\\%_]/g, (m) => `\\${m}`)}/%`;
    return this.db
      .selectFrom('notes')
      .select(['id', 'folder'])
      .where('project', '=', project)
      .where('class', '=', 'user-doc')
      .where('deleted_at', 'is', null)
      .where((eb) => eb.or([eb('folder', '=', folder), eb('folder', 'like', below)]))
      .orderBy('id')
      .forNoKeyUpdate()
      .execute();
  }

  /**
   * Writes title, folder and body of a locked note, bumping its version. The embedding is dropped
   * only when the text changed (a move keeps it: the writer does not embed moved notes again).
   */
  async update(
    id: string,
    next: { title: string; folder: string; body: string; lang: string; hunspell: string | null },
    by: string,
    byKind: string,
  ): Promise<NoteRow> {
    await sql`update notes set title = ${next.title}, folder = ${next.folder}, body = ${next.body}, lang = ${next.lang},
        tsv = ${tsvOf(next.hunspell, next.title, next.body)}, index_version = ${INDEX_VERSION},
        search_text = ${searchText(next.title, next.body)},
        embedding = case when title = ${next.title} and body = ${next.body} then embedding end,
        version = version + 1, updated_by = ${by}, updated_kind = ${byKind}, updated_at = now()
      where id = ${id}`.execute(this.db);
    await addWords(this.db, [id]);
    return (await this.get(id)) as NoteRow;
  }

  /**
   * Moves locked notes to their new folders in ONE statement, bumping each version and stamping
   * who and when, as {@link update} does for one note. Title, body, language, full-text vector and
   * embedding stay as they are: the text did not change. Returns how many notes it wrote.
   */
  async moveMany(moves: Array<{ id: string; folder: string }>, by: string, byKind: string): Promise<number> {
    const r = await sql`update notes as n set folder = m.folder, version = n.version + 1, updated_by = ${by},
        updated_kind = ${byKind}, updated_at = now()
      from unnest(${moves.map((m) => m.id)}::uuid[], ${moves.map((m) => m.folder)}::text[]) as m(id, folder)
      where n.id = m.id`.execute(this.db);
    return Number(r.numAffectedRows ?? 0n);
  }

  /** Drops a note's pgvector copy of its embedding (only where that column exists). */
  async clearVector(id: string): Promise<void> {
    await sql`update notes set embedding_vec = null where id = ${id}`.execute(this.db);
  }

  /** Stores a note's embedding, unless its text changed since it was read (the vector would be stale). */
  async setEmbedding(n: { id: string; title: string; body: string }, v: number[], pgvector: boolean): Promise<void> {
    await sql`update notes set embedding = ${v}::real[]
      where id = ${n.id} and title = ${n.title} and body = ${n.body}`.execute(this.db);
    if (pgvector) {
      await sql`update notes set embedding_vec = ${vectorLiteral(v)}::vector
        where id = ${n.id} and title = ${n.title} and body = ${n.body}`.execute(this.db);
    }
  }

  /** Moves a note to the trash (version bumps, so a stale token cannot edit it after a restore). */
  async trash(id: string, by: string, byKind: string): Promise<NoteRow> {
    await this.db
      .updateTable('notes')
      .set((eb) => ({
        deleted_at: new Date().toISOString(),
        deleted_by: by,
        version: eb('version', '+', 1),
        updated_by: by,
        updated_kind: byKind,
        updated_at: new Date().toISOString(),
      }))
      .where('id', '=', id)
      .execute();
    return (await this.get(id)) as NoteRow;
  }

  /** Takes a note out of the trash. */
  async restore(id: string, by: string): Promise<NoteRow> {
    await this.db
      .updateTable('notes')
      .set((eb) => ({
        deleted_at: null,
        deleted_by: null,
        version: eb('version', '+', 1),
        updated_by: by,
        updated_kind: 'human',
        updated_at: new Date().toISOString(),
      }))
      .where('id', '=', id)
      .execute();
    return (await this.get(id)) as NoteRow;
  }

  /** Deletes a trashed note for good, with its revisions, links and aliases. */
  async purge(id: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('notes')
      .where('id', '=', id)
      .where('deleted_at', 'is not', null)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Stores the current state of a note as a revision. */
  async addRevision(n: NoteRow, action: string, by: string, byKind: string): Promise<void> {
    await this.db
      .insertInto('note_revisions')
      .values({
        note: n.id,
        version: n.version,
        action,
        title: n.title,
        folder: n.folder,
        body: n.body,
        tags: n.tags,
        by_user: by,
        by_kind: byKind,
      })
      .execute();
  }

  /** Stores the current state of each of these notes as a revision, in ONE statement (in id order). */
  async addRevisions(ids: string[], action: string, by: string, byKind: string): Promise<void> {
    await sql`insert into note_revisions (note, version, action, title, folder, body, tags, by_user, by_kind)
      select id, version, ${action}, title, folder, body, tags, ${by}, ${byKind}
      from notes where id = any(${ids}::uuid[])
      order by id`.execute(this.db);
  }

  async revisions(id: string) {
    return this.db
      .selectFrom('note_revisions')
      .select(['version', 'action', 'title', 'folder', 'body', 'by_user', 'by_kind', 'at'])
      .where('note', '=', id)
      .orderBy('version')
      .execute();
  }

  /** A live shared note of the project with this title. */
  async byTitle(project: string, title: string): Promise<NoteRow | undefined> {
    return this.db
      .selectFrom('notes')
      .select(NOTE_COLUMNS)
      .where('project', '=', project)
      .where('class', '=', 'user-doc')
      .where('deleted_at', 'is', null)
      .where(sql`lower(title)`, '=', titleKey(title))
      .executeTakeFirst() as Promise<NoteRow | undefined>;
  }

  /** The note a title names in a project: its live title, else a former title (alias). */
  async resolveTitle(project: string, title: string): Promise<NoteRow | undefined> {
    const live = await this.byTitle(project, title);
    if (live) return live;
    const alias = await this.db
      .selectFrom('note_aliases')
      .select('note')
      .where('project', '=', project)
      .where('title_key', '=', titleKey(title))
      .executeTakeFirst();
    if (!alias) return undefined;
    const n = await this.get(alias.note);
    return n && !n.deleted_at ? n : undefined;
  }

  /**
   * Who holds a title in a project: a live note by its title, else a live note by a former title
   * (an alias is a taken title: [[Old title]] keeps opening the renamed note). An alias of a
   * trashed note holds nothing.
   */
  async titleHolder(project: string, title: string): Promise<{ note: NoteRow; alias: boolean } | undefined> {
    const live = await this.byTitle(project, title);
    if (live) return { note: live, alias: false };
    const byAlias = await this.resolveTitle(project, title);
    return byAlias ? { note: byAlias, alias: true } : undefined;
  }

  /** Keeps a former title as an alias of the note (a title taken back by a note stops being another's alias). */
  async addAlias(project: string, title: string, note: string): Promise<void> {
    await this.db
      .insertInto('note_aliases')
      .values({ project, title_key: titleKey(title), note, title })
      .onConflict((oc) => oc.columns(['project', 'title_key']).doUpdateSet({ note, title }))
      .execute();
  }

  async dropAlias(project: string, title: string): Promise<void> {
    await this.db
      .deleteFrom('note_aliases')
      .where('project', '=', project)
      .where('title_key', '=', titleKey(title))
      .execute();
  }

  async aliases(note: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('note_aliases')
      .select('title')
      .where('note', '=', note)
      .orderBy('title')
      .execute();
    return rows.map((r) => r.title);
  }

  /** The caller's memory note of a category (project null: memory about the user). */
  async memory(owner: string, project: string | null, category: string): Promise<NoteRow | undefined> {
    let q = this.db
      .selectFrom('notes')
      .select(NOTE_COLUMNS)
      .where('class', '=', 'agent-memory')
      .where('owner', '=', owner)
      .where('category', '=', category)
      .where('deleted_at', 'is', null);
    q = project ? q.where('project', '=', project) : q.where('project', 'is', null);
    return q.forUpdate().executeTakeFirst() as Promise<NoteRow | undefined>;
  }

  /** Serialises writers of one key (a title in a project, a memory category). */
  async lockKey(key: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(this.db);
  }
}

/** True for a canonical UUID (ids of notes); anything else is never an id. */
export function isUuid(s: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);
}
