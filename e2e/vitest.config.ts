import { defineConfig } from 'vitest/config';

// One browser at a time: the machines have two cores and the server runs beside it.
export default defineConfig({
  test: {
    include: ['**/*.e2e.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
