import { defineConfig, defaultClientConditions } from 'vite';
import react from '@vitejs/plugin-react';

const server = 'http://127.0.0.1:8080';

/**
 * Vendor chunks cut along package boundaries (never inside a package, which can break
 * module execution order); pages stay lazy per route.
 */
const vendorGroups = [
  { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/, priority: 40 },
  { name: 'antd-icons', test: /node_modules[\\/]@ant-design[\\/](icons|icons-svg)[\\/]/, priority: 30 },
  { name: 'rc-component', test: /node_modules[\\/](@rc-component|rc-[^\\/]+)[\\/]/, priority: 25 },
  { name: 'antd-style', test: /node_modules[\\/](@ant-design|@emotion|stylis)[\\/]/, priority: 22 },
  // antd's own modules stay out of the groups: they follow the pages that use them.
  { name: 'vendor', test: (id: string) => /node_modules[\\/](?!antd[\\/])/.test(id), priority: 10 },
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
    },
  },
  preview: {
    proxy: {
      '/v1': { target: server, changeOrigin: true },
      '/docs': { target: server, changeOrigin: true },
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
