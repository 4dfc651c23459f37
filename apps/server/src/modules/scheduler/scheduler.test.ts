import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code, intervalToCron, Usage, type BodyOf } from '@ksp/contracts';
import {
  ADMIN,
  call,
  callUnchecked,
  domainWithAdmin,
  engines,
  initialize,
  login,
  startServer,
  type TestServer,
} from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';
import type { RotationBackup } from './scheduler.module.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
/** A Sunday, midnight UTC. */
const START = new Date('2026-03-01T00:00:00.000Z');

/** A recording stand-in for the backup module's key-rotation backup. */
function recordingBackup(server: () => TestServer) {
  const calls: { keyIds: string[]; actor: string; task: string; run: string; versionsAtCall: number[] }[] =
    [];
  let failNext = false;
  const backup: RotationBackup = {
    async take(input) {
      const rows = await server()
        .database.db.selectFrom('kms_key')
        .select(['id', 'current_version'])
        .where('id', 'in', input.keyIds)
        .execute();
      calls.push({ ...input, versionsAtCall: rows.map((r) => r.current_version) });
      if (failNext) {
        failNext = false;
        throw new Error('backup disk is full');
      }
      return { id: `backup-${calls.length}` };
    },
  };
  return { backup, calls, failOnce: () => (failNext = true) };
}

describe('the run-interval builder', () => {
  it('compiles each repeat period to cron and names what is missing', () => {
    expect(intervalToCron({ period: 'day', hour: 2, minute: 30 })).toEqual({ cron: '30 2 * * *' });
    expect(intervalToCron({ period: 'week', hour: 3, weekdays: [5, 1, 1] })).toEqual({ cron: '0 3 * * 1,5' });
    expect(intervalToCron({ period: 'month', day_of_month: 15 })).toEqual({ cron: '0 0 15 * *' });
    expect(intervalToCron({ period: 'year', month: 6, day_of_month: 1, hour: 4 })).toEqual({
      cron: '0 4 1 6 *',
    });
    expect(intervalToCron({ period: 'week', weekdays: [] })).toEqual({ missing: 'weekdays' });
    expect(intervalToCron({ period: 'year', day_of_month: 1 })).toEqual({ missing: 'month' });
  });
});

describe.each(await engines())('scheduler on %s', (engine) => {
  let server: TestServer;
  let token: string;
  const recorder = recordingBackup(() => server);

  beforeAll(async () => {
    server = await startServer(engine, {}, undefined, undefined, {
      services: { rotationBackup: recorder.backup },
    });
    server.clock.now = START;
    ({ token } = await initialize(server));
  });
  afterAll(async () => {
    await server?.close();
  });

  const newKey = async (name: string, labels: Record<string, string> = {}, tok = token) => {
    const made = await call(server, api.key.create, {
      token: tok,
      body: { name, algorithm: 'AES-256', usage_mask: Usage.Encrypt | Usage.Decrypt, labels },
    });
    expect(made.code, made.msg).toBe(0);
    return made.data;
  };
  const versionOf = async (id: string) =>
    (
      await server.database.db
        .selectFrom('kms_key')
        .select('current_version')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).current_version;
  const createTask = async (body: BodyOf<typeof api.scheduler.create>, tok = token) => {
    const made = await call(server, api.scheduler.create, { token: tok, body });
    expect(made.code, made.msg).toBe(0);
    return made.data;
  };
  const history = async (id: string, tok = token, runId?: string) => {
    const h = await call(server, api.scheduler.history, {
      token: tok,
      query: { id, page: 1, page_size: 50, ...(runId ? { run_id: runId } : {}) },
    });
    expect(h.code, h.msg).toBe(0);
    return h.data;
  };
  /** Moves the fake clock; sessions idle that long have expired, so sign in again. */
  const travel = async (to: Date) => {
    server.clock.now = to;
    token = await login(server, ADMIN.username, ADMIN.password);
  };
  const removeAll = async () => {
    const list = await call(server, api.scheduler.list, { token, query: { page: 1, page_size: 1000 } });
    if (list.data.total > 0)
      await call(server, api.scheduler.delete, { token, body: { ids: list.data.data.map((t) => t.id) } });
  };

  it('builds the schedule from the interval, shows it as cron, and computes the next run in the window', async () => {
    const weekly = await createTask({
      name: 'weekly',
      interval: { period: 'week', weekdays: [1], hour: 3, minute: 0 },
      query: {},
    });
    expect(weekly).toMatchObject({
      cron: '0 3 * * 1',
      interval: { period: 'week', weekdays: [1], hour: 3, minute: 0 },
      enabled: true,
      type: 'key_rotation',
      next_run_at: '2026-03-02T03:00:00.000Z',
      last_run_at: null,
      last_result: null,
      created_by: ADMIN.username,
    });
    // Starting in April: the first Monday of April.
    const later = await createTask({
      name: 'from april',
      cron: '0 3 * * mon',
      start_at: '2026-04-01T00:00:00.000Z',
      end_at: '2026-12-31T00:00:00.000Z',
      query: {},
    });
    expect(later.next_run_at).toBe('2026-04-06T03:00:00.000Z');
    expect(later.interval).toBeNull();
    // Changing the cron recomputes the next run and the last-modified time.
    server.clock.advance(60);
    const changed = await call(server, api.scheduler.update, {
      token,
      body: { id: later.id, interval: { period: 'month', day_of_month: 15, hour: 1, minute: 0 } },
    });
    expect(changed.data).toMatchObject({ cron: '0 1 15 * *', next_run_at: '2026-04-15T01:00:00.000Z' });
    expect(changed.data.updated_at).not.toBe(later.updated_at);
    const list = await call(server, api.scheduler.list, { token, query: { page: 1, page_size: 20 } });
    expect(list.data.data.map((t) => t.name).sort()).toEqual(['from april', 'weekly']);
    await removeAll();
  });

  it('refuses hostile input with a clear error, in the caller’s language, and creates nothing', async () => {
    const refused = async (body: unknown, lang = 'en') => {
      const answer = await callUnchecked(server, api.scheduler.create, { token, lang, body });
      expect(answer.code).toBe(Code.INVALID);
      return answer.msg;
    };
    expect(await refused({ name: 'bad', cron: '61 * * * *', query: {} })).toMatch(
      /minute: '61' is not between 0 and 59/,
    );
    expect(await refused({ name: 'bad', cron: '* * * *', query: {} })).toMatch(/has 4 fields/);
    expect(await refused({ name: 'bad', cron: '0 0 30 2 *', query: {} })).toMatch(/no run between/);
    expect(
      await refused({
        name: 'bad',
        cron: '0 3 * * *',
        start_at: '2026-05-01T00:00:00Z',
        end_at: '2026-04-01T00:00:00Z',
        query: {},
      }),
    ).toMatch(/end_at .* must be after start_at/);
    expect(
      await refused(
        {
          name: 'bad',
          cron: '0 3 * * *',
          start_at: '2026-05-01T00:00:00Z',
          end_at: '2026-04-01T00:00:00Z',
          query: {},
        },
        'zh',
      ),
    ).toMatch(/结束时间/);
    expect(await refused({ name: 'bad', interval: { period: 'week', weekdays: [] }, query: {} })).toMatch(
      /week interval needs weekdays/,
    );
    expect(await refused({ name: 'bad', cron: '0 3 * * *', interval: { period: 'day' }, query: {} })).toMatch(
      /not both/,
    );
    expect(await refused({ name: 'bad', query: {} })).toMatch(/schedule is required/);
    expect(await refused({ name: 'bad', cron: '0 3 * * *', query: { algorithms: ['ROT13'] } })).toMatch(
      /algorithms/,
    );
    expect(await refused({ name: 'bad', cron: '0 3 * * *', query: { owner: 'x' } })).toMatch(/owner|query/);
    expect(await refused({ name: 'bad', cron: '0 3 * * *', query: { min_age_days: -1 } })).toMatch(
      /min_age_days/,
    );
    // An end date already past leaves no run.
    expect(
      await refused({ name: 'bad', cron: '0 3 * * *', end_at: '2026-01-01T00:00:00Z', query: {} }),
    ).toMatch(/no run between/);
    const list = await call(server, api.scheduler.list, { token, query: { page: 1, page_size: 20 } });
    expect(list.data.total).toBe(0);
    const refusals = await server.database.db
      .selectFrom('audit_log')
      .select(['result', 'details'])
      .where('action', '=', 'scheduler.create')
      .execute();
    // Each refusal the service makes is recorded (schema refusals are answered before it).
    const failures = refusals.filter((r) => r.result === 'failure');
    expect(failures.length).toBeGreaterThanOrEqual(6);
    expect(failures.map((r) => (JSON.parse(r.details) as { reason: string }).reason)).toContain(
      'scheduler.endBeforeStart',
    );
  });

  it('runs a due task once: backup first, each matched key rotated, old ciphertext still decrypts', async () => {
    const a = await newKey('prod-a', { env: 'prod' });
    const b = await newKey('prod-b', { env: 'prod' });
    const dev = await newKey('dev-c', { env: 'dev' });
    const before = await call(server, api.crypto.encrypt, {
      token,
      body: { key_id: a.id, plaintext: b64('old') },
    });
    expect(before.data.version).toBe(1);
    const task = await createTask({
      name: 'hourly prod',
      cron: '0 * * * *',
      query: { labels: { env: 'prod' } },
    });
    expect(task.next_run_at).toBe('2026-03-01T01:00:00.000Z');

    // Not due yet: nothing runs.
    await server.services.scheduler.round();
    expect((await history(task.id)).total).toBe(0);

    await travel(new Date('2026-03-01T01:00:00.000Z'));
    const outcome = await server.services.scheduler.round();
    expect(outcome?.result).toBe('success');
    const runs = await history(task.id);
    expect(runs.total).toBe(1);
    const run = runs.data[0]!;
    expect(run).toMatchObject({ trigger: 'schedule', state: 'success', matched: 2, rotated: 2, failed: 0 });
    expect(run.backup_id).toBe(`backup-${recorder.calls.length}`);
    // The backup was taken of exactly the matched keys, before any of them rotated.
    const taken = recorder.calls.at(-1)!;
    expect(taken.keyIds.sort()).toEqual([a.id, b.id].sort());
    expect(taken.versionsAtCall).toEqual([1, 1]);
    expect(taken.actor).toBe('scheduler');

    expect(await versionOf(a.id)).toBe(2);
    expect(await versionOf(b.id)).toBe(2);
    expect(await versionOf(dev.id)).toBe(1);
    const old = await call(server, api.crypto.decrypt, {
      token,
      body: { ciphertext: before.data.ciphertext },
    });
    expect(old.data).toMatchObject({ plaintext: b64('old'), version: 1 });
    const fresh = await call(server, api.crypto.encrypt, {
      token,
      body: { key_id: a.id, plaintext: b64('new') },
    });
    expect(fresh.data.version).toBe(2);

    const detail = await history(task.id, token, run.id);
    expect(detail.keys.map((k) => [k.key_name, k.result, k.version])).toEqual([
      ['prod-a', 'rotated', 2],
      ['prod-b', 'rotated', 2],
    ]);
    // One audit record per key, naming the run; one for the run.
    const perKey = await server.database.db
      .selectFrom('audit_log')
      .select(['target', 'details', 'source'])
      .where('action', '=', 'key.add-version')
      .execute();
    const ofRun = perKey.filter(
      (r) => (JSON.parse(r.details) as { scheduler_run?: string }).scheduler_run === run.id,
    );
    expect(ofRun.map((r) => r.target).sort()).toEqual(['prod-a', 'prod-b']);
    expect(ofRun.every((r) => r.source === 'scheduler')).toBe(true);
    const runRecord = await server.database.db
      .selectFrom('audit_log')
      .select(['result', 'details'])
      .where('action', '=', 'scheduler.run')
      .where('object_id', '=', task.id)
      .execute();
    expect(runRecord).toHaveLength(1);
    expect(runRecord[0]!.result).toBe('success');

    const listed = (await call(server, api.scheduler.list, { token, query: { page: 1, page_size: 20 } })).data
      .data[0]!;
    expect(listed).toMatchObject({
      last_result: 'success',
      last_run_at: '2026-03-01T01:00:00.000Z',
      next_run_at: '2026-03-01T02:00:00.000Z',
    });
    // The same instant again: nothing more is due.
    await server.services.scheduler.round();
    expect((await history(task.id)).total).toBe(1);
    await removeAll();
  });

  it('runs now, and not while disabled; a failing backup stops the run before any key rotates', async () => {
    const k = await newKey('manual-k', { team: 'manual' });
    const task = await createTask({
      name: 'manual',
      cron: '30 * * * *',
      query: { name_pattern: 'manual-*' },
    });
    const disabled = await call(server, api.scheduler.disable, { token, body: { id: task.id } });
    expect(disabled.data).toMatchObject({ enabled: false, next_run_at: null });
    await travel(new Date(server.clock.now.getTime() + 3 * 3600_000));
    await server.services.scheduler.round();
    expect((await history(task.id)).total).toBe(0);

    const queued = await call(server, api.scheduler.runNow, { token, body: { id: task.id } });
    expect(queued.data).toMatchObject({ trigger: 'manual', requested_by: ADMIN.username });
    await server.services.scheduler.settle();
    await server.services.scheduler.round();
    const done = (await history(task.id)).data[0]!;
    expect(done).toMatchObject({ state: 'success', matched: 1, rotated: 1, trigger: 'manual' });
    expect(await versionOf(k.id)).toBe(2);

    recorder.failOnce();
    await call(server, api.scheduler.runNow, { token, body: { id: task.id } });
    await server.services.scheduler.round();
    const failed = (await history(task.id)).data[0]!;
    expect(failed).toMatchObject({ state: 'failure', rotated: 0, backup_id: null });
    expect(failed.error).toMatch(/backup failed, no key was rotated: backup disk is full/);
    expect(await versionOf(k.id)).toBe(2);
    const listed = (await call(server, api.scheduler.list, { token, query: { page: 1, page_size: 20 } })).data
      .data[0]!;
    expect(listed.last_result).toBe('failure');

    const enabled = await call(server, api.scheduler.enable, { token, body: { id: task.id } });
    expect(enabled.data.enabled).toBe(true);
    expect(new Date(enabled.data.next_run_at!).getTime()).toBeGreaterThan(server.clock.now.getTime());
    await removeAll();
  });

  it('keeps a domain’s tasks and keys to that domain', async () => {
    const other = await domainWithAdmin(server, token, {
      domain: `sched-${engine}`,
      username: `sched-admin-${engine}`,
      password: 'Sched-Pass-1',
    });
    const theirs = await newKey('their-key', {}, other.token);
    const mine = await newKey('root-key-scope');
    const mineBefore = await versionOf(mine.id);
    const task = await createTask({ name: 'all of mine', cron: '0 0 * * *', query: {} }, other.token);
    // Root's list does not show it, and root cannot run it.
    const rootList = await call(server, api.scheduler.list, { token, query: { page: 1, page_size: 50 } });
    expect(rootList.data.data.find((t) => t.id === task.id)).toBeUndefined();
    const refused = await call(server, api.scheduler.runNow, { token, body: { id: task.id } });
    expect(refused.code).toBe(Code.NOT_FOUND);

    await call(server, api.scheduler.runNow, { token: other.token, body: { id: task.id } });
    await server.services.scheduler.round();
    const run = (await history(task.id, other.token)).data[0]!;
    // "None means all": all of that domain's keys, none of root's.
    expect(run).toMatchObject({ state: 'success', matched: 1, rotated: 1 });
    expect(await versionOf(theirs.id)).toBe(2);
    expect(await versionOf(mine.id)).toBe(mineBefore);
    await call(server, api.scheduler.delete, { token: other.token, body: { ids: [task.id] } });
  });

  it('runs missed slots once when the server comes back', async () => {
    const k = await newKey('missed-k', { missed: 'yes' });
    const task = await createTask({
      name: 'missed',
      cron: '0 * * * *',
      query: { labels: { missed: 'yes' } },
    });
    // Down for five hours and a half.
    server = await server.restart();
    await travel(new Date(server.clock.now.getTime() + 5.5 * 3600_000));
    await server.services.scheduler.round();
    const runs = await history(task.id);
    expect(runs.total).toBe(1);
    expect(runs.data[0]).toMatchObject({ trigger: 'missed', state: 'success', rotated: 1 });
    expect(await versionOf(k.id)).toBe(2);
    const listed = (
      await call(server, api.scheduler.list, { token, query: { page: 1, page_size: 20 } })
    ).data.data.find((t) => t.id === task.id)!;
    expect(new Date(listed.next_run_at!).getTime()).toBeGreaterThan(server.clock.now.getTime());
    await removeAll();
  });

  it('on two nodes of one database, one runs the job; a node stopped mid-run is resumed without rotating twice', async () => {
    const keys = [];
    for (let i = 0; i < 6; i += 1) keys.push(await newKey(`cluster-${i}`, { cluster: 'yes' }));
    const nodeB = await server.startNode({ nodeName: `node-b-${engine}` });
    try {
      // Both nodes at once: one run, every key rotated once.
      const task = await createTask({
        name: 'cluster',
        cron: '0 * * * *',
        query: { labels: { cluster: 'yes' } },
      });
      await travel(new Date(task.next_run_at!));
      const outcomes = await Promise.all([
        server.services.scheduler.round(),
        nodeB.services.scheduler.round(),
      ]);
      expect(outcomes.some((o) => o?.result === 'success')).toBe(true);
      let runs = await history(task.id);
      expect(runs.total).toBe(1);
      for (const k of keys) expect(await versionOf(k.id)).toBe(2);

      // Node A stops after two keys (a node frozen or killed: its lease is not renewed).
      let stopped!: () => void;
      const reached = new Promise<void>((resolve) => (stopped = resolve));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      server.services.scheduler.hooks.afterKey = async (_run, done) => {
        if (done === 2) {
          stopped();
          await held;
        }
      };
      await call(server, api.scheduler.runNow, { token, body: { id: task.id } });
      await reached;
      const mid = (await history(task.id)).data[0]!;
      expect(mid).toMatchObject({ state: 'running', rotated: 2, matched: 6 });

      // While A holds the lease, B does nothing.
      expect(await nodeB.services.scheduler.round()).toBeNull();
      // The lease runs out; B takes over and finishes the run.
      server.clock.advance(61);
      const resumed = await nodeB.services.scheduler.round();
      expect(resumed).toMatchObject({ result: 'success', resumed: true });
      release();
      await server.services.scheduler.settle();
      server.services.scheduler.hooks.afterKey = undefined;

      runs = await history(task.id);
      expect(runs.total).toBe(2);
      expect(runs.data[0]).toMatchObject({
        state: 'success',
        matched: 6,
        rotated: 6,
        failed: 0,
        node: `node-b-${engine}`,
      });
      for (const k of keys) expect(await versionOf(k.id)).toBe(3);
      const records = await server.database.db
        .selectFrom('audit_log')
        .select('details')
        .where('action', '=', 'key.add-version')
        .execute();
      const ofRun = records.filter(
        (r) => (JSON.parse(r.details) as { scheduler_run?: string }).scheduler_run === runs.data[0]!.id,
      );
      expect(ofRun).toHaveLength(6);
    } finally {
      await nodeB.close();
    }
    await removeAll();
  });
});

describe.each(await engines())('scheduler with the backup module on %s', (engine) => {
  let server: TestServer;
  let token: string;

  signedInServer(engine, (started) => ({ server, token } = started));

  const runNow = async (taskId: string) => {
    const queued = await call(server, api.scheduler.runNow, { token, body: { id: taskId } });
    expect(queued.code, queued.msg).toBe(0);
    await server.services.scheduler.settle();
    await server.services.scheduler.round();
  };
  const lastRun = async (taskId: string, lang = 'en') => {
    const h = await call(server, api.scheduler.history, {
      token,
      lang,
      query: { id: taskId, page: 1, page_size: 10 },
    });
    return h.data.data[0]!;
  };

  it('rotates nothing until a default system backup key exists, then backs the keys up before rotating them', async () => {
    const key = await call(server, api.key.create, {
      token,
      body: { name: 'rb-1', algorithm: 'AES-256', usage_mask: Usage.Encrypt | Usage.Decrypt },
    });
    const task = await call(server, api.scheduler.create, {
      token,
      body: { name: 'rb', cron: '0 3 * * *', query: { name_pattern: 'rb-*' } },
    });
    expect(task.code, task.msg).toBe(0);

    // No backup key yet: the run fails with the reason, in the reader's language, and no key rotates.
    await runNow(task.data.id);
    const refused = await lastRun(task.data.id);
    expect(refused).toMatchObject({ state: 'failure', rotated: 0, backup_id: null });
    expect(refused.error).toBe(
      'The key-rotation backup failed, no key was rotated: No default system backup key: create one or choose a key',
    );
    expect((await lastRun(task.data.id, 'zh')).error).toMatch(
      '密钥轮换备份失败，未轮换任何密钥：没有默认的系统备份密钥：请先创建或指定备份密钥',
    );
    const keysOfRun = await call(server, api.scheduler.history, {
      token,
      lang: 'zh',
      query: { id: task.data.id, run_id: refused.id, page: 1, page_size: 10 },
    });
    expect(keysOfRun.data.keys).toEqual([
      expect.objectContaining({ key_name: 'rb-1', result: 'failed', error: '未轮换：密钥轮换备份失败' }),
    ]);
    const listed = await call(server, api.scheduler.list, {
      token,
      lang: 'zh',
      query: { page: 1, page_size: 10 },
    });
    expect(listed.data.data[0]!.last_error).toMatch(/^密钥轮换备份失败/);

    // With a default system backup key, the run's backup holds the key as it was before the rotation.
    const made = await call(server, api.backupKey.create, {
      token,
      body: { name: 'system key', scope: 'system', is_default: true },
    });
    expect(made.code, made.msg).toBe(0);
    await runNow(task.data.id);
    const done = await lastRun(task.data.id);
    expect(done).toMatchObject({ state: 'success', rotated: 1, error: null });
    expect(done.backup_id).not.toBeNull();
    const backup = await call(server, api.backup.detail, { token, query: { id: done.backup_id! } });
    expect(backup.code, backup.msg).toBe(0);
    expect(backup.data).toMatchObject({ scope: 'key_rotation', status: 'completed' });
    // The server made its description: in the caller's language, and as a key and parameters.
    expect(backup.data.description).toBe(`Key rotation: task rb, run ${done.id}`);
    expect(backup.data.description_message).toEqual({
      key: 'backup.rotationDescription',
      params: { task: 'rb', run: done.id },
    });
    const inChinese = await call(server, api.backup.list, {
      token,
      lang: 'zh',
      query: { page: 1, page_size: 10 },
    });
    expect(inChinese.data.data.find((b) => b.id === done.backup_id)?.description).toBe(
      `密钥轮换：任务 rb，运行 ${done.id}`,
    );
    const version = await call(server, api.key.detail, { token, query: { id: key.data.id } });
    expect(version.data.version).toBe(2);
  });
});
