// `npm run studium -- kb <command>`: what only people do in the knowledge base (spec 004: restoring
// from the trash and purging it are never tools). Writes the knowledge schema the way the service does.
import { parseArgs } from 'node:util';
import {
  BaseConfig,
  createLogger,
  ensureDatabase,
  loadConfig,
  migrate,
  openDatabase,
  PLATFORM_MIGRATIONS,
} from '@studium/platform';
import { KnowledgeAdmin } from '../services/knowledge/src/admin.ts';
import { MIGRATIONS } from '../services/knowledge/src/app.ts';
import type { KnowledgeDb } from '../services/knowledge/src/db.ts';
import { setupTextSearch } from '../services/knowledge/src/text-search.ts';

const USAGE = `studium kb — the knowledge base, for people

  kb project add <space> <slug> <title>     create the project <space>/<slug> (a space's root project exists on its own)
  kb trash [--limit N]                      trashed notes, newest first
  kb restore <note id> --by <login>         take a note out of the trash (refused when its title is taken meanwhile)
  kb purge <note id>                        delete a trashed note and all its revisions for good
`;

/** Runs one kb command; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { by: { type: 'string' }, limit: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [cmd, ...rest] = positionals;
  if (values.help || !cmd) {
    console.log(USAGE);
    return cmd ? 0 : 1;
  }
  const config = loadConfig(BaseConfig);
  await ensureDatabase(config.DATABASE_URL);
  const database = openDatabase<KnowledgeDb>(config.DATABASE_URL, 'knowledge', 2);
  const log = createLogger('kb-cli', 'warn');
  try {
    await migrate(database.pool, 'knowledge', [PLATFORM_MIGRATIONS, MIGRATIONS]);
    const admin = new KnowledgeAdmin(database.db, await setupTextSearch(database.pool, 'knowledge', log), log);
    if (cmd === 'project' && rest[0] === 'add' && rest.length >= 4) {
      const p = await admin.createProject(rest[1], rest[2], rest.slice(3).join(' '));
      console.log(`project ${p.handle} created`);
      return 0;
    }
    if (cmd === 'trash') {
      for (const n of await admin.trash(Number(values.limit ?? 100))) {
        console.log(`${n.id}  ${n.deleted_at}  ${n.deleted_by}  ${n.folder ? `${n.folder}/` : ''}${n.title}`);
      }
      return 0;
    }
    if (cmd === 'restore' && rest[0] && values.by) {
      const r = await admin.restore(rest[0], values.by);
      console.log(r.ok ? `restored ${r.data.id} (${r.data.title})` : `${r.error.message} [${r.error.code}]`);
      return r.ok ? 0 : 1;
    }
    if (cmd === 'purge' && rest[0]) {
      const r = await admin.purge(rest[0]);
      console.log(r.ok ? `purged ${rest[0]}` : `${r.error.message} [${r.error.code}]`);
      return r.ok ? 0 : 1;
    }
    console.error(USAGE);
    return 1;
  } finally {
    await database.close();
  }
}
