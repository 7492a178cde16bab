import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Kysely } from 'kysely';
import type { NatsConnection } from 'nats';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { hashToken } from '../services/enrollment/src/domain/tokens.ts';

/** Demo people: name in demo-tokens.json → user, roles, memberships. */
export const DEMO_USERS = [
  {
    name: 'student',
    id: 'student@demo.studium',
    fullName: 'Анна Смирнова',
    roles: ['Student'],
    orgs: [['acme', 'member']],
  },
  {
    name: 'manager',
    id: 'manager@demo.studium',
    fullName: 'Борис Петров',
    roles: ['Student', 'Manager'],
    orgs: [['acme', 'manager']],
  },
  { name: 'curator', id: 'curator@demo.studium', fullName: 'Вера Кузнецова', roles: ['Course Creator'], orgs: [] },
  { name: 'admin', id: 'admin@demo.studium', fullName: 'Глеб Администратов', roles: ['Administrator'], orgs: [] },
  { name: 'teacher', id: 'teacher@demo.studium', fullName: 'Дина Учителева', roles: ['Teacher'], orgs: [] },
] as const;

/**
 * Seeds the demo organization and people, idempotently. Tokens already in the file are kept when
 * they still exist in the database, so re-running `npm start` does not break a connected client.
 */
export async function seedDemo(
  db: Kysely<EnrollmentDb>,
  tokensFile: string,
  notify?: { nc: NatsConnection; prefix: string },
): Promise<Record<string, string>> {
  const admin = new EnrollmentAdmin(db, notify);
  await admin.upsertOrganization('acme', 'ООО «Акме»');
  const previous: Record<string, string> = existsSync(tokensFile) ? JSON.parse(readFileSync(tokensFile, 'utf8')) : {};
  const tokens: Record<string, string> = {};
  for (const u of DEMO_USERS) {
    await admin.upsertUser(u.id, u.fullName, [...u.roles]);
    for (const [org, role] of u.orgs) await admin.addMember(org, u.id, role as 'manager' | 'member');
    const old = previous[u.name];
    const live = old
      ? await db
          .selectFrom('api_tokens')
          .select('id')
          .where('token_hash', '=', hashToken(old))
          .where('revoked_at', 'is', null)
          .executeTakeFirst()
      : undefined;
    tokens[u.name] = live ? old : (await admin.issueToken(u.id, { label: 'demo' })).token;
  }
  mkdirSync(dirname(tokensFile), { recursive: true });
  writeFileSync(tokensFile, `${JSON.stringify(tokens, null, 2)}\n`, { mode: 0o600 });
  return tokens;
}

/** The demo people who sign in on the web pages: the student (pages, tutor) and the curator (cabinet). */
const WEB_USERS = ['student', 'curator'] as const;

/**
 * Gives the demo student and curator a sign-in password for the web pages, generated once into
 * `passwordsFile` (mode 600) and kept: re-running `npm start` keeps a browser's sign-in valid.
 */
export async function seedDemoPasswords(
  db: Kysely<EnrollmentDb>,
  passwordsFile: string,
): Promise<Record<string, string>> {
  const admin = new EnrollmentAdmin(db);
  const previous: Record<string, string> = existsSync(passwordsFile)
    ? JSON.parse(readFileSync(passwordsFile, 'utf8'))
    : {};
  const out: Record<string, string> = {};
  for (const name of WEB_USERS) {
    const user = DEMO_USERS.find((u) => u.name === name);
    if (!user) continue;
    const password = previous[user.id] ?? randomBytes(12).toString('base64url');
    await admin.setPassword(user.id, password);
    out[user.id] = password;
  }
  mkdirSync(dirname(passwordsFile), { recursive: true });
  writeFileSync(passwordsFile, `${JSON.stringify(out, null, 2)}\n`, { mode: 0o600 });
  return out;
}
