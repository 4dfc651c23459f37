import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = fileURLToPath(new URL('.', import.meta.url));

// A worker runs file after file in one module graph (`isolate: false` below), so a module that
// one file replaced with `vi.mock` would stay replaced, or stay real, for the files after it.
// Server tests inject what they replace instead; this refuses a file that mocks a module.
const mocking = readdirSync(`${here}src`, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .filter((file) => /\bvi\.(do)?mock\(/.test(readFileSync(`${here}src/${file}`, 'utf8')));
if (mocking.length) {
  throw new Error(
    `Server test files share their worker and cannot use vi.mock (docs/testing.md#isolation): ${mocking.join(', ')}`,
  );
}

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
    // Each worker imports the server once and runs file after file in it, instead of a new
    // process importing it all again per file (session 24: a third less CPU). Every test opens
    // its own server and database and closes them; nothing is kept in module state between
    // files but caches keyed by those.
    isolate: false,
  },
});
