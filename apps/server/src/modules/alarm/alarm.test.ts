import { describe, expect, it } from 'vitest';
import { api, Code, Usage } from '@ksp/contracts';
import { writeAudit } from '../../platform/audit.js';
import {
  call,
  callUnchecked,
  encodeUsername,
  engines,
  hashForLogin,
  type TestServer,
} from '../../test/harness.js';
import { auditRecords, signedInWithBranch } from '../../test/fixtures.js';
import { createAlarmService, type ClientLogCounter } from './alarm.service.js';

describe.each(await engines())('alarms on %s', (engine) => {
  let server: TestServer;
  let root: string;
  let branch: string;
  let branchId: string;

  const failLogin = async () => {
    const res = await call(server, api.user.login, {
      body: { username: encodeUsername('intruder'), password: await hashForLogin('Wrong-Pass-9') },
    });
    expect(res.code).toBe(Code.BAD_CREDENTIALS);
  };
  const makeKey = async (token: string, name: string) => {
    const res = await call(server, api.key.create, {
      token,
      body: { name, algorithm: 'AES-256', usage_mask: Usage.Encrypt | Usage.Decrypt },
    });
    expect(res.code, res.msg).toBe(0);
  };
  const alarms = (token: string, query: Record<string, string | number> = {}) =>
    callUnchecked(server, api.alarm.list, { token, query: { page: 1, page_size: 100, ...query } });
  const rules = (token: string) =>
    call(server, api.alarm.ruleList, { token, query: { page: 1, page_size: 100 } });
  const records = (action: string) => auditRecords(server, action);

  signedInWithBranch(
    engine,
    (started) =>
      ({
        server,
        token: root,
        branch: { domainId: branchId, token: branch },
      } = started),
  );

  it('raises one alarm when failed sign-ins reach the threshold, audited, then keeps quiet for the interval', async () => {
    const rule = await call(server, api.alarm.ruleCreate, {
      token: root,
      body: {
        name: 'login-failures',
        action: 'user.login',
        result: 'failure',
        threshold: 3,
        interval_seconds: 60,
        severity: 'ERROR',
      },
    });
    expect(rule.code, rule.msg).toBe(0);
    expect(rule.data).toMatchObject({
      enabled: true,
      stream: 'server',
      all_domains: true,
      domain_name: 'root',
      last_raised_at: null,
    });

    await failLogin();
    await failLogin();
    expect(await server.services.alarms.evaluate()).toBe(0);
    expect((await alarms(root)).data.total).toBe(0);
    await failLogin();
    expect(await server.services.alarms.evaluate()).toBe(1);

    const listed = await alarms(root);
    expect(listed.code, listed.msg).toBe(0);
    expect(listed.data.total).toBe(1);
    expect(listed.data.data[0]).toMatchObject({
      rule_id: rule.data.id,
      rule_name: 'login-failures',
      domain_name: 'root',
      severity: 'ERROR',
      state: 'open',
      count: 3,
      threshold: 3,
      interval_seconds: 60,
      acknowledged_by: null,
    });
    const raised = await records('alarm.raise');
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({
      severity: 'ERROR',
      target: 'login-failures',
      username: 'system',
      source: 'scheduler',
      object_id: listed.data.data[0]!.id,
    });
    expect(JSON.parse(raised[0]!.details)).toMatchObject({
      rule_id: rule.data.id,
      count: 3,
      interval: 60,
      threshold: 3,
    });

    // Within the interval: more failures, another round, still one alarm.
    for (let i = 0; i < 4; i++) await failLogin();
    expect(await server.services.alarms.evaluate()).toBe(0);
    expect((await alarms(root)).data.total).toBe(1);
    expect(await records('alarm.raise')).toHaveLength(1);

    const summary = await call(server, api.alarm.summary, { token: root });
    expect(summary.data).toMatchObject({ open: { WARNING: 0, ERROR: 1, CRITICAL: 0 }, total_open: 1 });
    expect(summary.data.latest.map((a) => a.rule_name)).toEqual(['login-failures']);
  });

  it("counts a domain rule's own records only, by area prefix, and raises again once the interval is over", async () => {
    const rule = await call(server, api.alarm.ruleCreate, {
      token: branch,
      body: { name: 'key-burst', action: 'key.', threshold: 2, interval_seconds: 30 },
    });
    expect(rule.code, rule.msg).toBe(0);
    expect(rule.data).toMatchObject({ all_domains: false, domain_name: 'branch', severity: 'WARNING' });
    // Root's keys are not branch's.
    await makeKey(root, 'root-key-1');
    await makeKey(root, 'root-key-2');
    expect(await server.services.alarms.evaluate()).toBe(0);
    await makeKey(branch, 'branch-key-1');
    expect(await server.services.alarms.evaluate()).toBe(0);
    await makeKey(branch, 'branch-key-2');
    expect(await server.services.alarms.evaluate()).toBe(1);
    const first = (await alarms(branch)).data;
    expect(first.data.map((a) => [a.rule_name, a.domain_name, a.count])).toEqual([
      ['key-burst', 'branch', 2],
    ]);

    // Long after: the old records are out of the window, nothing is raised.
    server.clock.advance(600);
    expect(await server.services.alarms.evaluate()).toBe(0);
    // Two new key records of branch (written at the clock's time) raise it again.
    const subject = {
      userId: null,
      username: 'branch-admin',
      domainId: branchId,
      domainName: 'branch',
    };
    for (const target of ['later-1', 'later-2'])
      await writeAudit(
        server.database.db,
        { who: subject, action: 'key.create', target, result: 'success', ip: '127.0.0.1' },
        server.clock.now,
      );
    expect(await server.services.alarms.evaluate()).toBe(1);
    expect((await alarms(branch)).data.total).toBe(2);
  });

  it("keeps each domain's rules and alarms to itself", async () => {
    const ofBranch = await rules(branch);
    expect(ofBranch.data.data.map((r) => r.name)).toEqual(['key-burst']);
    const seen = JSON.stringify([
      ofBranch.data,
      (await alarms(branch)).data,
      (await call(server, api.alarm.summary, { token: branch })).data,
    ]);
    expect(seen).not.toContain('login-failures');
    expect(seen).not.toContain('"root"');

    const ofRoot = await rules(root);
    expect(ofRoot.data.data.map((r) => `${r.name}@${r.domain_name}`).sort()).toEqual([
      'key-burst@branch',
      'login-failures@root',
    ]);
    const rootRule = ofRoot.data.data.find((r) => r.name === 'login-failures')!;
    const rootAlarm = (await alarms(root)).data.data.find((a) => a.rule_name === 'login-failures')!;
    expect(new Set((await alarms(root)).data.data.map((a) => a.domain_name))).toEqual(
      new Set(['root', 'branch']),
    );

    const update = await call(server, api.alarm.ruleUpdate, {
      token: branch,
      body: { id: rootRule.id, enabled: false },
    });
    expect(update.code).toBe(Code.NOT_FOUND);
    const remove = await call(server, api.alarm.ruleDelete, { token: branch, body: { ids: [rootRule.id] } });
    expect(remove.code).toBe(Code.NOT_FOUND);
    const ack = await call(server, api.alarm.acknowledge, { token: branch, body: { ids: [rootAlarm.id] } });
    expect(ack.code).toBe(Code.NOT_FOUND);
    const after = (await rules(root)).data.data.find((r) => r.id === rootRule.id);
    expect(after).toMatchObject({ enabled: true, name: 'login-failures' });
    expect((await alarms(root, { state: 'open' })).data.data.map((a) => a.id)).toContain(rootAlarm.id);
  });

  it('acknowledges alarms once, audited, and the lists and summary follow', async () => {
    const open = (await alarms(root, { state: 'open' })).data.data;
    const target = open.find((a) => a.rule_name === 'login-failures')!;
    const ack = await call(server, api.alarm.acknowledge, { token: root, body: { ids: [target.id] } });
    expect(ack.data).toEqual({ acknowledged: 1 });
    const again = await call(server, api.alarm.acknowledge, { token: root, body: { ids: [target.id] } });
    expect(again.data).toEqual({ acknowledged: 0 });
    expect((await alarms(root, { state: 'open' })).data.data.map((a) => a.id)).not.toContain(target.id);
    const done = (await alarms(root, { state: 'acknowledged' })).data.data;
    expect(done.map((a) => a.id)).toEqual([target.id]);
    expect(done[0]).toMatchObject({ state: 'acknowledged', acknowledged_by: 'admin' });
    expect(done[0]!.acknowledged_at).not.toBeNull();
    const audit = await records('alarm.acknowledge');
    expect(audit.map((r) => [r.target, r.object_id, r.username])).toEqual([
      ['login-failures', target.id, 'admin'],
    ]);
    const summary = await call(server, api.alarm.summary, { token: root });
    expect(summary.data.open.ERROR).toBe(0);
    expect(summary.data.total_open).toBe(2);
    expect((await alarms(root, { severity: 'ERROR' })).data.total).toBe(1);
  });

  it('refuses bad rules with the field and the rule, in English and Chinese, writing nothing', async () => {
    const before = (await rules(root)).data.total;
    const base = { name: 'bad', action: 'user.login', threshold: 3, interval_seconds: 60 };
    const refused = async (body: Record<string, unknown>, lang = 'en') => {
      const res = await callUnchecked(server, api.alarm.ruleCreate, {
        token: root,
        lang,
        body: { ...base, ...body },
      });
      expect(res.code, JSON.stringify(body)).toBe(Code.INVALID);
      return res.msg;
    };
    expect(await refused({ interval_seconds: 5 })).toMatch(/interval_seconds.*at least 10/);
    expect(await refused({ interval_seconds: 7 * 86_400 + 1 })).toMatch(/interval_seconds.*at most 604800/);
    expect(await refused({ threshold: 0 })).toMatch(/threshold.*at least 1/);
    expect(await refused({ severity: 'INFO' })).toMatch(/severity/);
    expect(await refused({ severity: 'PANIC' })).toMatch(/severity/);
    expect(await refused({ min_severity: 'LOUD' })).toMatch(/min_severity/);
    expect(await refused({ action: 'user login' })).toMatch(/action/);
    expect(await refused({ action: 'key.*' })).toMatch(/action/);
    expect(await refused({ action: "x'; drop table alarm_rule; --" })).toMatch(/action/);
    expect(await refused({ stream: 'client', result: 'failure' })).toBe(
      'result: failure does not apply to client records (use permit, deny, audit)',
    );
    expect(await refused({ stream: 'server', result: 'deny' })).toBe(
      'result: deny does not apply to server records (use success, failure)',
    );
    expect(await refused({ stream: 'client', min_severity: 'ERROR' })).toMatch(/^min_severity: /);
    expect(await refused({ stream: 'client', min_severity: 'ERROR' }, 'zh')).toMatch(
      /^min_severity：.*请留空/,
    );
    expect(await refused({ interval_seconds: 5 }, 'zh')).toMatch(/interval_seconds.*不能小于 10/);
    expect((await rules(root)).data.total).toBe(before);

    const dup = await call(server, api.alarm.ruleCreate, {
      token: root,
      body: { ...base, name: 'login-failures' },
    });
    expect(dup.code).toBe(Code.CONFLICT);

    // An update that would break the combination leaves the rule as it was.
    const made = await call(server, api.alarm.ruleCreate, {
      token: root,
      body: { ...base, name: 'severe', action: 'cert.ca.', min_severity: 'ERROR' },
    });
    expect(made.code, made.msg).toBe(0);
    expect(made.data).toMatchObject({ action: 'cert.ca.', min_severity: 'ERROR' });
    const broken = await call(server, api.alarm.ruleUpdate, {
      token: root,
      body: { id: made.data.id, stream: 'client' },
    });
    expect(broken.code).toBe(Code.INVALID);
    expect(broken.msg).toMatch(/^min_severity/);
    const fixed = await call(server, api.alarm.ruleUpdate, {
      token: root,
      body: { id: made.data.id, stream: 'client', min_severity: null, result: 'deny', action: '' },
    });
    expect(fixed.code, fixed.msg).toBe(0);
    expect(fixed.data).toMatchObject({ stream: 'client', min_severity: null, result: 'deny', action: null });
    const removed = await call(server, api.alarm.ruleDelete, { token: root, body: { ids: [made.data.id] } });
    expect(removed.data).toEqual({ deleted: 1 });
    expect(new Set((await records('alarm.rule.update')).map((r) => r.target))).toEqual(new Set(['severe']));
  });

  it('counts client records through the client log store when it is there, and waits when it is not', async () => {
    const made = await call(server, api.alarm.ruleCreate, {
      token: branch,
      body: {
        name: 'denials',
        stream: 'client',
        result: 'deny',
        action: 'open',
        threshold: 5,
        interval_seconds: 60,
      },
    });
    expect(made.code, made.msg).toBe(0);
    // No client log store in this build: the rule does not raise, the round goes on.
    expect(await server.services.alarms.evaluate()).toBe(0);

    const asked: Parameters<ClientLogCounter['count']>[0][] = [];
    const service = createAlarmService({
      db: server.database.db,
      clock: () => server.clock.now,
      domainNames: async () => new Map([[branchId, 'branch']]),
      clientLogs: () => ({
        count: (query) => {
          asked.push(query);
          return Promise.resolve(query.limit);
        },
      }),
    });
    expect(await service.evaluate()).toBe(1);
    expect(asked).toEqual([
      {
        domainId: branchId,
        action: 'open',
        result: 'deny',
        since: new Date(server.clock.now.getTime() - 60_000).toISOString(),
        limit: 5,
      },
    ]);
    const raised = (await alarms(branch)).data.data.find((a) => a.rule_name === 'denials');
    expect(raised).toMatchObject({ stream: 'client', count: 5, domain_name: 'branch' });
  });
});
