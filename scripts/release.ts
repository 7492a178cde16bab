// The release pipeline: `npx tsx scripts/release.ts build|publish …` (see docs/course-map.md).
// `build` validates a course map and writes the canonical release JSON; `publish` sends a release
// to the courses service over NATS. main(argv) is exported for the admin CLI and for tests.
import { stat, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { BaseConfig, createBus, createLogger, Failure, loadConfig, natsOptions } from '@studium/platform';
import {
  buildRelease,
  formatError,
  formatWarning,
  gitCommitOf,
  loadCourseMap,
  type PublishInput,
  publishBuilt,
  readReleaseFile,
  summaryLine,
} from '@studium/release';
import { connect } from 'nats';

const USAGE = `studium release pipeline

  build <map-dir> [--out FILE]         validate a course map and write its release JSON
                                       (default FILE: ./<course key>.release.json)
  publish <map-dir|release.json>       build (or read a built JSON) and publish it to the courses service
      [--attach COURSE_ID]             attach the course's first release to an announced course
      [--publisher LOGIN]              who publishes (default: $STUDIUM_PUBLISHER, git user.email, OS user)
      [--commit SHA]                   commit of a pre-built JSON's map (a map folder finds its own)

Environment: NATS_URL, SUBJECT_PREFIX (default studium), REQUEST_TIMEOUT_MS.
Exit codes: 0 done, 1 invalid map / refused / service unavailable, 2 usage.`;

/** Where the CLI writes (tests capture it) and the environment it reads. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  env: NodeJS.ProcessEnv;
}

const processIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
};

type Built = PublishInput & { json: string; root: string | null };

/** Runs the pipeline CLI; resolves to the exit code. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const [command, target, ...extra] = args.positionals;
  if (args.values.help || !command) {
    (command ? io.out : io.err)(USAGE);
    return command ? 0 : 2;
  }
  if (!target || extra.length || (command !== 'build' && command !== 'publish')) {
    io.err(`usage: release build <map-dir> | release publish <map-dir|release.json>\n\n${USAGE}`);
    return 2;
  }
  try {
    const isJson = command === 'publish' && (await stat(target).catch(() => null))?.isFile();
    const built = isJson ? await readBuilt(target, args.values.commit ?? null, io) : await buildMap(target, io);
    if (!built) return 1;
    if (command === 'build' || args.values.out) await write(built, args.values.out, io);
    if (command === 'build') return 0;
    const publisher = args.values.publisher ?? (await defaultPublisher(built.root, io.env));
    return await publish(built, { publisher, attachTo: args.values.attach }, io);
  } catch (err) {
    io.err(`error: ${(err as Error).message}`);
    return 1;
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: 'string', short: 'o' },
      attach: { type: 'string' },
      publisher: { type: 'string' },
      commit: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

async function buildMap(dir: string, io: CliIo): Promise<Built | null> {
  io.err(`reading map ${dir}…`);
  const map = await loadCourseMap(dir);
  io.err(`validating ${Object.keys(map.files).length} files…`);
  const [result, commit] = await Promise.all([buildRelease(map), gitCommitOf(map.root)]);
  for (const w of result.warnings) io.err(formatWarning(w));
  if (!result.ok) {
    for (const e of result.errors) io.err(formatError(e));
    io.err(`${result.errors.length} error${result.errors.length === 1 ? '' : 's'}: ${dir} is not a valid course map`);
    return null;
  }
  io.err(`${summaryLine(result.summary)}…`);
  io.out(`course    ${result.release.course.key} «${result.release.course.title}»`);
  io.out(`contents  ${summaryLine(result.summary)}`);
  io.out(`digest    ${result.digest}`);
  io.out(`commit    ${commit ?? 'none (the map folder is not a clean git work tree)'}`);
  io.out(`warnings  ${result.warnings.length ? `${result.warnings.length} (above)` : 'none'}`);
  return { release: result.release, json: result.json, digest: result.digest, commit, root: map.root };
}

async function readBuilt(file: string, commit: string | null, io: CliIo): Promise<Built | null> {
  io.err(`reading release ${file}…`);
  const read = await readReleaseFile(file);
  if (!read.ok) {
    for (const e of read.errors) io.err(e);
    return null;
  }
  io.out(`course    ${read.release.course.key} «${read.release.course.title}»`);
  io.out(`digest    ${read.digest}`);
  io.out(`commit    ${commit ?? 'none (pass --commit to record one)'}`);
  return { release: read.release, json: read.json, digest: read.digest, commit, root: null };
}

async function write(built: Built, out: string | undefined, io: CliIo): Promise<void> {
  const file = resolve(out ?? `${built.release.course.key}.release.json`);
  // Exactly the canonical bytes: `sha256sum FILE` prints the digest.
  await writeFile(file, built.json);
  io.out(`written   ${file}`);
}

async function defaultPublisher(root: string | null, env: NodeJS.ProcessEnv): Promise<string> {
  if (env.STUDIUM_PUBLISHER) return env.STUDIUM_PUBLISHER;
  const { execFile } = await import('node:child_process');
  const email = await new Promise<string>((done) =>
    execFile('git', ['-C', root ?? '.', 'config', 'user.email'], (err, stdout) => done(err ? '' : stdout.trim())),
  );
  return email || userInfo().username;
}

async function publish(built: Built, opts: { publisher: string; attachTo?: string }, io: CliIo): Promise<number> {
  const config = loadConfig(BaseConfig, io.env);
  io.err(`publishing to ${config.NATS_URL} (${config.SUBJECT_PREFIX}) as ${opts.publisher}…`);
  const nc = await connect({
    ...natsOptions(config, 'studium-release'),
    maxReconnectAttempts: 10,
    timeout: 5000,
  }).catch((err) => {
    throw new Error(`cannot connect to NATS at ${config.NATS_URL}: ${(err as Error).message}`);
  });
  try {
    const bus = createBus(nc, {
      prefix: config.SUBJECT_PREFIX,
      timeoutMs: config.REQUEST_TIMEOUT_MS,
      log: createLogger('release', 'silent'),
    });
    const reply = await publishBuilt(bus, built, { ...opts, timeoutMs: Math.max(config.REQUEST_TIMEOUT_MS, 30_000) });
    if (!reply.ok) {
      io.err(`refused [${reply.error.code}]: ${reply.error.message}`);
      return 1;
    }
    const r = reply.data;
    io.out(`course    ${r.course} (key ${r.course_key})`);
    io.out(`version   ${r.version} (release ${r.release})`);
    io.out(r.created ? 'published a new version' : `no new version: same digest as version ${r.version}`);
    for (const w of r.warnings) io.out(`warning [${w.code}] ${w.place}: ${w.message}`);
    return 0;
  } catch (err) {
    if (!(err instanceof Failure)) throw err;
    const why = err.status === 503 ? 'the courses service is not running' : `failure ${err.status}`;
    io.err(`publish failed: ${why} (${err.message})`);
    return 1;
  } finally {
    await nc.drain().catch(() => {});
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}
