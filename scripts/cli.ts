// The admin CLI: `npm run studium -- <command>`. Writes the services' own schemas the way the
// services do, and announces principal changes on NATS so edges drop cached principals.
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { PRINCIPAL_CHANGED } from '@studium/contracts';
import {
  BaseConfig,
  deadLetterSchemas,
  ensureDatabase,
  listDeadLetters,
  loadConfig,
  migrate,
  natsOptions,
  openDatabase,
  PLATFORM_MIGRATIONS,
  replayDeadLetter,
} from '@studium/platform';
import type { Kysely } from 'kysely';
import { connect } from 'nats';
import type { EdgeDb } from '../services/edge/src/audit.ts';
import { listGrants, revokeGrants } from '../services/edge/src/oauth/grants.ts';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS as ENROLLMENT_MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { parseIsoDate } from '../services/enrollment/src/domain/iso-date.ts';

const USAGE = `studium admin CLI

  user add <login> <full name> [--role ROLE]...    create or update a user (roles: Student, Manager, Teacher,
                                                   Course Creator, Moderator, System Manager, Administrator)
  user password <login>                            set the user's sign-in password (read from stdin, not echoed)
  user revoke <login>                              end all the user's access: API tokens and OAuth grants
  grant list <login>                               the user's OAuth grants (assistants signed in as them)
  grant revoke <login> [grant-id]                  end the user's OAuth grants, or one of them (API tokens stay)
  org add <name> <title>                           create or rename an organization
  org suspend <name> | org resume <name>           suspend or reinstate an organization
  member add <org> <login> [--manager]             add a member (or manager) to an organization
  member remove <org> <login>
  token issue <login> [--scope read|write] [--expires ISO-8601] [--label TEXT]
                                                   print a new API token (shown once)
  token revoke <token-id>
  token list [login]
  course allow <org> <course id> | course disallow <org> <course id>
                                                   open or close a course to an organization
  course assign <org> <login> <course id> [--mandatory] [--deadline ISO-8601]
                                                   assign a course to a member of an organization
  enrollments [--user LOGIN] [--org ORG] [--course ID]
  program save <key> <title> <course id>... [--ordered]
                                                   create or replace a program (a chain of courses)
  program member <key> <login> | program remove-member <key> <login>
  programs
  audit [--limit N]                                recent access violations seen by the edge
  dead-letters [--all] [--schema NAME]             events a consumer parked after its last failed attempt
                                                   (--all: replayed ones too)
  dead-letters replay <schema> <id>...             publish parked events again, once their cause is fixed
  release build <map-dir> [--out FILE]             validate a course map and build its release (digest, warnings)
  release publish <map-dir|release.json> [--attach <course id>]
                                                   publish the release to the courses service

Dates are ISO-8601: 2030-01-31 (midnight UTC), 2030-01-31T18:00 (UTC) or 2030-01-31T18:00:00+05:00.
Users, organizations, programs and roles must exist; course ids must be in enrollment's catalog
(built from the courses service's events), and an assigned course must be published.
  kb …                                             the knowledge base: projects, trash, restore, purge (kb --help)
  reporting rebuild | reporting export <org>...    reports: rebuild from the event stream, CSV export (reporting --help)
`;

if (process.argv[2] === 'kb') {
  const { main } = await import('./kb-cli.ts');
  process.exit(await main(process.argv.slice(3)));
}

if (process.argv[2] === 'release') {
  // The release pipeline has its own flags; hand it the raw arguments.
  const { main } = await import('./release.ts');
  process.exit(await main(process.argv.slice(3)));
}

if (process.argv[2] === 'reporting') {
  const { main } = await import('./reporting.ts');
  process.exit(await main(process.argv.slice(3)));
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    role: { type: 'string', multiple: true },
    manager: { type: 'boolean' },
    scope: { type: 'string' },
    expires: { type: 'string' },
    label: { type: 'string' },
    limit: { type: 'string' },
    mandatory: { type: 'boolean' },
    deadline: { type: 'string' },
    ordered: { type: 'boolean' },
    user: { type: 'string' },
    org: { type: 'string' },
    course: { type: 'string' },
    all: { type: 'boolean' },
    schema: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

const [group, action, ...rest] = positionals;
if (values.help || !group) {
  console.log(USAGE);
  process.exit(group ? 0 : 1);
}

const config = loadConfig(BaseConfig);
const EDGE_MIGRATIONS = new URL('../services/edge/migrations', import.meta.url).pathname;
await ensureDatabase(config.DATABASE_URL);
const database = openDatabase<EnrollmentDb>(config.DATABASE_URL, 'enrollment', 2);
await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, ENROLLMENT_MIGRATIONS]);
const nc = await connect(natsOptions(config, 'studium-cli')).catch(() => null);
const admin = new EnrollmentAdmin(database.db, nc ? { nc, prefix: config.SUBJECT_PREFIX } : undefined);

/** Runs with the edge's schema (OAuth grants, audit log), migrated if the edge never ran. */
async function withEdge<T>(run: (db: Kysely<EdgeDb>) => Promise<T>): Promise<T> {
  const edge = openDatabase<EdgeDb>(config.DATABASE_URL, 'edge', 1);
  try {
    await migrate(edge.pool, 'edge', [EDGE_MIGRATIONS]);
    return await run(edge.db);
  } finally {
    await edge.close();
  }
}

/** Tells edges to drop the user's cached principals (their OAuth tokens changed). */
function announce(user: string): void {
  const subject = config.SUBJECT_PREFIX ? `${config.SUBJECT_PREFIX}.${PRINCIPAL_CHANGED}` : PRINCIPAL_CHANGED;
  nc?.publish(subject, JSON.stringify({ user }));
}

/** A secret from stdin: one line when piped, typed without echo on a terminal. */
async function readSecret(prompt: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
  if (process.stdin.isTTY) {
    process.stdout.write(prompt);
    (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => {};
  }
  const line = await new Promise<string>((resolve) => {
    rl.once('line', resolve);
    rl.once('close', () => resolve(''));
  });
  rl.close();
  if (process.stdin.isTTY) process.stdout.write('\n');
  return line.replace(/\r$/, '');
}

function need(n: number, usage: string): void {
  if (rest.length < n) {
    console.error(`usage: studium ${usage}`);
    process.exit(1);
  }
}

try {
  switch (`${group} ${action ?? ''}`.trim()) {
    case 'user add':
      need(2, 'user add <login> <full name> [--role ROLE]...');
      await admin.upsertUser(rest[0], rest.slice(1).join(' '), values.role ?? ['Student']);
      console.log(`user ${rest[0]} saved`);
      break;
    case 'org add':
      need(2, 'org add <name> <title>');
      await admin.upsertOrganization(rest[0], rest.slice(1).join(' '));
      console.log(`organization ${rest[0]} saved`);
      break;
    case 'org suspend':
    case 'org resume':
      need(1, `org ${action} <name>`);
      await admin.setSuspended(rest[0], action === 'suspend');
      console.log(`organization ${rest[0]} ${action === 'suspend' ? 'suspended' : 'reinstated'}`);
      break;
    case 'member add':
      need(2, 'member add <org> <login> [--manager]');
      await admin.addMember(rest[0], rest[1], values.manager ? 'manager' : 'member');
      console.log(`${rest[1]} is a ${values.manager ? 'manager' : 'member'} of ${rest[0]}`);
      break;
    case 'member remove':
      need(2, 'member remove <org> <login>');
      await admin.removeMember(rest[0], rest[1]);
      console.log(`${rest[1]} removed from ${rest[0]}`);
      break;
    case 'token issue': {
      need(1, 'token issue <login> [--scope read|write] [--expires ISO-8601] [--label TEXT]');
      const scope = values.scope ?? 'write';
      if (scope !== 'read' && scope !== 'write') throw new Error('--scope must be read or write');
      const expiresAt = values.expires ? parseIsoDate(values.expires, '--expires') : null;
      const t = await admin.issueToken(rest[0], { scope, expiresAt, label: values.label });
      console.log(`token id ${t.id}\n${t.token}`);
      break;
    }
    case 'token revoke':
      need(1, 'token revoke <token-id>');
      if (!(await admin.revokeToken(rest[0]))) throw new Error(`no live token ${rest[0]} (see token list)`);
      console.log(`token ${rest[0]} revoked`);
      break;
    case 'token list':
      console.table(await admin.listTokens(rest[0]));
      break;
    case 'user password': {
      need(1, 'user password <login>  (the password is read from stdin)');
      await admin.setPassword(rest[0], await readSecret('password: '));
      console.log(`password of ${rest[0]} set`);
      break;
    }
    case 'user revoke': {
      need(1, 'user revoke <login>');
      const tokens = await admin.revokeAllAccess(rest[0]);
      const grants = await withEdge((db) => revokeGrants(db, rest[0]));
      console.log(`${rest[0]}: ${tokens} API token(s) and ${grants} OAuth grant(s) revoked`);
      break;
    }
    case 'grant list':
      need(1, 'grant list <login>');
      console.table(await withEdge((db) => listGrants(db, rest[0])));
      break;
    case 'grant revoke': {
      need(1, 'grant revoke <login> [grant-id]');
      const grants = await withEdge((db) => revokeGrants(db, rest[0], 'admin', rest[1]));
      if (rest[1] && !grants) throw new Error(`no live grant ${rest[1]} of ${rest[0]} (see grant list)`);
      announce(rest[0]);
      console.log(`${rest[0]}: ${grants} OAuth grant(s) revoked`);
      break;
    }
    case 'course allow':
    case 'course disallow':
      need(2, `course ${action} <org> <course id>`);
      await admin.requireCourse(rest[1], action === 'disallow' ? { allowedIn: rest[0] } : {});
      if (action === 'allow') await admin.allowCourse(rest[0], rest[1]);
      else await admin.disallowCourse(rest[0], rest[1]);
      console.log(`course ${rest[1]} ${action === 'allow' ? 'opened to' : 'closed to'} ${rest[0]}`);
      break;
    case 'course assign': {
      need(3, 'course assign <org> <login> <course id> [--mandatory] [--deadline ISO-8601]');
      await admin.requireCourse(rest[2], { published: true });
      const r = await admin.assignCourse(rest[0], rest[1], rest[2], {
        mandatory: values.mandatory ?? false,
        deadline: values.deadline ?? null,
      });
      console.log(`${rest[2]} ${r.created ? 'assigned to' : 'updated for'} ${rest[1]} in ${rest[0]}`);
      break;
    }
    case 'enrollments':
      console.table(await admin.listEnrollments({ user: values.user, org: values.org, course: values.course }));
      break;
    case 'program save':
      need(3, 'program save <key> <title> <course id>... [--ordered]');
      for (const course of rest.slice(2)) await admin.requireCourse(course);
      await admin.saveProgram(rest[0], rest[1], values.ordered ?? false, rest.slice(2));
      console.log(`program ${rest[0]} saved`);
      break;
    case 'program member':
      need(2, 'program member <key> <login>');
      await admin.addProgramMember(rest[0], rest[1]);
      console.log(`${rest[1]} joined program ${rest[0]}`);
      break;
    case 'program remove-member':
      need(2, 'program remove-member <key> <login>');
      await admin.removeProgramMember(rest[0], rest[1]);
      console.log(`${rest[1]} left program ${rest[0]}`);
      break;
    case 'programs':
      console.table(await admin.listPrograms());
      break;
    case 'audit': {
      const limit = Number(values.limit ?? 50);
      if (!Number.isInteger(limit) || limit < 1)
        throw new Error(`--limit must be a positive whole number, not "${values.limit}"`);
      const edge = openDatabase<EdgeDb & { audit_log: { at: string } }>(config.DATABASE_URL, 'edge', 1);
      const rows = await edge.db
        .selectFrom('audit_log')
        .select(['at', 'kind', 'user_id', 'endpoint', 'tool'])
        .orderBy('at', 'desc')
        .limit(limit)
        .execute()
        .catch(() => []);
      console.table(rows);
      await edge.close();
      break;
    }
    case 'dead-letters':
    case 'dead-letters list': {
      const schemas = values.schema ? [values.schema] : await deadLetterSchemas(database.pool);
      const rows: Record<string, unknown>[] = [];
      for (const schema of schemas) {
        const service = openDatabase(config.DATABASE_URL, schema, 1);
        try {
          for (const d of await listDeadLetters(service.pool, { all: values.all })) {
            rows.push({ schema, ...d, error: d.error.slice(0, 120) });
          }
        } finally {
          await service.close();
        }
      }
      if (rows.length) console.table(rows);
      else console.log('no dead letters');
      break;
    }
    case 'dead-letters replay': {
      need(2, 'dead-letters replay <schema> <id>...');
      if (!nc) throw new Error('NATS is not reachable: nothing replayed');
      const service = openDatabase(config.DATABASE_URL, rest[0], 1);
      try {
        for (const id of rest.slice(1)) {
          if (!/^\d+$/.test(id)) throw new Error(`not a dead-letter id: ${id}`);
          const replayed = await replayDeadLetter(service.pool, nc, rest[0], Number(id));
          console.log(replayed ? `dead letter ${rest[0]}/${id} replayed` : `no parked dead letter ${rest[0]}/${id}`);
          if (!replayed) process.exitCode = 1;
        }
      } finally {
        await service.close();
      }
      break;
    }
    default:
      console.error(`unknown command: ${group} ${action ?? ''}\n\n${USAGE}`);
      process.exitCode = 1;
  }
} catch (err) {
  console.error(`error: ${describe(err)}`);
  process.exitCode = 1;
} finally {
  await nc?.drain();
  await database.close();
}

/**
 * The message of a failed command. The admin checks what it is given first; a constraint the
 * database still refuses (a concurrent change) is named in words, not as a raw driver error.
 */
function describe(err: unknown): string {
  const e = err as Error & { code?: string; detail?: string };
  if (e.code === '23503') return `refers to something that does not exist: ${e.detail ?? e.message}`;
  if (e.code?.startsWith('23')) return `the database refused the change: ${e.detail ?? e.message}`;
  return e.message;
}
