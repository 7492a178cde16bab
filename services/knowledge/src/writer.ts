import { randomUUID } from 'node:crypto';
import { type KbNoteChanged, ok, type refuse } from '@studium/contracts';
import { emitEvent, type Logger } from '@studium/platform';
import type { Kysely, Transaction } from 'kysely';
import type { KnowledgeDb } from './db.ts';
import { detectLanguage } from './domain/language.ts';
import { applyEdit, titleKey, titleOf, wikiLinks } from './domain/markdown.ts';
import { normalisePath } from './domain/paths.ts';
import { type Embeddings, embeddingText } from './embeddings.ts';
import {
  editRefusal,
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
    const lang = detectLanguage(`${title}\n${body}`);
    return { lang, cfg: this.ts.configFor(lang) };
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
      const taken = await r.notes.byTitle(project.id, title);
      if (taken) return titleTaken(title, taken.id);
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
   * With `within`, the change joins the caller's transaction (move_folder and rename_folder move
   * every note of a folder in one): nothing commits here and no embedding follows (the caller
   * embeds after its commit if the text changed). A refusal is answered before this note is
   * written; the caller must still roll its transaction back (throw `Refused`) so that the notes
   * it changed before are undone too.
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
      const renamed = n.class === 'user-doc' && titleKey(next.title) !== titleKey(n.title);
      if (renamed && n.project) {
        await r.notes.lockKey(`title:${n.project}:${titleKey(next.title)}`);
        const taken = await r.notes.byTitle(n.project, next.title);
        if (taken && taken.id !== n.id) return titleTaken(next.title, taken.id);
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
    if (result.ok && action !== 'moved' && !within) await this.embed(id);
    return result;
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
        const taken = await r.notes.byTitle(n.project, n.title);
        if (taken) return titleTaken(n.title, taken.id);
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
