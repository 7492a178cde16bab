import { type App, type ServiceDeps, startRelay } from '@studium/platform';
import { Access } from './access.ts';
import { KnowledgeConfig } from './config.ts';
import type { KnowledgeDb } from './db.ts';
import { createEmbeddings } from './embeddings.ts';
import { getMyProjectsHandler, kbWhoamiHandler, startSessionHandler } from './handlers/kb/bootstrap.ts';
import { listNotesHandler, recentActivityHandler } from './handlers/kb/discover.ts';
import { getNoteHandler, recallHandler, searchHandler } from './handlers/kb/read.ts';
import {
  moveFolderHandler,
  moveNoteHandler,
  renameFolderHandler,
  renameNoteHandler,
  renameProjectHandler,
} from './handlers/kb/reorganize.ts';
import { createNotesHandler, linkManyHandler } from './handlers/kb/scale.ts';
import {
  createNoteHandler,
  deleteNoteHandler,
  editNoteHandler,
  linkHandler,
  rememberAboutProjectHandler,
  rememberAboutUserHandler,
} from './handlers/kb/write.ts';
import { forgetHandler, lessonHistoryHandler, myNotesHandler, rememberHandler } from './handlers/student-notes.ts';
import type { Kb } from './kb.ts';
import { startReindex } from './reindex.ts';
import { setupTextSearch, warmConnections } from './text-search.ts';
import { setupVectorStore } from './vector-store.ts';
import { Writer } from './writer.ts';

/** Migrations of the knowledge schema. */
export const MIGRATIONS = new URL('../migrations', import.meta.url).pathname;

/** A started knowledge service; tests flush its outbox instead of waiting. */
export interface KnowledgeApp extends App {
  kb: Kb;
  flush(): Promise<void>;
  /** Resolves when notes of an older index version have been re-indexed (started in the background). */
  reindexed: Promise<void>;
}

/** Registers the student-note tools, the 21 /kb tools and knowledge.lesson_history; starts the outbox relay. */
export async function createApp({ bus, nc, database, log, config }: ServiceDeps<KnowledgeDb>): Promise<KnowledgeApp> {
  const cfg = KnowledgeConfig.parse(config ?? {});
  const db = database.db;
  const ts = await setupTextSearch(database.pool, database.schema, log);
  await warmConnections(database.pool, ts, cfg.WARM_CONNECTIONS);
  const pgvector = await setupVectorStore(database.pool, database.schema, log);
  const embeddings = createEmbeddings(cfg);
  const writer = new Writer(db, ts, embeddings, log, pgvector);
  const kb: Kb = {
    db,
    access: new Access(bus, db, cfg.MEMBERSHIP_TTL_MS),
    writer,
    ts,
    embeddings,
    log,
    pgvector,
    vectorScanLimit: cfg.VECTOR_SCAN_LIMIT,
  };
  const reindex = startReindex(db, ts.hunspell, log);
  const relay = await startRelay({ nc, pool: database.pool, schema: database.schema, prefix: bus.prefix, log });
  const service = await bus.serve('knowledge', [
    rememberHandler(db, bus, cfg.NOTE_LIMIT),
    forgetHandler(db),
    myNotesHandler(db),
    lessonHistoryHandler(db),
    startSessionHandler(kb),
    kbWhoamiHandler(kb),
    getMyProjectsHandler(kb),
    listNotesHandler(kb),
    recentActivityHandler(kb),
    searchHandler(kb),
    getNoteHandler(kb),
    recallHandler(kb),
    createNoteHandler(kb),
    rememberAboutUserHandler(kb),
    rememberAboutProjectHandler(kb),
    editNoteHandler(kb),
    deleteNoteHandler(kb),
    linkHandler(kb),
    moveNoteHandler(kb),
    renameNoteHandler(kb),
    moveFolderHandler(kb),
    renameFolderHandler(kb),
    renameProjectHandler(kb),
    createNotesHandler(kb),
    linkManyHandler(kb),
  ]);
  return {
    kb,
    reindexed: reindex.done,
    async flush() {
      await relay.flush();
    },
    async stop() {
      await service.stop();
      await relay.stop();
      await reindex.stop();
    },
  };
}
