import { defaultClientConditions } from 'vite';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  resolve: {
    conditions: ['source', ...defaultClientConditions],
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test-setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
    restoreMocks: true,
    // Vitest's default is one worker less than the cores: one on the two-core machines. Two
    // worker threads ran 16 page files in 62 s where one fork took 101 s.
    pool: 'threads',
    maxWorkers: 2,
    // Room for the 5 s waits of test-setup.ts on a loaded machine.
    testTimeout: 20_000,
  },
});
