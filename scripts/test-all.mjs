#!/usr/bin/env node
// `npm test`: lint, typecheck, unit and integration suites (SQLite and PostgreSQL),
// the production build, then the end-to-end suite in Chromium. Stages run in lanes that start
// at once (docs/testing.md#stages); a lane stops at its first failing stage. Prints each
// stage's time and a table of all of them, and ends with one plain line:
// "Total: N passed, N failed". `node scripts/test-all.mjs server e2e` runs the
// chosen stages only.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const reports = join(root, '.tmp', 'test-reports');
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

const only = process.argv.slice(2);
const results = [];

const vitest = (workspace) => ({
  command: 'npx',
  args: ['vitest', 'run', '--reporter=default', '--reporter=json'],
  cwd: workspace,
  json: true,
});

/**
 * The lanes, all started at once; a lane runs its groups in order and the stages of a group at
 * once, and stops at its first failing stage (the other lanes run on). Today one lane of three
 * groups (docs/testing.md#stages): lint, format, typecheck, the small suites and the build, each
 * one process; then the server suite (which mostly waits on PostgreSQL, disk flushes and peers)
 * beside the CPU-bound web suite; then the end-to-end suite, alone. Running the end-to-end suite
 * beside the web and server suites was tried (session 21): on a loaded machine their time limits
 * ran out, so it stays alone until a run on an idle machine shows it holds. A stage marked
 * `background` runs at `nice -n 10`.
 */
const lanes = [
  [
    [
      { label: 'lint', command: 'npx', args: ['eslint', '.', '--max-warnings', '0'] },
      { label: 'format', command: 'npx', args: ['prettier', '--check', '.'] },
      { label: 'typecheck', command: 'npm', args: ['run', 'typecheck'] },
      { label: 'contracts', ...vitest('packages/contracts') },
      { label: 'ukey-bridge', ...vitest('tools/ukey-bridge') },
      { label: 'ksp-agent', ...vitest('tools/ksp-agent') },
      { label: 'build', command: 'npm', args: ['run', 'build'] },
    ],
    [
      { label: 'server', ...vitest('apps/server') },
      { label: 'web', ...vitest('apps/web') },
    ],
    [{ label: 'e2e', ...vitest('e2e') }],
  ],
];

const chosen = (label) => !only.length || only.includes(label);

/** Runs one stage with its output held (printed whole when it ends, and kept in .tmp/test-reports). */
function runStage(stage, live) {
  return new Promise((resolve) => {
    const out = join(reports, `${stage.label}.json`);
    const args = stage.json ? [...stage.args, `--outputFile=${out}`] : stage.args;
    const title = `=== ${stage.label}: ${stage.command} ${args.join(' ')}`;
    const started = Date.now();
    if (live) console.log(`\n${title}`);
    else console.log(`--- ${stage.label}: started (its output follows when it ends)`);
    const [command, ...rest] = stage.background
      ? ['nice', '-n', '10', stage.command, ...args]
      : [stage.command, ...args];
    const child = spawn(command, rest, {
      cwd: join(root, stage.cwd ?? '.'),
      env: process.env,
      stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    const output = [];
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    child.on('close', (code, signal) => {
      const seconds = (Date.now() - started) / 1000;
      const ok = code === 0;
      if (!live) {
        const text = Buffer.concat(output);
        writeFileSync(join(reports, `${stage.label}.log`), text);
        console.log(`\n${title}`);
        process.stdout.write(text);
      }
      console.log(
        `=== ${stage.label}: ${ok ? 'ok' : `FAILED (exit ${code ?? signal})`} in ${seconds.toFixed(1)} s`,
      );
      const result = { label: stage.label, ok, seconds, passed: null, failed: null, failures: [] };
      if (stage.json && existsSync(out)) {
        const report = JSON.parse(readFileSync(out, 'utf8'));
        result.passed = report.numPassedTests ?? 0;
        result.failed = report.numFailedTests ?? 0;
        result.failures = failuresOf(report);
      }
      results.push(result);
      resolve(ok);
    });
  });
}

/** The failed tests of a vitest JSON report (and files that failed to load), each with its first message lines. */
function failuresOf(report) {
  const failures = [];
  const firstLines = (text) =>
    String(text ?? '')
      .split('\n')
      .slice(0, 12)
      .join('\n');
  for (const file of report.testResults ?? []) {
    const name = relative(root, file.name ?? '');
    const failedTests = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const t of failedTests) {
      failures.push(`${name} > ${t.fullName}\n${firstLines((t.failureMessages ?? []).join('\n'))}`);
    }
    if (file.status === 'failed' && failedTests.length === 0)
      failures.push(`${name}\n${firstLines(file.message)}`);
  }
  return failures;
}

/** One lane: its groups in order, the stages of a group at once, until a stage fails. */
async function runLane(groups, live) {
  for (const group of groups) {
    const stages = group.filter((stage) => chosen(stage.label));
    const oks = await Promise.all(stages.map((stage) => runStage(stage, live)));
    if (!oks.every(Boolean)) return false;
  }
  return true;
}

const started = Date.now();
const stageCount = lanes.flat(2).filter((stage) => chosen(stage.label)).length;
const ok = (await Promise.all(lanes.map((groups) => runLane(groups, stageCount === 1)))).every(Boolean);

let passed = 0;
let failed = 0;
for (const r of results) {
  passed += r.passed ?? 0;
  failed += r.failed ?? 0;
  // A suite that fails to load counts no test; it still counts as a failure.
  if (!r.ok && !r.failed) failed += 1;
}
if (!ok && failed === 0) failed = 1;

const pad = (text, width) => String(text).padEnd(width);
console.log('\nStage         Result   Seconds   Tests passed / failed');
for (const r of results) {
  const tests = r.passed === null ? '' : `${r.passed} / ${r.failed}`;
  console.log(`${pad(r.label, 14)}${pad(r.ok ? 'ok' : 'FAILED', 9)}${pad(r.seconds.toFixed(1), 10)}${tests}`);
}
console.log(`${pad('(wall clock)', 23)}${((Date.now() - started) / 1000).toFixed(1)}`);
// The failures again, last: a log cut to its tail still names them.
for (const r of results) {
  for (const failure of r.failures ?? []) console.log(`\nFAILED in ${r.label}: ${failure}`);
}
console.log(`\nTotal: ${passed} passed, ${failed} failed`);
process.exit(ok ? 0 : 1);
