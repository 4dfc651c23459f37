import { defineConfig } from 'vitest/config';

// Two files at a time, each with its own server and browser: a file spends much of its time
// waiting (server start, page loads, the agent's round trips), and on the two-core machines two
// at once took 251 s where one at a time took 355 s (8 of the slowest files, all passing).
export default defineConfig({
  test: {
    include: ['**/*.e2e.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: true,
    maxWorkers: 2,
    pool: 'forks',
  },
});
