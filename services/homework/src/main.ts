import { checkFileUrlSecret, createLogger, exitOnRefusal, loadConfig, runService } from '@studium/platform';
import { createApp, MIGRATIONS } from './app.ts';
import { HomeworkConfig, SCHEMA } from './config.ts';

const config = loadConfig(HomeworkConfig);
// No default signing key outside development: refused before anything is opened.
try {
  config.FILE_URL_SECRET = checkFileUrlSecret(config.FILE_URL_SECRET, config.STUDIUM_ENV);
} catch (err) {
  exitOnRefusal(err, createLogger('homework', config.LOG_LEVEL));
}

await runService({
  name: 'homework',
  config,
  schema: SCHEMA,
  migrations: MIGRATIONS,
  createApp,
});
