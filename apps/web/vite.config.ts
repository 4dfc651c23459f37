import { defineConfig, defaultClientConditions } from 'vite';
import react from '@vitejs/plugin-react';

const server = 'http://127.0.0.1:8080';

/**
 * React and its router, which every page needs, in one chunk of their own. Everything else
 * follows the lazy routes: rolldown puts a module in the chunk of the pages that import it, so
 * the login page loads no antd component, icon or library that only signed-in pages use. (Groups
 * for all of @rc-component, all icons and all other vendors put about 90 KB gzip of such code
 * before the login form; see docs/performance.md.)
 */
const vendorGroups = [
  { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/, priority: 40 },
];

export default defineConfig({
  plugins: [react()],
  resolve: {
    // @ksp/contracts exports its TypeScript source under the "source" condition.
    conditions: ['source', ...defaultClientConditions],
  },
  server: {
    proxy: {
      '/v1': { target: server, changeOrigin: true },
      '/docs': { target: server, changeOrigin: true },
      '/ws': { target: server, changeOrigin: true, ws: true },
    },
  },
  preview: {
    proxy: {
      '/v1': { target: server, changeOrigin: true },
      '/docs': { target: server, changeOrigin: true },
      '/ws': { target: server, changeOrigin: true, ws: true },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rolldownOptions: {
      output: {
        codeSplitting: { groups: vendorGroups },
      },
    },
  },
});
