import { AccessProjection, type App, DEV_FILE_URL_SECRET, type ServiceDeps, startRelay } from '@studium/platform';
import { HomeworkConfig } from './config.ts';
import { CourseGateway } from './courses.ts';
import type { HomeworkDb } from './db.ts';
import { FileStore } from './file-store.ts';
import { artifactHandler } from './handlers/artifact.ts';
import { checkHomeworkFilesHandler } from './handlers/check-homework-files.ts';
import { fillDocumentHandler } from './handlers/fill-document.ts';
import { emptyBlocksHandler, lessonContextHandler } from './handlers/lesson-context.ts';
import { startLessonConsumer } from './handlers/lesson-events.ts';
import { myHomeworkHandler } from './handlers/my-homework.ts';
import { returnedHomeworkHandler } from './handlers/returned-homework.ts';
import { homeworkQueueHandler, homeworkSubmissionHandler, reviewActionHandlers } from './handlers/review.ts';
import { storeHomeworkFileHandler } from './handlers/store-homework-file.ts';
import { studentHomeworkHandler } from './handlers/student-homework.ts';
import { submitHomeworkHandler } from './handlers/submit-homework.ts';
import { updateArtifactHandler } from './handlers/update-artifact.ts';
import { uploadHomeworkFileHandler } from './handlers/upload-homework-file.ts';
import { startOrphanSweep } from './orphans.ts';
import { DocumentRepository } from './repositories/document.repository.ts';
import { SubmissionRepository } from './repositories/submission.repository.ts';

/** Durable name of the access projection's consumer (replicas share it). */
export const ACCESS_CONSUMER = 'homework-access';

/** Migrations of the homework schema. */
export const MIGRATIONS = new URL('../migrations', import.meta.url).pathname;

/** A started homework service; tests flush its outbox instead of waiting for the relay. */
export interface HomeworkApp extends App {
  flush(): Promise<void>;
}

/**
 * Registers the homework handlers (student tools, curator review, the lessons service's context
 * operations) and starts the outbox relay and the consumer of lesson events.
 */
export async function createApp({
  bus,
  nc,
  database,
  log,
  config,
  metrics,
}: ServiceDeps<HomeworkDb>): Promise<HomeworkApp> {
  const cfg = HomeworkConfig.parse(config ?? {});
  const db = database.db;
  const documents = new DocumentRepository(db);
  const submissions = new SubmissionRepository(db);
  // Course access from the projection of enrollment's access documents (no request per call).
  const access = new AccessProjection({
    nc,
    bus,
    db: db as never,
    durable: ACCESS_CONSUMER,
    log,
    metrics,
    maxAttempts: cfg.CONSUMER_MAX_ATTEMPTS,
    retryDelayMs: cfg.CONSUMER_RETRY_MS,
  });
  await access.start();
  const gateway = new CourseGateway(bus, submissions, access, cfg.RELEASE_TTL_MS);
  // main.ts refuses a missing or weak key outside development (checkFileUrlSecret).
  const secret = cfg.FILE_URL_SECRET ?? DEV_FILE_URL_SECRET;
  const signer = { publicUrl: cfg.PUBLIC_URL, secret, ttlS: cfg.FILE_URL_TTL_S };
  const files = new FileStore(nc, bus.prefix);
  const relay = await startRelay({ nc, pool: database.pool, schema: database.schema, prefix: bus.prefix, log });
  const consumer = await startLessonConsumer({
    nc,
    prefix: bus.prefix,
    db,
    log,
    gateway,
    metrics,
    maxAttempts: cfg.CONSUMER_MAX_ATTEMPTS,
    retryDelayMs: cfg.CONSUMER_RETRY_MS,
  });
  const sweep = startOrphanSweep({
    db,
    files,
    log,
    intervalMs: cfg.ORPHAN_SWEEP_INTERVAL_MS,
    minAgeMs: cfg.ORPHAN_MIN_AGE_MS,
  });
  const service = await bus.serve('homework', [
    artifactHandler({ gateway, documents }),
    fillDocumentHandler({ gateway, documents }),
    updateArtifactHandler({ db, gateway, bus, log, progressTimeoutMs: cfg.PROGRESS_TIMEOUT_MS }),
    myHomeworkHandler({ bus, gateway, submissions, signer, publicUrl: cfg.PUBLIC_URL }),
    submitHomeworkHandler({ db, gateway, signer }),
    uploadHomeworkFileHandler({ gateway, submissions, publicUrl: cfg.PUBLIC_URL }),
    storeHomeworkFileHandler({ db, gateway, signer, files }),
    checkHomeworkFilesHandler({ gateway, submissions }),
    homeworkQueueHandler({ db, gateway, signer }),
    homeworkSubmissionHandler({ db, gateway, signer }),
    ...reviewActionHandlers({ db, gateway, signer }),
    lessonContextHandler({ gateway, documents, submissions, publicUrl: cfg.PUBLIC_URL }),
    returnedHomeworkHandler({ gateway, submissions, publicUrl: cfg.PUBLIC_URL }),
    emptyBlocksHandler({ gateway, documents, submissions, publicUrl: cfg.PUBLIC_URL }),
    studentHomeworkHandler({ bus, submissions, signer }),
  ]);
  return {
    flush: async () => {
      await relay.flush();
    },
    async stop() {
      await service.stop();
      await sweep.stop();
      await consumer.stop();
      await access.stop();
      await relay.stop();
    },
  };
}
