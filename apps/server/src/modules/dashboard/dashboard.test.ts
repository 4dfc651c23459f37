import { beforeAll, describe, expect, it } from 'vitest';
import { api, PRODUCT_VERSION, type DataOf } from '@ksp/contracts';
import {
  call,
  encodeUsername,
  engines,
  hashForLogin,
  domainWithAdmin,
  type TestServer,
} from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';

type Summary = DataOf<typeof api.dashboard.summary>;
const PASSWORD = 'Dash-Pass-1';
const DAY_MS = 86_400_000;

const stateCount = (s: Summary, state: string) => s.keys.by_state.find((e) => e.state === state)!.count;
const familyCount = (s: Summary, family: string) => s.keys.by_family.find((e) => e.family === family)!.count;

describe.each(await engines())('the dashboard on %s', (engine) => {
  let server: TestServer;
  let root: string;
  let branch: string;

  const summary = async (token: string) => {
    const res = await call(server, api.dashboard.summary, { token });
    expect(res.code, res.msg).toBe(0);
    return res.data;
  };
  const operations = async (token: string, range: '24h' | '7d' = '24h') => {
    const res = await call(server, api.dashboard.operations, { token, query: { range } });
    expect(res.code, res.msg).toBe(0);
    return res.data;
  };
  const newKey = async (token: string, body: Record<string, unknown>) => {
    const res = await call(server, api.key.create, { token, body: body as never });
    expect(res.code, res.msg).toBe(0);
    return res.data;
  };

  signedInServer(engine, (started) => ({ server, token: root } = started), {
    env: { KSP_NODE_NAME: 'dash-node-1' },
  });
  beforeAll(async () => {
    ({ token: branch } = await domainWithAdmin(server, root, {
      domain: 'branch',
      username: 'b-admin',
      password: PASSWORD,
    }));
  });

  it('counts keys by state and by family (PQC and SM apart), and those due for rotation', async () => {
    const before = await summary(root);
    await newKey(root, { name: 'dash-aes', algorithm: 'AES-256', usage_mask: 12 });
    await newKey(root, { name: 'dash-sm4', algorithm: 'SM4', usage_mask: 12 });
    // A pair: the private key and its public half are two keys of the list.
    await newKey(root, { name: 'dash-mldsa', algorithm: 'ML-DSA-44', usage_mask: 1 });
    const soon = new Date(server.clock.now.getTime() + 10 * DAY_MS).toISOString();
    const expiring = await newKey(root, {
      name: 'dash-rotate',
      algorithm: 'AES-128',
      usage_mask: 12,
      deactivation_date: soon,
    });
    const after = await summary(root);
    expect(after.keys.total).toBe(before.keys.total + 5);
    expect(stateCount(after, 'in-use')).toBe(stateCount(before, 'in-use') + 5);
    expect(familyCount(after, 'symmetric')).toBe(familyCount(before, 'symmetric') + 2);
    expect(familyCount(after, 'SM')).toBe(familyCount(before, 'SM') + 1);
    expect(familyCount(after, 'PQC')).toBe(familyCount(before, 'PQC') + 2);
    expect(after.keys.by_algorithm.find((a) => a.algorithm === 'ML-DSA-44')).toMatchObject({
      family: 'PQC',
      count: 2,
    });
    expect(after.keys.rotation).toEqual({
      overdue: before.keys.rotation.overdue,
      due: before.keys.rotation.due + 1,
    });

    // Its protect period ends: the key is overdue for rotation while it stays in use.
    const past = new Date(server.clock.now.getTime() - DAY_MS).toISOString();
    await server.database.db
      .updateTable('kms_key')
      .set({ deactivation_date: past })
      .where('id', '=', expiring.id)
      .execute();
    expect((await summary(root)).keys.rotation).toEqual({
      overdue: before.keys.rotation.overdue + 1,
      due: before.keys.rotation.due,
    });

    // Disabled keys move state and stop being due.
    const disabled = await call(server, api.key.disable, { token: root, body: { id: expiring.id } });
    expect(disabled.code, disabled.msg).toBe(0);
    const revoked = await summary(root);
    expect(stateCount(revoked, 'disabled')).toBe(stateCount(before, 'disabled') + 1);
    expect(revoked.keys.rotation.overdue).toBe(before.keys.rotation.overdue);
  });

  it('shows a domain administrator only its own domain’s keys and operations', async () => {
    const mine = await summary(branch);
    expect(mine.keys.total).toBe(0);
    // The licence is the installation's: a domain administrator does not see its global key count.
    expect(mine.license).toBeNull();
    expect(mine.hsm).toBeNull();
    expect((await operations(branch)).total).toBe(0);
    const key = await newKey(branch, { name: 'branch-key', algorithm: 'AES-256', usage_mask: 12 });
    const enc = await call(server, api.crypto.encrypt, {
      token: branch,
      body: { key_id: key.id, plaintext: Buffer.from('x').toString('base64') },
    });
    expect(enc.code, enc.msg).toBe(0);
    const now = await summary(branch);
    expect(now.keys.total).toBe(1);
    expect(familyCount(now, 'symmetric')).toBe(1);
    const ops = await operations(branch);
    expect(ops.totals).toMatchObject({ encrypt: 1, keygen: 1, decrypt: 0 });
    expect(JSON.stringify(now)).not.toContain('dash-aes');
    // The system view (root) counts every domain's.
    expect((await summary(root)).keys.total).toBeGreaterThan(now.keys.total);
    expect((await operations(root)).totals.encrypt).toBeGreaterThanOrEqual(1);
  });

  it('counts operations per class at once, and the same after the counters are flushed', async () => {
    const key = await newKey(root, { name: 'ops-aes', algorithm: 'AES-256', usage_mask: 12 });
    const before = await operations(root);
    const plaintext = Buffer.from('hello').toString('base64');
    const c1 = await call(server, api.crypto.encrypt, { token: root, body: { key_id: key.id, plaintext } });
    await call(server, api.crypto.encrypt, { token: root, body: { key_id: key.id, plaintext } });
    await call(server, api.crypto.decrypt, { token: root, body: { ciphertext: c1.data.ciphertext } });
    // A refused operation is not counted.
    const refused = await call(server, api.crypto.encrypt, {
      token: root,
      body: { key_id: '00000000-0000-7000-8000-000000000000', plaintext },
    });
    expect(refused.code).not.toBe(0);

    const fresh = await operations(root);
    expect(fresh.totals.encrypt).toBe(before.totals.encrypt + 2);
    expect(fresh.totals.decrypt).toBe(before.totals.decrypt + 1);
    expect(fresh.total).toBe(before.total + 3);
    expect(fresh.points).toHaveLength(288);
    expect(fresh.bucket_seconds).toBe(300);
    expect(fresh.points.at(-1)!.counts.encrypt).toBeGreaterThanOrEqual(2);

    await server.services.opCounter.flush();
    const rows = await server.database.db.selectFrom('op_counter').selectAll().execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.node === 'dash-node-1')).toBe(true);
    // Read back from the table: neither lost nor counted twice.
    expect((await operations(root)).totals).toEqual(fresh.totals);
    // Further counts add to the rows already written.
    await call(server, api.crypto.encrypt, { token: root, body: { key_id: key.id, plaintext } });
    await server.services.opCounter.flush();
    expect((await operations(root)).totals.encrypt).toBe(fresh.totals.encrypt + 1);

    const week = await operations(root, '7d');
    expect(week.points).toHaveLength(168);
    expect(week.bucket_seconds).toBe(3600);
    expect(week.totals.encrypt).toBe(fresh.totals.encrypt + 1);
  });

  it('drops counter buckets older than eight days', async () => {
    const minute = Math.floor(server.clock.now.getTime() / 60_000);
    const domainId = 'old-domain';
    await server.database.db
      .insertInto('op_counter')
      .values([
        { minute: minute - 9 * 24 * 60, domain_id: domainId, class: 'encrypt', node: 'n', count: 5 },
        { minute: minute - 6 * 24 * 60, domain_id: domainId, class: 'encrypt', node: 'n', count: 7 },
      ])
      .execute();
    await server.services.opCounter.prune();
    const left = await server.database.db
      .selectFrom('op_counter')
      .select('count')
      .where('domain_id', '=', domainId)
      .execute();
    expect(left.map((r) => Number(r.count))).toEqual([7]);
  });

  it('counts certificates expiring within 30, 60 and 90 days', async () => {
    const before = (await summary(root)).certificates;
    const ca = await call(server, api.cert.caCreate, {
      token: root,
      body: { name: 'Dash', cn: 'Dash CA', o: 'KSP Test', c: 'CN', algorithm: 'EC-P256' },
    });
    expect(ca.code, ca.msg).toBe(0);
    const signed = await call(server, api.cert.caSelfSign, {
      token: root,
      body: { id: ca.data.id, validity_days: 3650 },
    });
    expect(signed.code, signed.msg).toBe(0);
    for (const days of [20, 50, 80]) {
      const issued = await call(server, api.cert.issue, {
        token: root,
        body: {
          name: `dash-${days}`,
          ca_id: ca.data.id,
          cn: `d${days}.example.test`,
          purpose: 'client',
          key_algorithm: 'EC-P256',
          validity_days: days,
        },
      });
      expect(issued.code, issued.msg).toBe(0);
    }
    const after = (await summary(root)).certificates;
    expect(after.valid).toBe(before.valid + 3);
    expect(after.expiring).toBe(before.expiring + 1);
    expect(after.expiring_60).toBe(before.expiring_60 + 2);
    expect(after.expiring_90).toBe(before.expiring_90 + 3);
  });

  it('counts failed sign-ins of the last 24 hours, in a domain those of its members', async () => {
    const rootBefore = (await summary(root)).failed_logins_24h;
    const branchBefore = (await summary(branch)).failed_logins_24h;
    const refuse = async (username: string) => {
      const res = await call(server, api.user.login, {
        body: { username: encodeUsername(username), password: await hashForLogin('Wrong-Pass-9') },
      });
      expect(res.code).not.toBe(0);
    };
    await refuse('b-admin');
    await refuse('admin');
    expect((await summary(root)).failed_logins_24h).toBe(rootBefore + 2);
    expect((await summary(branch)).failed_logins_24h).toBe(branchBefore + 1);
  });

  it('lists the nodes, up while they report, with version and uptime; later areas are null, the root of trust the seal file', async () => {
    const seen = new Date(server.clock.now.getTime() - 10 * 60_000).toISOString();
    await server.database.db
      .insertInto('cluster_node')
      .values({ name: 'dash-node-0', version: '1.8.0', started_at: seen, last_seen: seen })
      .execute();
    const s = await summary(root);
    expect(s.nodes.map((n) => [n.name, n.up])).toEqual([
      ['dash-node-1', true],
      ['dash-node-0', false],
    ]);
    expect(s.nodes[0]).toMatchObject({ version: PRODUCT_VERSION });
    expect(s.clients).toEqual({ healthy: 0, warning: 0, error: 0, revoked: 0 });
    expect(s.quantum).toEqual({ status: 'disabled', node: 'dash-node-1' });
    expect(s).toMatchObject({ last_backup: null, hsm: { root_provider: 'seal-file', token_label: null } });
    expect(s.license).toMatchObject({ state: 'community', keys_total: 1000, days_left: null });
    expect(s.license?.keys_used).toBeGreaterThan(0);
    // The report job moves this node's last report on.
    server.clock.advance(30);
    await server.services.clusterNodes.report();
    const again = await summary(root);
    expect(again.nodes[0]!.last_seen).toBe(server.clock.now.toISOString());
  });
});
