import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, KEY_TOTAL_CAP, Usage, type AlgorithmId, type QueryOf } from '@ksp/contracts';
import { call, engines, type TestServer } from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';
import { storedKeyRow } from '../../test/key-row.js';

/**
 * The key list as a user pages through it: order, filters, pages and totals. The totals come
 * from a per-domain tally or a bounded count (migration 007); these tests see only what the
 * API answers.
 */
describe.each(await engines())('the key list on %s', (engine) => {
  let server: TestServer;
  let token: string;
  const ids = new Map<string, string>();
  let domainId: string;

  const usage = (alg: AlgorithmId) =>
    alg.startsWith('AES') ? Usage.Encrypt | Usage.Decrypt : Usage.Sign | Usage.Verify;
  async function create(name: string, algorithm: AlgorithmId) {
    const r = await call(server, api.key.create, {
      token,
      body: { name, algorithm, usage_mask: usage(algorithm) },
    });
    if (r.code !== 0) throw new Error(`${name}: ${r.msg}`);
    ids.set(name, r.data.id);
  }
  const list = async (query: Partial<QueryOf<typeof api.key.list>>) => {
    const r = await call(server, api.key.list, { token, query: { page: 1, page_size: 100, ...query } });
    if (r.code !== 0) throw new Error(r.msg);
    return r.data;
  };
  const names = (page: { data: { name: string }[] }) => page.data.map((r) => r.name);

  /** A key as a restore or another node would write it: straight into the table, not yet active. */
  const restored = (name: string, at: string, algorithm: AlgorithmId = 'AES-256') =>
    storedKeyRow({
      id: `00000000-0000-7000-8000-${createHash('sha256').update(name).digest('hex').slice(0, 12)}`,
      domain_id: domainId,
      name,
      algorithm,
      object_type: 'symmetric',
      usage_mask: Usage.Encrypt,
      state: 'pre-active',
      owner_id: null,
      owner_name: 'restore',
      created_at: at,
    });

  signedInServer(engine, (started) => ({ server, token } = started));
  beforeAll(async () => {
    // Oldest first; keys created in the same instant are listed by name.
    for (const [name, alg] of [
      ['app-1', 'AES-256'],
      ['app-10', 'AES-256'],
      ['my-app-1', 'AES-256'],
      ['app-2', 'AES-128'],
      ['a_b', 'AES-256'],
      ['axb', 'AES-256'],
      ['sig', 'EC-P256'],
    ] as const) {
      server.clock.advance(1);
      await create(name, alg);
    }
    server.clock.advance(1);
    await create('tie-b', 'AES-256');
    await create('tie-a', 'AES-256');
    domainId = (
      await server.database.db
        .selectFrom('kms_key')
        .select('domain_id')
        .where('id', '=', ids.get('app-1')!)
        .executeTakeFirstOrThrow()
    ).domain_id;
  });

  it('lists newest first, then by name, and pages through that order', async () => {
    const all = await list({});
    // A pair's halves are created together: `sig`, then `sig.pub` by name.
    expect(names(all)).toEqual([
      'tie-a',
      'tie-b',
      'sig',
      'sig.pub',
      'axb',
      'a_b',
      'app-2',
      'my-app-1',
      'app-10',
      'app-1',
    ]);
    expect(all.total).toBe(all.data.length);
    expect(all.total_capped).toBe(false);

    const pages = [];
    for (let page = 1; page <= Math.ceil(all.total / 3); page++) {
      const p = await list({ page, page_size: 3 });
      expect(p.total).toBe(all.total);
      pages.push(...names(p));
    }
    expect(pages).toEqual(names(all));
    const past = await list({ page: 99, page_size: 3 });
    expect(past).toMatchObject({ data: [], total: all.total });
    // Rows carry their current version's check value, as the detail does.
    const detail = await call(server, api.key.detail, { token, query: { id: ids.get('app-1')! } });
    expect(all.data.find((r) => r.name === 'app-1')).toEqual({ ...detail.data, belongs_to: null });
  });

  it('filters by name contained, name prefix, algorithm, state and usage, with exact totals', async () => {
    expect(names(await list({ name: 'app-1' }))).toEqual(['my-app-1', 'app-10', 'app-1']);
    expect(names(await list({ name_prefix: 'app-1' }))).toEqual(['app-10', 'app-1']);
    expect(names(await list({ name_prefix: 'app-' }))).toEqual(['app-2', 'app-10', 'app-1']);
    expect(await list({ name_prefix: 'app-', page: 2, page_size: 1 })).toMatchObject({
      total: 3,
      data: [{ name: 'app-10' }],
    });
    expect((await list({ name_prefix: 'App-' })).total).toBe(0);
    // `_` is a character like any other, not a wildcard.
    expect(names(await list({ name: 'a_b' }))).toEqual(['a_b']);
    expect(names(await list({ name_prefix: 'a_' }))).toEqual(['a_b']);

    const aes128 = await list({ algorithm: 'AES-128' });
    expect(aes128).toMatchObject({ total: 1, total_capped: false });
    expect(names(aes128)).toEqual(['app-2']);
    const filtered = await list({
      algorithm: 'AES-256',
      state: 'in-use',
      name_prefix: 'app-1',
      page_size: 1,
    });
    expect(filtered.total).toBe(2);
    expect(names(filtered)).toEqual(['app-10']);
    expect((await list({ usage: 'sign' })).data.every((r) => r.usages.includes('sign'))).toBe(true);
    expect((await list({ usage: 'encrypt' })).total).toBe(8);
    expect((await list({ type: 'symmetric' })).total).toBe(8);
  });

  it('keeps totals right as keys change state and are deleted', async () => {
    const before = (await list({})).total;
    const inUse = (await list({ state: 'in-use' })).total;
    await call(server, api.key.disable, { token, body: { id: ids.get('app-2')! } });
    expect((await list({ state: 'in-use' })).total).toBe(inUse - 1);
    expect(await list({ state: 'disabled' })).toMatchObject({ total: 1, data: [{ name: 'app-2' }] });
    expect((await list({})).total).toBe(before);
    await call(server, api.key.recover, { token, body: { id: ids.get('app-2')! } });
    expect((await list({ state: 'in-use' })).total).toBe(inUse);
    expect((await list({ state: 'disabled' })).total).toBe(0);
    await call(server, api.key.disable, { token, body: { id: ids.get('app-2')! } });
    await call(server, api.key.destroy, { token, body: { id: ids.get('app-2')! } });
    expect((await list({})).total).toBe(before - 1);
    expect(await list({ state: 'destroyed' })).toMatchObject({ total: 1, data: [{ name: 'app-2' }] });
    await call(server, api.key.delete, { token, body: { ids: [ids.get('app-2')!, ids.get('axb')!] } });
    expect((await list({ state: 'destroyed' })).total).toBe(0);
    expect((await list({})).total).toBe(before - 2);
    expect((await list({ algorithm: 'AES-128' })).total).toBe(0);
  });

  it('pages across months of keys, with and without filters', async () => {
    // Keys of earlier months, one page boundary falling inside a month and one between months.
    const months = ['2021-01', '2021-01', '2021-01', '2021-03', '2021-04', '2021-04', '2021-12', '2022-01'];
    const rows = months.map((month, n) =>
      restored(
        `month-${n}`,
        `${month}-${String(10 + (n % 3)).padStart(2, '0')}T00:00:00.000Z`,
        n % 2 ? 'AES-128' : 'AES-256',
      ),
    );
    await server.database.db.insertInto('kms_key').values(rows).execute();
    for (const filter of [{}, { algorithm: 'AES-256' as const }, { state: 'inactive' as const }]) {
      const all = await list(filter);
      for (const size of [1, 2, 3, 5]) {
        const pages = [];
        for (let page = 1; page <= Math.ceil(all.total / size) + 1; page++) {
          const p = await list({ ...filter, page, page_size: size });
          expect(p.total).toBe(all.total);
          pages.push(...names(p));
        }
        expect(pages).toEqual(names(all));
      }
    }
    expect(names(await list({ state: 'inactive' }))).toEqual([
      'month-7',
      'month-6',
      'month-5',
      'month-4',
      'month-3',
      'month-2',
      'month-1',
      'month-0',
    ]);
    await server.database.db.deleteFrom('kms_key').where('name', 'like', 'month-%').execute();
  });

  it('counts name matches up to the cap, and says so; the total of the domain stays exact', async () => {
    const before = (await list({})).total;
    const at = new Date('2020-01-01T00:00:00.000Z').toISOString();
    const rows = Array.from({ length: KEY_TOTAL_CAP + 1 }, (_, n) => restored(`bulk-${n}`, at));
    for (let i = 0; i < rows.length; i += 500)
      await server.database.db
        .insertInto('kms_key')
        .values(rows.slice(i, i + 500))
        .execute();

    expect(await list({ page_size: 1 })).toMatchObject({
      total: before + KEY_TOTAL_CAP + 1,
      total_capped: false,
    });
    expect(await list({ name_prefix: 'bulk-', page_size: 1 })).toMatchObject({
      total: KEY_TOTAL_CAP,
      total_capped: true,
    });
    expect(await list({ name: 'ulk-', page_size: 1 })).toMatchObject({
      total: KEY_TOTAL_CAP,
      total_capped: true,
    });
    expect(await list({ name_prefix: 'bulk-1000', page_size: 1 })).toMatchObject({
      total: 2,
      total_capped: false,
    });
    // The last page of the domain holds its oldest keys, in name order.
    const last = await list({ page: Math.ceil((before + KEY_TOTAL_CAP + 1) / 20), page_size: 20 });
    const tail = rows
      .map((r) => r.name)
      .sort()
      .slice(-last.data.length);
    expect(names(last)).toEqual(tail);
  });
});
