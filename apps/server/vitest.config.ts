import { defineConfig } from 'vitest/config';

// `source` resolves @ksp/contracts to its TypeScript source (no build step for tests).
export default defineConfig({
  ssr: { resolve: { conditions: ['source', 'module', 'node', 'development|production'] } },
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
