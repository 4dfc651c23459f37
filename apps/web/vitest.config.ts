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
    // Room for the 5 s waits of test-setup.ts on a loaded machine. A page test walks many
    // antd interactions; beside the server suite on the 2-core CI machine one took over 20 s
    // (session 21's CI run: the certificate issue form). A test waiting for what never comes
    // still fails, only later.
    testTimeout: 60_000,
    // Console output goes straight to the terminal instead of through the worker's RPC: a
    // warning printed as a file's worker closed (antd's, from a timer) failed a whole CI run
    // with "Closing rpc while onUserConsoleLog was pending" though every test had passed.
    disableConsoleIntercept: true,
  },
});
