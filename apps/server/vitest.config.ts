import { defineConfig } from 'vitest/config';

// `source` resolves @ksp/contracts to its TypeScript source (no build step for tests).
export default defineConfig({
  ssr: { resolve: { conditions: ['source', 'module', 'node', 'development|production'] } },
  test: {
    include: ['src/**/*.test.ts'],
    globalSetup: ['src/test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker less than the cores: one on the two-core machines. These
    // files mostly wait (disk flushes, PostgreSQL, slapd, sshd, SoftHSM), so three run at once.
    maxWorkers: 3,
  },
});
