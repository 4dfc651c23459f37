#!/usr/bin/env node
// `npm test`: lint, typecheck, unit and integration suites (SQLite and PostgreSQL),
// the production build, then the end-to-end suite in Chromium. Stops at the first
// failing stage and ends with one plain line: "Total: N passed, N failed".
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const reports = join(root, '.tmp', 'test-reports');
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

const only = process.argv.slice(2);
let passed = 0;
let failed = 0;

function run(label, command, args, options = {}) {
  if (only.length && !only.includes(label)) return true;
  console.log(`\n=== ${label}: ${command} ${args.join(' ')}`);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: process.env, ...options });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const ok = result.status === 0;
  console.log(
    `=== ${label}: ${ok ? 'ok' : `FAILED (exit ${result.status ?? result.signal})`} in ${seconds} s`,
  );
  return ok;
}

function vitest(label, workspace) {
  const out = join(reports, `${label}.json`);
  const ok = run(
    label,
    'npx',
    ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${out}`],
    {
      cwd: join(root, workspace),
    },
  );
  if (existsSync(out)) {
    const report = JSON.parse(readFileSync(out, 'utf8'));
    passed += report.numPassedTests ?? 0;
    failed += report.numFailedTests ?? 0;
    // A suite that fails to load counts no test; it still counts as a failure.
    if (!ok && !report.numFailedTests) failed += 1;
  } else if (!ok && (!only.length || only.includes(label))) {
    failed += 1;
  }
  return ok;
}

const stages = [
  () => run('lint', 'npx', ['eslint', '.', '--max-warnings', '0']),
  () => run('format', 'npx', ['prettier', '--check', '.']),
  () => run('typecheck', 'npm', ['run', 'typecheck']),
  () => vitest('contracts', 'packages/contracts'),
  () => vitest('web', 'apps/web'),
  () => vitest('server', 'apps/server'),
  () => vitest('ukey-bridge', 'tools/ukey-bridge'),
  () => vitest('ksp-agent', 'tools/ksp-agent'),
  () => run('build', 'npm', ['run', 'build']),
  () => vitest('e2e', 'e2e'),
];

let ok = true;
for (const stage of stages) {
  if (!stage()) {
    ok = false;
    break;
  }
}
if (!ok && failed === 0) failed = 1;
console.log(`\nTotal: ${passed} passed, ${failed} failed`);
process.exit(ok ? 0 : 1);
