import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defaultClientConditions } from 'vite';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The test files that replace a module with `vi.mock`. A worker that is not isolated keeps the
 * modules an earlier file imported, so such a file would get the real module instead of its
 * mock: these run isolated, each in a fresh module graph; every other file shares its worker's
 * (docs/testing.md#isolation).
 */
const mocking = readdirSync(`${here}src`, { recursive: true, encoding: 'utf8' })
  .filter((file) => /\.test\.tsx?$/.test(file))
  .map((file) => `src/${file.replaceAll('\\', '/')}`)
  .filter((file) => readFileSync(`${here}${file}`, 'utf8').includes('vi.mock('));

export default defineConfig({
  plugins: [react()],
  resolve: {
    conditions: ['source', ...defaultClientConditions],
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test-setup.ts'],
    css: false,
    restoreMocks: true,
    // Vitest's default is one worker less than the cores: one on the two-core machines. Two
    // worker threads ran 16 page files in 62 s where one fork took 101 s.
    pool: 'threads',
    maxWorkers: 2,
    // Room for the 5 s waits of test-setup.ts on a loaded machine. A page test walks many
    // antd interactions; beside the server suite on the 2-core CI machine one took over 20 s
    // (session 21's CI run: the certificate issue form). A test waiting for what never comes
    // still fails, only later.
    testTimeout: 60_000,
    // The same room for hooks (a language switch after each test ran out of the default 10 s at
    // a load of 27).
    hookTimeout: 60_000,
    // Console output goes straight to the terminal instead of through the worker's RPC: a
    // warning printed as a file's worker closed (antd's, from a timer) failed a whole CI run
    // with "Closing rpc while onUserConsoleLog was pending" though every test had passed.
    disableConsoleIntercept: true,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['src/**/*.test.{ts,tsx}'],
          exclude: mocking,
          // Importing antd, React and the pages again for every file was half the suite's CPU
          // time (session 24: 12 page files, 172 → 92 CPU-s). test-setup.ts puts back what a
          // file may leave behind (the DOM, storage, the language).
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: mocking } },
    ],
  },
});
