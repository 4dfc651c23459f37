import { defineConfig } from 'vitest/config';

// One file at a time: the machines have two cores and each file runs its own server and
// browser. Two at a time was tried (8 of the slowest files: 251 s instead of 355 s, all
// passing), but in the full run console.e2e's cached-tab check then lost its typed filter
// once; until that is understood, one at a time.
export default defineConfig({
  test: {
    include: ['**/*.e2e.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
