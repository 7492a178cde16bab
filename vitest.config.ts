import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'contracts/test/**/*.test.ts',
      'libs/*/test/**/*.test.ts',
      'services/*/test/**/*.test.ts',
      // Web apps of the edge keep their tests in their own folder (DESIGN "Running").
      'services/edge/src/*/test/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    // The edge serves built web assets only: they are built once per run, before any test file.
    globalSetup: ['test/support/web-assets.setup.ts'],
    // Each file isolates itself (own database and subject prefix), so files run in parallel.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
