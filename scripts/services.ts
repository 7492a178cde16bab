import type { NatsUser } from './nats-auth.ts';

/**
 * Every deployable that `npm start` runs: its entry point (sources; the image runs the same path
 * with `.js` from dist/) and its health port's offset from HEALTH_PORT_BASE (the edge answers
 * /readyz on its own PORT).
 */
export const SERVICES = [
  { name: 'enrollment', entry: 'services/enrollment/src/main.ts', healthOffset: 0 },
  { name: 'courses', entry: 'services/courses/src/main.ts', healthOffset: 1 },
  { name: 'mailer', entry: 'services/mailer/src/main.ts', healthOffset: 2 },
  { name: 'homework', entry: 'services/homework/src/main.ts', healthOffset: 4 },
  { name: 'ai-chat', entry: 'services/ai-chat/src/main.ts', healthOffset: 6 },
  { name: 'lessons', entry: 'services/lessons/src/main.ts', healthOffset: 3 },
  { name: 'knowledge', entry: 'services/knowledge/src/main.ts', healthOffset: 5 },
  { name: 'reporting', entry: 'services/reporting/src/main.ts', healthOffset: 7 },
  { name: 'edge', entry: 'services/edge/src/main.ts', healthOffset: null },
] as const satisfies ReadonlyArray<{ name: NatsUser; entry: string; healthOffset: number | null }>;

export type Deployable = (typeof SERVICES)[number];

/** The compiled entry of a deployable, as the Dockerfile's commands run it from dist/. */
export function compiledEntry(svc: Deployable): string {
  return svc.entry.replace(/\.ts$/, '.js');
}

/** What `npm start` knows when it starts a deployable. */
export interface StartContext {
  /** NATS_URL and the deployable's NATS user (NATS_USER, NATS_PASSWORD; none on an open server). */
  nats: (user: NatsUser) => Record<string, string>;
  keys: { publicKey: string; privateKey: string };
  /** Enrollment's reply key pair (signed identity replies: only enrollment signs, only the edge checks). */
  replyKeys: { publicKey: string; privateKey: string };
  /** HEALTH_PORT_BASE: 0 lets every service take a free port (each logs the one it took). */
  healthPortBase: number;
  /** Where .eml files go without SMTP_URL. */
  mailDir: string;
  logLevel: string;
  studiumEnv: string;
}

/**
 * The variables `npm start` sets for one deployable, on top of its own environment (which passes
 * through: DATABASE_URL, SUBJECT_PREFIX, AI_*, SMTP_URL…). test/shipped-config.test.ts checks that
 * each of them survives the deployable's loadConfig.
 */
export function serviceEnv(svc: Deployable, ctx: StartContext): Record<string, string> {
  const env: Record<string, string> = {
    ...ctx.nats(svc.name),
    EDGE_PUBLIC_KEY: ctx.keys.publicKey,
    // Only the edge signs principals; a key the caller's environment has must not reach the others.
    EDGE_SIGNING_KEY: svc.name === 'edge' ? ctx.keys.privateKey : '',
    // Enrollment signs its identity replies (token and user lookups); the edge checks them.
    ENROLLMENT_SIGNING_KEY: svc.name === 'enrollment' ? ctx.replyKeys.privateKey : '',
    ENROLLMENT_PUBLIC_KEY: svc.name === 'edge' ? ctx.replyKeys.publicKey : '',
    // npm start is a local development platform: the development file-URL key is allowed.
    STUDIUM_ENV: ctx.studiumEnv,
    LOG_LEVEL: ctx.logLevel,
  };
  if (svc.healthOffset !== null) {
    env.HEALTH_PORT = String(ctx.healthPortBase === 0 ? 0 : ctx.healthPortBase + svc.healthOffset);
  }
  if (svc.name === 'mailer') env.MAIL_DIR = ctx.mailDir;
  return env;
}
