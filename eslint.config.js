import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', 'data/**', '**/*.config.js', '.tmp/**', 'test-results/**'],
  },
  js.configs.recommended,
  // Type-checked rules (issue 9): floating promises, unsafe `any` flows, needless assertions.
  // Each file is checked with the tsconfig that owns it; the few config and script files that
  // belong to no package tsconfig (a package's rootDir is src/) use tsconfig.tools.json.
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: {
        projectService: {
          allowDefaultProject: [
            'apps/server/vitest.config.ts',
            'packages/contracts/vitest.config.ts',
            'tools/ukey-bridge/vitest.config.ts',
            'tools/ksp-agent/vitest.config.ts',
            'scripts/*.ts',
            'tools/*.ts',
          ],
          defaultProject: 'tsconfig.tools.json',
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  // Plain JavaScript (scripts/test-all.mjs) has no types to check.
  { files: ['**/*.{js,mjs,cjs}'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // React Router's loaders end a navigation by throwing a Response (`throw redirect(...)`).
      '@typescript-eslint/only-throw-error': ['error', { allow: [{ from: 'lib', name: 'Response' }] }],
      // antd's Popconfirm and Modal await a promise their handlers return (the busy OK button).
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
    },
  },
  // Import boundaries (issue 9): the platform never names a module, a feature never reaches
  // into another feature's files, and the web and the server share only the contracts.
  {
    files: ['apps/server/src/platform/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)modules/',
              message: 'The platform names no module: modules plug in through the module context.',
            },
            {
              regex: '(^|/)web(/|$)|@ksp/web',
              message: 'The server shares only @ksp/contracts with the web.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/server/src/modules/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)web(/|$)|@ksp/web',
              message: 'The server shares only @ksp/contracts with the web.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/web/src/**/*.{ts,tsx}'],
    ignores: ['apps/web/src/features/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)server(/|$)|@ksp/server',
              message: 'The web shares only @ksp/contracts with the server.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/web/src/features/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)server(/|$)|@ksp/server',
              message: 'The web shares only @ksp/contracts with the server.',
            },
            {
              regex: '^\\.\\./[^.]|(^|/)features/',
              message:
                "A feature never imports another feature's files: move what both need to components/ or api/.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/contracts/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '(^|/)apps/|@ksp/(server|web)', message: 'Contracts depend on no app.' }] },
      ],
    },
  },
  {
    files: [
      '**/*.test.ts',
      '**/*.test.tsx',
      'e2e/**',
      'bench/**',
      'scripts/**',
      'tools/*.ts',
      'apps/server/src/cli.ts',
      'tools/ukey-bridge/src/bridge.ts',
      'tools/ksp-agent/src/cli.ts',
    ],
    rules: { 'no-console': 'off' },
  },
  // Test doubles implement Promise-returning interfaces (job runs, stores, handlers): `async`
  // is the plain way to write one, and turns a throw into a rejection as the real code does.
  {
    files: ['**/*.test.ts', '**/*.test.tsx'],
    rules: { '@typescript-eslint/require-await': 'off' },
  },
);
