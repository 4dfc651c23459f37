import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Usage } from '@ksp/contracts';
import { call, engines, initialize, startServer, type TestServer } from '../../test/harness.js';
import { freePort } from '../../test/free-port.js';

const main = fileURLToPath(new URL('../../main.ts', import.meta.url));
const KEYS = 400;

/** Waits for a condition polled every 50 ms (a process to come up, a run to get going); no timing is asserted. */
async function until(what: string, check: () => Promise<boolean>, limitMs = 60_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(await engines())('the scheduler after kill -9 of the node running it (%s)', (engine) => {
  let server: TestServer;
  let token: string;
  let databaseUrl: string | null = null;
  let child: ChildProcess | null = null;
  let output = '';

  beforeAll(async () => {
    server = await startServer(engine, {}, undefined, undefined, {
      databaseUrl: (url) => (databaseUrl = url),
    });
    ({ token } = await initialize(server));
  }, 120_000);
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await server?.close();
  });

  it('leaves no key half-rotated; the next node resumes the run and rotates each key once', async () => {
    for (let i = 0; i < KEYS; i += 1) {
      const made = await call(server, api.key.create, {
        token,
        body: { name: `kill-${i}`, algorithm: 'AES-128', usage_mask: Usage.Encrypt | Usage.Decrypt },
      });
      expect(made.code, made.msg).toBe(0);
    }
    const task = await call(server, api.scheduler.create, {
      token,
      body: { name: 'kill test', cron: '0 3 * * *', query: { name_pattern: 'kill-*' } },
    });
    expect(task.code, task.msg).toBe(0);
    // Runs back their keys up first, under the default system backup key.
    const backupKey = await call(server, api.backupKey.create, {
      token,
      body: { name: 'rotation backups', scope: 'system', is_default: true },
    });
    expect(backupKey.code, backupKey.msg).toBe(0);
    // This node takes its first look now, so its timer leaves the job alone until its clock moves.
    await server.services.scheduler.round();

    // A second node in its own process, on the same database and data directory.
    const port = await freePort();
    child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', main], {
      env: {
        ...process.env,
        KSP_DATA_DIR: server.dataDir,
        KSP_PORT: String(port),
        KSP_HOST: '127.0.0.1',
        KSP_LOG_LEVEL: 'silent',
        KSP_NODE_NAME: 'doomed',
        KSP_CRYPTO_WORKERS: '0',
        ...(databaseUrl ? { KSP_DATABASE_URL: databaseUrl } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const base = `http://127.0.0.1:${port}`;
    await until('the child server', async () => {
      if (child?.exitCode !== null) throw new Error(`the child exited:\n${output}`);
      return fetch(`${base}/v1/ksp/system/status`).then(
        (r) => r.ok,
        () => false,
      );
    });

    const queued = await fetch(`${base}${api.scheduler.runNow.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', token },
      body: JSON.stringify({ id: task.data.id }),
    }).then((r) => r.json() as Promise<{ code: number; data: { id: string } }>);
    expect(queued.code).toBe(0);
    const runId = queued.data.id;
    const runRow = () =>
      server.database.db
        .selectFrom('scheduler_run')
        .selectAll()
        .where('id', '=', runId)
        .executeTakeFirstOrThrow();

    // Once the child is some keys in, kill it without warning.
    await until('the child to rotate some keys', async () => (await runRow()).rotated >= 10);
    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
    const atKill = await runRow();
    expect(atKill).toMatchObject({ state: 'running', node: 'doomed', matched: KEYS });
    expect(atKill.rotated).toBeLessThan(KEYS);

    // No key is half-rotated: each is at version 1 with no version 2, or at 2 and marked rotated.
    const keys = await server.database.db
      .selectFrom('kms_key')
      .select(['id', 'current_version'])
      .where('name', 'like', 'kill-%')
      .execute();
    const versions = await server.database.db
      .selectFrom('kms_key_version')
      .innerJoin('kms_key', 'kms_key.id', 'kms_key_version.key_id')
      .select(['kms_key_version.key_id', 'kms_key_version.version'])
      .where('kms_key.name', 'like', 'kill-%')
      .execute();
    const marks = await server.database.db
      .selectFrom('scheduler_run_key')
      .select(['key_id', 'result'])
      .where('run_id', '=', runId)
      .execute();
    const marked = new Map(marks.map((m) => [m.key_id, m.result]));
    for (const k of keys) {
      const made = versions.filter((v) => v.key_id === k.id).length;
      expect(made).toBe(k.current_version);
      expect(marked.get(k.id)).toBe(k.current_version === 2 ? 'rotated' : 'pending');
    }
    const rotatedAtKill = keys.filter((k) => k.current_version === 2).length;
    expect(rotatedAtKill).toBe(atKill.rotated);

    // The killed node's lease runs out (60 s); this node takes the job over and resumes the run.
    server.clock.now = new Date(Date.now() + 61_000);
    const outcome = await server.services.scheduler.round();
    expect(outcome).toMatchObject({ result: 'success', resumed: true });
    const finished = await runRow();
    expect(finished).toMatchObject({ state: 'success', matched: KEYS, rotated: KEYS, failed: 0 });
    expect(finished.node).not.toBe('doomed');
    const after = await server.database.db
      .selectFrom('kms_key')
      .select('current_version')
      .where('name', 'like', 'kill-%')
      .execute();
    expect(after.every((k) => k.current_version === 2)).toBe(true);
    const records = await server.database.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'key.add-version')
      .execute();
    expect(
      records.filter((r) => (JSON.parse(r.details) as { scheduler_run?: string }).scheduler_run === runId),
    ).toHaveLength(KEYS);
  }, 300_000);
});
