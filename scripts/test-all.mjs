#!/usr/bin/env node
// `npm test`: lint, typecheck, unit and integration suites (SQLite and PostgreSQL),
// the production build, then the end-to-end suite in Chromium. Stops at the first
// failing stage and ends with one plain line: "Total: N passed, N failed".
import { spawn, spawnSync } from 'node:child_process';
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

/**
 * Runs stages at once, each with its output held and printed whole when it ends: lint, format
 * and typecheck are one process each, single-threaded, and the machines have two cores.
 */
async function together(stages) {
  const chosen = stages.filter(([label]) => !only.length || only.includes(label));
  const results = await Promise.all(
    chosen.map(
      ([label, command, args]) =>
        new Promise((resolve) => {
          const started = Date.now();
          const child = spawn(command, args, { cwd: root, env: process.env });
          const output = [];
          child.stdout.on('data', (chunk) => output.push(chunk));
          child.stderr.on('data', (chunk) => output.push(chunk));
          child.on('close', (code, signal) => {
            const seconds = ((Date.now() - started) / 1000).toFixed(1);
            console.log(`\n=== ${label}: ${command} ${args.join(' ')}`);
            process.stdout.write(Buffer.concat(output));
            const ok = code === 0;
            console.log(`=== ${label}: ${ok ? 'ok' : `FAILED (exit ${code ?? signal})`} in ${seconds} s`);
            resolve(ok);
          });
        }),
    ),
  );
  return results.every(Boolean);
}

const stages = [
  () =>
    together([
      ['lint', 'npx', ['eslint', '.', '--max-warnings', '0']],
      ['format', 'npx', ['prettier', '--check', '.']],
      ['typecheck', 'npm', ['run', 'typecheck']],
    ]),
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
  if (!(await stage())) {
    ok = false;
    break;
  }
}
if (!ok && failed === 0) failed = 1;
console.log(`\nTotal: ${passed} passed, ${failed} failed`);
process.exit(ok ? 0 : 1);
