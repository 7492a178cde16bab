import { randomUUID } from 'node:crypto';
import { type KbNoteChanged, ok, type refuse } from '@studium/contracts';
import { type CallContext, checkDeadline, emitEvent, emitEventsFrom, Failure, type Logger } from '@studium/platform';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { KnowledgeDb } from './db.ts';
import { detectLanguage } from './domain/language.ts';
import { applyEdit, titleKey, titleOf, wikiLinks } from './domain/markdown.ts';
import { normalisePath } from './domain/paths.ts';
import { type Embeddings, embeddingText } from './embeddings.ts';
import {
  editRefusal,
  folderNotFound,
  invalidPath,
  noteNotFound,
  Refused,
  titleMissing,
  titleTaken,
  versionConflict,
} from './refusals.ts';
import { ActivityRepository } from './repositories/activity.repository.ts';
import { LinkRepository, type linkView } from './repositories/link.repository.ts';
import { NoteRepository, type NoteRow } from './repositories/note.repository.ts';
import type { ProjectRow } from './repositories/project.repository.ts';
import type { TextSearch } from './text-search.ts';

/** PostgreSQL's error code of a statement cancelled by statement_timeout. */
const QUERY_CANCELED = '57014';

/** Who makes a change: an agent through a tool, or a person through the CLI or the HTTP route. */
export interface Actor {
  user: string;
  kind: 'agent' | 'human';
}

/** The version token of a note at a version (opaque to agents). */
export function versionToken(n: { id: string; version: number }): string {
  return `${n.id.slice(0, 8)}.${n.version}`;
}

/** The repositories of one transaction. */
export function repos(db: Kysely<KnowledgeDb> | Transaction<KnowledgeDb>) {
  return {
    notes: new NoteRepository(db),
    links: new LinkRepository(db),
    activity: new ActivityRepository(db),
  };
}

type Repos = ReturnType<typeof repos>;

/** What a written note answers (create_note, edit_note, move_note, rename_note). */
export function written(n: NoteRow, project: ProjectRow | null, links?: ReturnType<typeof linkView>[]) {
  return {
    id: n.id,
    title: n.title,
    path: n.folder,
    project: project?.handle ?? null,
    versionToken: versionToken(n),
    ...(links ? { links } : {}),
  };
}

/**
 * Every change of a note goes through here: the new state, a revision, [[links]] of the body,
 * forward references the title resolves, the activity row and the outbox event, in one
 * transaction; the embedding follows after commit when a provider is configured.
 */
export class Writer {
  constructor(
    private readonly db: Kysely<KnowledgeDb>,
    private readonly ts: TextSearch,
    private readonly embeddings: Embeddings | null,
    private readonly log: Logger,
    private readonly pgvector = false,
  ) {}

  transaction<T>(fn: (r: Repos, trx: Transaction<KnowledgeDb>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => fn(repos(trx), trx));
  }

  /** Runs `fn` in the caller's transaction `within`, or in a new one committed when it returns. */
  private within<T>(
    within: Transaction<KnowledgeDb> | undefined,
    fn: (r: Repos, trx: Transaction<KnowledgeDb>) => Promise<T>,
  ): Promise<T> {
    return within ? fn(repos(within), within) : this.transaction(fn);
  }

  private lang(title: string, body: string) {
    // The language is recorded for information; the index covers Russian and Kazakh in every note.
    return { lang: detectLanguage(`${title}\n${body}`), hunspell: this.ts.hunspell };
  }

  /** Records revision, activity and event of a change already written. */
  async recorded(
    r: Repos,
    trx: Transaction<KnowledgeDb>,
    n: NoteRow,
    project: ProjectRow | null,
    action: string,
    by: Actor,
  ) {
    await r.notes.addRevision(n, action, by.user, by.kind);
    await r.activity.record({ note: n.id, project: n.project, owner: n.owner, action, by: by.user, byKind: by.kind });
    const event: KbNoteChanged = {
      note: n.id,
      class: n.class,
      project: project?.handle ?? null,
      space: project?.space ?? null,
      action,
      version: n.version,
      by: by.user,
      by_kind: by.kind,
      at: new Date().toISOString(),
    };
    await emitEvent(trx, 'knowledge.kb_note_changed', event);
  }

  /** Rebuilds the links of a note's body: each [[Title]] resolved in the project, or a forward reference. */
  async bodyLinks(r: Repos, n: NoteRow): Promise<void> {
    await r.links.dropBodyLinks(n.id);
    if (!n.project) return;
    for (const t of wikiLinks(n.body)) {
      const target = await r.notes.resolveTitle(n.project, t);
      await r.links.add({ from: n.id, type: 'mentions', to: target?.id ?? null, toTitle: t, origin: 'body' });
    }
  }

  /** Creates a shared note in a project; the title is the body's first # H1. */
  async create(
    project: ProjectRow,
    input: { body: string; path?: string; type?: string; tags?: string[] },
    by: Actor,
    extra?: (r: Repos, n: NoteRow) => Promise<ReturnType<typeof refuse> | ReturnType<typeof linkView>[]>,
  ) {
    const title = titleOf(input.body);
    if (!title) return titleMissing();
    const folder = normalisePath(input.path);
    if (folder === null) return invalidPath(input.path ?? '');
    const tags = [...new Set((input.tags ?? []).map((t) => t.trim()).filter(Boolean))];
    const result = await this.transaction(async (r, trx) => {
      await r.notes.lockKey(`title:${project.id}:${titleKey(title)}`);
      const taken = await r.notes.titleHolder(project.id, title);
      if (taken) return titleTaken(title, taken.note.id, taken.alias);
      const n = await r.notes.insert({
        id: randomUUID(),
        project: project.id,
        class: 'user-doc',
        owner: null,
        category: null,
        folder,
        title,
        body: input.body,
        type: input.type?.trim() || null,
        tags,
        by: by.user,
        byKind: by.kind,
        ...this.lang(title, input.body),
      });
      await r.notes.dropAlias(project.id, title);
      await this.bodyLinks(r, n);
      await r.links.resolvePending(project.id, title, n.id);
      let links: ReturnType<typeof linkView>[] | undefined;
      if (extra) {
        const made = await extra(r, n);
        if (!Array.isArray(made)) {
          // A refused link refuses the whole note: nothing is written.
          throw new Refused(made);
        }
        links = made;
      }
      await this.recorded(r, trx, n, project, 'created', by);
      return ok(written(n, project, links));
    }).catch((err) => {
      if (err instanceof Refused) return err.reply;
      if ((err as { code?: string }).code === '23505') return titleTaken(title, '');
      throw err;
    });
    if (result.ok) await this.embed(result.data.id);
    return result;
  }

  /**
   * Changes a note's body, title or folder under its version token (CAS). A changed H1 renames
   * the note (the old title becomes an alias), as rename_note does.
   *
   * With `within`, the change joins the caller's transaction: nothing commits here and no
   * embedding follows (the caller embeds after its commit if the text changed). A refusal is
   * answered before this note is written; the caller must still roll its transaction back (throw
   * `Refused`) if it changed other notes before.
   */
  async change(
    id: string,
    token: string | null,
    project: ProjectRow | null,
    compute: (n: NoteRow) => { ok: true; title: string; folder: string; body: string } | ReturnType<typeof refuse>,
    action: string,
    by: Actor,
    visible: (n: NoteRow) => boolean,
    within?: Transaction<KnowledgeDb>,
  ) {
    const result = await this.within(within, async (r, trx) => {
      const n = await r.notes.lock(id);
      if (!n || n.deleted_at || !visible(n)) return noteNotFound(id);
      if (token !== null && token !== versionToken(n)) return versionConflict(id, versionToken(n));
      const next = compute(n);
      if (!next.ok) return next;
      // Nothing to change (a move to its own folder, a rename to its own title, an empty append):
      // no revision, no activity row, no event — the note as it is.
      if (next.title === n.title && next.folder === n.folder && next.body === n.body) {
        return ok({ ...written(n, project), unchanged: true as const });
      }
      const renamed = n.class === 'user-doc' && titleKey(next.title) !== titleKey(n.title);
      if (renamed && n.project) {
        // Both titles: the new one is taken, the old one becomes an alias (a taken title) — a
        // create_note of either waits for this rename. Sorted, so two renames cannot deadlock.
        const keys = [titleKey(n.title), titleKey(next.title)].sort();
        for (const key of keys) await r.notes.lockKey(`title:${n.project}:${key}`);
        const taken = await r.notes.titleHolder(n.project, next.title);
        if (taken && taken.note.id !== n.id) return titleTaken(next.title, taken.note.id, taken.alias);
      }
      const saved = await r.notes.update(
        n.id,
        { title: next.title, folder: next.folder, body: next.body, ...this.lang(next.title, next.body) },
        by.user,
        by.kind,
      );
      if (this.pgvector && (saved.title !== n.title || saved.body !== n.body)) await r.notes.clearVector(n.id);
      if (renamed && n.project) {
        await r.notes.addAlias(n.project, n.title, n.id);
        await r.notes.dropAlias(n.project, next.title);
        await r.links.resolvePending(n.project, next.title, n.id);
      }
      if (next.body !== n.body) await this.bodyLinks(r, saved);
      await this.recorded(r, trx, saved, project, renamed && action === 'edited' ? 'renamed' : action, by);
      return ok(written(saved, project));
    });
    if (result.ok && action !== 'moved' && !within && !('unchanged' in result.data)) await this.embed(id);
    return result;
  }

  /**
   * move_folder and rename_folder: moves every live shared note of folder `from` and of every
   * folder below it to `to`, in ONE transaction of a fixed number of statements whatever the
   * folder's size. The notes are locked in one statement (in id order); then one statement per
   * table writes what `change` writes for a move of one note: the new folder with the version
   * bumped, one `moved` revision, one activity row and one outbox event per note. Ids, titles,
   * bodies, links, aliases and embeddings stay. A note that would pass the depth limit refuses the
   * whole folder (`invalidPath` with the first such path in id order) before anything is written.
   * The caller's deadline is checked after the lock wait and right before commit: a caller that
   * stopped waiting gets no move committed behind its back (504, rolled back).
   */
  async moveFolder(
    project: ProjectRow,
    from: string,
    to: string,
    by: Actor,
    ctx: Pick<CallContext, 'signal' | 'deadline'>,
  ) {
    return this.transaction(async (r, trx) => {
      // No statement outlasts the caller: a lock wait or a write still running at the deadline is
      // cancelled (and the transaction rolled back) rather than finished for nobody.
      if (ctx.deadline) {
        const left = Math.max(1, Math.ceil(ctx.deadline - Date.now()));
        await sql`select set_config('statement_timeout', ${String(left)}, true)`.execute(trx);
      }
      const rows = await r.notes.lockFolder(project.id, from);
      if (!rows.length) return folderNotFound(from);
      // The folder is already there (move_folder to its own parent, rename_folder to its own name).
      if (to === from) return ok({ project: project.handle, from, to, moved: 0 });
      const moves = rows.map((row) => ({ id: row.id, folder: to + row.folder.slice(from.length) }));
      // A note deep below may land past the depth limit: the whole folder stays.
      const tooDeep = moves.find((m) => normalisePath(m.folder) !== m.folder);
      if (tooDeep) return invalidPath(tooDeep.folder);
      checkDeadline(ctx);
      const ids = moves.map((m) => m.id);
      const moved = await r.notes.moveMany(moves, by.user, by.kind);
      if (moved !== moves.length) throw new Error(`moved ${moved} of ${moves.length} locked notes`);
      await r.notes.addRevisions(ids, 'moved', by.user, by.kind);
      await r.activity.recordMany(ids, 'moved', by.user, by.kind);
      // The event `recorded` writes for each note (KbNoteChanged), built in SQL.
      const at = new Date().toISOString();
      await emitEventsFrom(
        trx,
        'knowledge.kb_note_changed',
        sql`select jsonb_build_object('note', id, 'class', class, 'project', ${project.handle}::text,
            'space', ${project.space}::text, 'action', 'moved', 'version', version, 'by', ${by.user}::text,
            'by_kind', ${by.kind}::text, 'at', ${at}::text) as data, id as ord
          from notes where id = any(${ids}::uuid[])`,
      );
      checkDeadline(ctx);
      return ok({ project: project.handle, from, to, moved });
    }).catch((err) => {
      if ((err as { code?: string }).code === QUERY_CANCELED) throw new Failure(504, 'deadline passed');
      throw err;
    });
  }

  /** edit_note's modes over `change`. */
  edit(
    id: string,
    token: string,
    project: ProjectRow | null,
    e: { mode: string; content: string; heading?: string; find?: string },
    by: Actor,
    visible: (n: NoteRow) => boolean,
  ) {
    return this.change(
      id,
      token,
      project,
      (n) => {
        // An empty append or prepend adds nothing: the note stays as it is (no revision).
        if ((e.mode === 'append' || e.mode === 'prepend') && !e.content.trim()) {
          return { ok: true, title: n.title, folder: n.folder, body: n.body };
        }
        const applied = applyEdit(n.body, e.mode, e.content, e.heading, e.find);
        if (!applied.ok) return editRefusal(applied.code, applied.count);
        if (n.class === 'agent-memory') return { ok: true, title: n.title, folder: n.folder, body: applied.body };
        const title = titleOf(applied.body);
        if (!title) return titleMissing();
        return { ok: true, title, folder: n.folder, body: applied.body };
      },
      'edited',
      by,
      visible,
    );
  }

  /** Moves a note to the trash. */
  async trash(id: string, project: ProjectRow | null, by: Actor, visible: (n: NoteRow) => boolean) {
    return this.transaction(async (r, trx) => {
      const n = await r.notes.lock(id);
      if (!n || n.deleted_at || !visible(n)) return noteNotFound(id);
      const saved = await r.notes.trash(n.id, by.user, by.kind);
      await this.recorded(r, trx, saved, project, 'trashed', by);
      return ok({ id: n.id, title: n.title, trashed: true as const });
    });
  }

  /** Appends an observation under a category of the caller's memory (one note per category). */
  async remember(owner: string, project: ProjectRow | null, category: string, observation: string, by: Actor) {
    const result = await this.transaction(async (r, trx) => {
      await r.notes.lockKey(`memory:${owner}:${project?.id ?? ''}:${category}`);
      const held = await r.notes.memory(owner, project?.id ?? null, category);
      const line = `- ${observation.replace(/\s+/g, ' ').trim()} (${new Date().toISOString().slice(0, 10)})`;
      if (held) {
        const body = `${held.body.replace(/\s+$/, '')}\n${line}\n`;
        const saved = await r.notes.update(
          held.id,
          { title: held.title, folder: held.folder, body, ...this.lang(held.title, body) },
          by.user,
          by.kind,
        );
        if (this.pgvector) await r.notes.clearVector(held.id);
        await this.recorded(r, trx, saved, project, 'remembered', by);
        return saved;
      }
      const title = project ? `${project.title}: ${category}` : category;
      const body = `# ${title}\n\n${line}\n`;
      const n = await r.notes.insert({
        id: randomUUID(),
        project: project?.id ?? null,
        class: 'agent-memory',
        owner,
        category,
        folder: '',
        title,
        body,
        type: 'memory',
        tags: [],
        by: by.user,
        byKind: by.kind,
        ...this.lang(title, body),
      });
      await this.recorded(r, trx, n, project, 'remembered', by);
      return n;
    });
    await this.embed(result.id);
    return result;
  }

  /** Restores a trashed note (people only); refused when its title is taken meanwhile. */
  async restore(id: string, project: ProjectRow | null, by: string) {
    return this.transaction(async (r, trx) => {
      const n = await r.notes.lock(id);
      if (!n?.deleted_at) return noteNotFound(id);
      if (n.project && n.class === 'user-doc') {
        const taken = await r.notes.titleHolder(n.project, n.title);
        if (taken && taken.note.id !== n.id) return titleTaken(n.title, taken.note.id, taken.alias);
      }
      const saved = await r.notes.restore(n.id, by);
      await this.recorded(r, trx, saved, project, 'restored', { user: by, kind: 'human' });
      return ok(written(saved, project));
    });
  }

  /** Deletes a trashed note for good (people only). */
  async purge(id: string) {
    const done = await new NoteRepository(this.db).purge(id);
    return done ? ok({ id, purged: true }) : noteNotFound(id);
  }

  /** Stores the note's embedding when a provider is configured; a failure leaves search on text. */
  async embed(id: string): Promise<void> {
    if (!this.embeddings) return;
    try {
      const n = await new NoteRepository(this.db).get(id);
      if (!n) return;
      const [v] = await this.embeddings.embed([embeddingText(n.title, n.body)]);
      await new NoteRepository(this.db).setEmbedding(n, v, this.pgvector);
    } catch (err) {
      this.log.warn({ err: (err as Error).message, note: id }, 'embedding failed; the note stays searchable by text');
    }
  }
}

export { Refused };
