import { decodePrincipalChanged, PRINCIPAL_CHANGED, RELEASE_MAIL_QUEUE } from '@studium/contracts';
import { type App, type ServiceDeps, startRelay } from '@studium/platform';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { announceAccessOnce } from './access-events.ts';
import { EnrollmentConfig } from './config.ts';
import type { EnrollmentDb } from './db.ts';
import { IdentityCache } from './domain/identity-cache.ts';
import { courseAccessHandler, myEnrollmentsHandler } from './handlers/course-access.ts';
import { startCatalogConsumer } from './handlers/course-card-changed.ts';
import { enrollHandler } from './handlers/enroll.ts';
import { knownUserHandler } from './handlers/known-user.ts';
import { startProgressConsumer } from './handlers/lesson-passed.ts';
import { listCatalogHandler } from './handlers/list-catalog.ts';
import { listMyCoursesHandler } from './handlers/list-my-courses.ts';
import { mailDeliveredHandler, mailDeliveryStateHandler } from './handlers/mail-delivered.ts';
import { notifySubscribersHandler } from './handlers/notify-subscribers.ts';
import { notifyWhenReleasedHandler } from './handlers/notify-when-released.ts';
import { resolveUserHandler, verifyPasswordHandler } from './handlers/oauth-users.ts';
import { resolveTokenHandler } from './handlers/resolve-token.ts';
import { setSpaceHandler } from './handlers/set-space.ts';
import { whoamiHandler } from './handlers/whoami.ts';
import { Identities, type Identity } from './identities.ts';
import { startMailRelay } from './mail-relay.ts';
import { AccessRepository } from './repositories/access.repository.ts';
import { CatalogRepository } from './repositories/catalog.repository.ts';
import { EnrollmentRepository } from './repositories/enrollment.repository.ts';
import { IdentityRepository } from './repositories/identity.repository.ts';
import { ListStampsRepository } from './repositories/list-stamps.repository.ts';
import { MailOutboxRepository } from './repositories/mail-outbox.repository.ts';
import { ProgramRepository } from './repositories/program.repository.ts';
import { SubscriptionRepository } from './repositories/subscription.repository.ts';

/** Migrations of the enrollment schema. */
export const MIGRATIONS = new URL('../migrations', import.meta.url).pathname;

/** The BullMQ queue of release e-mails under a subject prefix (the mailer computes the same name). */
export function releaseMailQueueName(prefix: string): string {
  return prefix ? `${prefix}-${RELEASE_MAIL_QUEUE}` : RELEASE_MAIL_QUEUE;
}

/** A started enrollment service; tests flush its relays instead of waiting for them. */
export interface EnrollmentApp extends App {
  /** Publishes pending domain events and hands pending e-mails to BullMQ. */
  flush(): Promise<void>;
}

/**
 * Registers enrollment's handlers on the bus and starts its background parts: the catalog
 * consumer, the event outbox relay and the release mail relay.
 */
export async function createApp({
  bus,
  nc,
  database,
  log,
  config,
  metrics,
}: ServiceDeps<EnrollmentDb>): Promise<EnrollmentApp> {
  // Tests hand an empty config; every setting has a default, and the queue follows the bus prefix.
  const cfg = EnrollmentConfig.parse(config ?? {});
  const db = database.db;
  const repo = new IdentityRepository(db);
  const identities = new Identities(repo, new IdentityCache<Identity>(IDENTITY_CACHE_TTL_MS));
  const catalog = new CatalogRepository(db, database.pool);
  const enrollments = new EnrollmentRepository(db, database.pool);
  const subscriptions = new SubscriptionRepository(db);
  const stamps = new ListStampsRepository(database.pool);
  const mails = new MailOutboxRepository(db);
  const programs = new ProgramRepository(db);

  // Every replica hears every change (plain subscription, no queue group) and drops its copy.
  const changes = bus.nc.subscribe(bus.subject(PRINCIPAL_CHANGED), {
    callback: (_err, msg) => {
      const changed = decodePrincipalChanged(msg.data);
      if (changed) identities.forget(changed.user);
    },
  });
  const principalChanged = (user: string) => {
    identities.forget(user);
    bus.nc.publish(bus.subject(PRINCIPAL_CHANGED), JSON.stringify({ user }));
  };

  // Producer-style Redis client: fail fast; rows stay in mail_outbox while Redis is away.
  const redis = new Redis(cfg.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', (err) => log.debug({ err }, 'mail queue: redis error'));
  const queue = new Queue(releaseMailQueueName(bus.prefix), { connection: redis });
  queue.on('error', (err) => log.debug({ err }, 'mail queue error'));
  const mailRelay = startMailRelay({
    mails,
    queue,
    queueReady: () => redis.status === 'ready',
    log,
    attempts: cfg.MAIL_ATTEMPTS,
    backoffMs: cfg.MAIL_BACKOFF_MS,
    keepJobsS: cfg.MAIL_KEEP_JOBS_S,
    intervalMs: cfg.MAIL_RELAY_INTERVAL_MS,
    redriveAfterMs: cfg.MAIL_REDRIVE_AFTER_MS,
  });
  redis.on('ready', () => mailRelay.kick());
  // The access projections of lessons and homework replay the stream: it must hold every user's state.
  await announceAccessOnce(db);
  const relay = await startRelay({ nc, pool: database.pool, schema: database.schema, prefix: bus.prefix, log });
  const consumer = await startCatalogConsumer({
    nc,
    prefix: bus.prefix,
    db,
    log,
    catalog,
    metrics,
    maxAttempts: cfg.CONSUMER_MAX_ATTEMPTS,
    retryDelayMs: cfg.CONSUMER_RETRY_MS,
  });
  const progress = await startProgressConsumer({
    nc,
    prefix: bus.prefix,
    db,
    log,
    enrollments,
    metrics,
    maxAttempts: cfg.CONSUMER_MAX_ATTEMPTS,
    retryDelayMs: cfg.CONSUMER_RETRY_MS,
  });

  const service = await bus.serve('enrollment', [
    resolveTokenHandler(repo),
    verifyPasswordHandler(repo),
    resolveUserHandler(repo),
    knownUserHandler(repo),
    whoamiHandler(identities),
    setSpaceHandler(db, repo, principalChanged),
    listCatalogHandler(identities, catalog, stamps),
    listMyCoursesHandler(identities, enrollments, stamps),
    enrollHandler({
      db,
      identities,
      catalog,
      enrollments,
      access: new AccessRepository(db),
      programs,
    }),
    notifyWhenReleasedHandler(db, catalog, subscriptions, identities, new AccessRepository(db)),
    notifySubscribersHandler({ db, subscriptions, mails, mailQueued: () => mailRelay.kick() }),
    mailDeliveryStateHandler(mails),
    mailDeliveredHandler(mails),
    courseAccessHandler({ identities, enrollments }),
    myEnrollmentsHandler({ identities, enrollments }),
  ]);
  return {
    // Calls are served without Redis, but release e-mails wait in mail_outbox meanwhile: not ready.
    checks: { redis: () => redis.ping() },
    async flush() {
      await relay.flush();
      await mailRelay.flush();
    },
    async stop() {
      await service.stop();
      changes.unsubscribe();
      await consumer.stop();
      await progress.stop();
      await relay.stop();
      await mailRelay.stop();
      await queue.close();
      redis.disconnect();
    },
  };
}

/** How long a cached identity read may be served without a change announcement. */
const IDENTITY_CACHE_TTL_MS = 30_000;
