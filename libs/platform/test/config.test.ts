import { BaseConfig, loadConfig } from '@studium/platform';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

// Pure parsing: no NATS, PostgreSQL or Redis involved, so no test environment is needed.
describe('loadConfig', () => {
  it('fills every default from an empty environment', () => {
    expect(loadConfig(BaseConfig, {})).toEqual({
      NATS_URL: 'nats://127.0.0.1:4222',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/studium',
      DB_PREPARED_STATEMENTS: true,
      BUS_LOCAL: false,
      REDIS_URL: 'redis://127.0.0.1:6379',
      SUBJECT_PREFIX: 'studium',
      REQUEST_TIMEOUT_MS: 5000,
      LOG_LEVEL: 'info',
      STARTUP_BUDGET_MS: 120_000,
      READ_ATTEMPT_TIMEOUT_MS: 1000,
      MAX_CONCURRENT_REQUESTS: 64,
      MAX_QUEUED_REQUESTS: 256,
      CONSUMER_MAX_ATTEMPTS: 5,
      CONSUMER_RETRY_MS: 1000,
      RETENTION_DAYS: 30,
      RETENTION_INTERVAL_MS: 3_600_000,
    });
  });

  it('reads the pool settings: a size, a direct URL, prepared statements off', () => {
    const config = loadConfig(BaseConfig, {
      DB_POOL_MAX: '3',
      DATABASE_DIRECT_URL: 'postgres://postgres@db:5432/studium',
      DB_PREPARED_STATEMENTS: 'false',
    });
    expect(config).toMatchObject({
      DB_POOL_MAX: 3,
      DATABASE_DIRECT_URL: 'postgres://postgres@db:5432/studium',
      DB_PREPARED_STATEMENTS: false,
    });
    expect(() => loadConfig(BaseConfig, { DB_POOL_MAX: '0' })).toThrow(/DB_POOL_MAX/);
    expect(() => loadConfig(BaseConfig, { DB_PREPARED_STATEMENTS: 'no' })).toThrow(/DB_PREPARED_STATEMENTS/);
  });

  it('reads in-process dispatch as a boolean and refuses anything else', () => {
    expect(loadConfig(BaseConfig, { BUS_LOCAL: 'true' }).BUS_LOCAL).toBe(true);
    expect(loadConfig(BaseConfig, { BUS_LOCAL: 'false' }).BUS_LOCAL).toBe(false);
    expect(() => loadConfig(BaseConfig, { BUS_LOCAL: 'yes' })).toThrow(/BUS_LOCAL/);
    expect(() => loadConfig(BaseConfig, { BUS_LOCAL: '1' })).toThrow(/BUS_LOCAL/);
  });

  it('coerces numbers, keeps given strings and ignores unrelated variables', () => {
    const config = loadConfig(BaseConfig, {
      REQUEST_TIMEOUT_MS: '2500',
      HEALTH_PORT: '9100',
      SUBJECT_PREFIX: '',
      LOG_LEVEL: 'debug',
      HOME: '/root',
    });
    expect(config.REQUEST_TIMEOUT_MS).toBe(2500);
    expect(config.HEALTH_PORT).toBe(9100);
    expect(config.SUBJECT_PREFIX).toBe('');
    expect(config.LOG_LEVEL).toBe('debug');
    expect(config).not.toHaveProperty('HOME');
  });

  it('throws one readable error listing every bad variable', () => {
    const Config = BaseConfig.extend({ SMTP_URL: z.string(), MAX_ATTEMPTS: z.coerce.number().int().min(1) });
    let message = '';
    try {
      loadConfig(Config, {
        REQUEST_TIMEOUT_MS: 'soon',
        HEALTH_PORT: '-1',
        LOG_LEVEL: 'loud',
        SUBJECT_PREFIX: 'a.b',
        MAX_ATTEMPTS: '2.5',
      });
      expect.unreachable('loadConfig accepted a bad environment');
    } catch (err) {
      message = (err as Error).message;
    }
    const lines = message.split('\n');
    expect(lines[0]).toBe('invalid configuration:');
    const named = lines.slice(1).map((l) => l.trim().split(':')[0]);
    expect(named.sort()).toEqual([
      'HEALTH_PORT',
      'LOG_LEVEL',
      'MAX_ATTEMPTS',
      'REQUEST_TIMEOUT_MS',
      'SMTP_URL',
      'SUBJECT_PREFIX',
    ]);
    expect(lines.every((l) => l.length < 200)).toBe(true);
  });

  it('reads process.env by default', () => {
    expect(loadConfig(BaseConfig).NATS_URL).toBe(process.env.NATS_URL ?? 'nats://127.0.0.1:4222');
  });
});
