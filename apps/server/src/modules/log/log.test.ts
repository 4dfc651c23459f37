import { get } from 'node:http';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, Code, Usage } from '@ksp/contracts';
import {
  call,
  callUnchecked,
  encodeUsername,
  engines,
  hashForLogin,
  type TestServer,
} from '../../test/harness.js';
import { signedInWithBranch } from '../../test/fixtures.js';
import { auditRow } from '../../platform/audit.js';
import { CSV_COLUMNS, csvCell } from './log.service.js';

/** A minimal RFC 4180 reader for the checks (quoted cells, doubled quotes, CRLF rows). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  return rows;
}

describe('CSV cells', () => {
  it('quote separators and neutralize spreadsheet formulas', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"\nnow')).toBe('"say ""hi""\nnow"');
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('-1+2')).toBe("'-1+2");
    expect(csvCell(null)).toBe('');
    expect(csvCell({ a: 1 })).toBe('"{""a"":1}"');
  });
});

describe.each(await engines())('server records (the log page) on %s', (engine) => {
  let server: TestServer;
  let root: string;
  let branchAdmin: string;

  signedInWithBranch(engine, (started) => {
    ({ server, token: root } = started);
    branchAdmin = started.branch.token;
  });
  beforeAll(async () => {
    for (const [token, name] of [
      [root, 'root-secret-key'],
      [branchAdmin, 'branch-key'],
    ] as const) {
      const key = await call(server, api.key.create, {
        token,
        body: { name, algorithm: 'AES-256', usage_mask: Usage.Encrypt | Usage.Decrypt },
      });
      expect(key.code, key.msg).toBe(0);
    }
    // A refusal: the branch administrator tries a system-scope call.
    expect((await call(server, api.passwordPolicy.get, { token: branchAdmin })).code).toBe(Code.FORBIDDEN);
    // Failed sign-ins, one under a name a spreadsheet would run as a formula.
    for (const username of [encodeUsername('branch-admin'), '=cmd|calc'])
      await call(server, api.user.login, {
        body: { username, password: await hashForLogin('wrong-Pass-9') },
      });
  });

  const list = (token: string, query: Record<string, string | number> = {}) =>
    callUnchecked(server, api.log.list, { token, query: { page: 1, page_size: 100, ...query } });

  it('lists records newest first with severity, source and details, and filters them', async () => {
    const all = await list(root);
    expect(all.code, all.msg).toBe(0);
    expect(all.data.total_exact).toBe(true);
    const times = all.data.data.map((r) => r.at);
    expect([...times].sort().reverse()).toEqual(times);
    const created = all.data.data.find((r) => r.action === 'key.create' && r.target === 'root-secret-key');
    expect(created).toMatchObject({ result: 'success', severity: 'INFO', source: 'web', username: 'admin' });
    expect(typeof created?.details).toBe('object');

    const keys = await list(root, { action: 'key.create' });
    expect(keys.data.data.map((r) => r.target).sort()).toEqual(['branch-key', 'root-secret-key']);
    const area = await list(root, { action: 'key.' });
    expect(area.data.total).toBeGreaterThanOrEqual(keys.data.total);
    expect(area.data.data.every((r) => r.action.startsWith('key.'))).toBe(true);

    const failures = await list(root, { result: 'failure' });
    expect(failures.data.total).toBeGreaterThanOrEqual(2);
    expect(failures.data.data.every((r) => r.result === 'failure' && r.severity === 'WARNING')).toBe(true);
    expect((await list(root, { severity: 'WARNING' })).data.total).toBe(failures.data.total);

    const byUser = await list(root, { username: 'branch-admin' });
    expect(byUser.data.data.length).toBeGreaterThan(0);
    expect(byUser.data.data.every((r) => r.username === 'branch-admin')).toBe(true);
    expect((await list(root, { q: 'root-secret' })).data.data.map((r) => r.target)).toContain(
      'root-secret-key',
    );
    expect((await list(root, { ip: created!.ip })).data.total).toBeGreaterThan(0);
    expect((await list(root, { ip: '203.0.113.9' })).data.total).toBe(0);

    // Time range: [from, to). The records are stamped by the server's clock.
    const at = created!.at;
    const around = await list(root, { from: at, to: new Date(Date.parse(at) + 1000).toISOString() });
    expect(around.data.data.map((r) => r.id)).toContain(created!.id);
    expect((await list(root, { to: at })).data.data.map((r) => r.id)).not.toContain(created!.id);

    const paged = await list(root, { page: 2, page_size: 2 });
    expect(paged.data.data).toEqual(all.data.data.slice(2, 4));
    expect(paged.data.total).toBe(all.data.total);

    // By position: page after page through next_cursor gives the same records as by number.
    const first = await list(root, { page_size: 2 });
    const next = await list(root, { page_size: 2, after: first.data.next_cursor! });
    expect(next.data.data).toEqual(all.data.data.slice(2, 4));
    const failuresPage = await list(root, { page_size: 1, result: 'failure' });
    const secondFailure = await list(root, {
      page_size: 1,
      result: 'failure',
      after: failuresPage.data.next_cursor!,
    });
    expect(secondFailure.data.data).toEqual(failures.data.data.slice(1, 2));
    // The last page has no cursor.
    expect((await list(root)).data.next_cursor).toBeNull();

    const detail = await call(server, api.log.detail, { token: root, query: { id: created!.id } });
    expect(detail.data).toEqual(created);
  });

  it('refuses bad filters with the field named', async () => {
    const bad = await list(root, { from: 'yesterday' });
    expect(bad.code).toBe(Code.INVALID);
    expect(bad.msg).toMatch(/^from/);
    expect((await list(root, { severity: 'LOUD' })).msg).toMatch(/^severity/);
    expect((await list(root, { page_size: 5000 })).msg).toMatch(/^page_size/);
    expect((await list(root, { after: 'not a cursor!' })).msg).toMatch(/^after/);
    const forged = await list(root, { after: Buffer.from("x' or 1=1|y").toString('base64url') });
    expect(forged.code).toBe(Code.INVALID);
    expect(forged.msg).toMatch(/^after/);
    // Pages by number reach the first 100,000 records; the last such page still answers, and
    // with a position any page number goes.
    const tooDeep = await list(root, { page: 1001, page_size: 100 });
    expect(tooDeep.code).toBe(Code.INVALID);
    expect(tooDeep.msg).toMatch(/^page: .*100,000.*next_cursor/);
    expect((await list(root, { page: 1000, page_size: 100 })).code).toBe(0);
    const cursor = (await list(root, { page_size: 1 })).data.next_cursor!;
    expect((await list(root, { page: 1001, page_size: 100, after: cursor })).code).toBe(0);
  });

  it("shows a domain's administrator its own domain's records only", async () => {
    const mine = await list(branchAdmin);
    expect(mine.code, mine.msg).toBe(0);
    const text = JSON.stringify(mine.data);
    expect(text).toContain('branch-key');
    expect(text).not.toContain('root-secret-key');
    expect(mine.data.data.every((r) => r.domain_name === 'branch')).toBe(true);
    const rootRecord = (await list(root, { q: 'root-secret-key' })).data.data[0]!;
    const hidden = await call(server, api.log.detail, { token: branchAdmin, query: { id: rootRecord.id } });
    expect(hidden.code).toBe(Code.NOT_FOUND);
    expect(hidden.msg).not.toContain('root-secret');
    const exported = await call(server, api.log.export, { token: branchAdmin, query: { format: 'json' } });
    expect(String(exported.data)).not.toContain('root-secret-key');
  });

  it('exports the filtered records as CSV and JSON, streamed, with a timestamped file name', async () => {
    const selected = await list(root, { action: 'user.' });
    const csv = await call(server, api.log.export, {
      token: root,
      query: { format: 'csv', action: 'user.' },
    });
    expect(csv.status).toBe(200);
    expect(String(csv.headers['content-type'])).toMatch(/^text\/csv/);
    expect(String(csv.headers['content-disposition'])).toMatch(
      /^attachment; filename="ksp-log-\d{8}-\d{6}Z\.csv"$/,
    );
    const rows = parseCsv(String(csv.data));
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    expect(rows).toHaveLength(selected.data.total + 1);
    const injected = rows.find((r) => r[3]?.includes('cmd|calc'));
    expect(injected?.[3]).toBe("'=cmd|calc");
    expect(rows.slice(1).map((r) => r[12])).toEqual(selected.data.data.map((r) => r.id));

    const json = await call(server, api.log.export, {
      token: root,
      query: { format: 'json', result: 'failure' },
    });
    expect(String(json.headers['content-type'])).toMatch(/^application\/json/);
    const records = JSON.parse(String(json.data)) as { result: string }[];
    expect(records.length).toBe((await list(root, { result: 'failure' })).data.total);
    expect(records.every((r) => r.result === 'failure')).toBe(true);

    // Exports are audited, and more records than one read chunk stream in order.
    const exports = await list(root, { action: 'log.export' });
    expect(exports.data.data[0]).toMatchObject({ username: 'admin', result: 'success' });
    const everything = JSON.parse(
      String((await call(server, api.log.export, { token: root, query: { format: 'json' } })).data),
    ) as { id: string }[];
    expect(everything.length).toBe((await list(root)).data.total);
  });

  it('exports records of any content byte for byte as the server writes them, whatever writes the file', async () => {
    expect(Boolean(server.database.copyOut)).toBe(engine === 'postgres');
    // PostgreSQL writes exports itself (COPY); the file must be the one the server's own writer
    // makes: quoting, doubled quotes, the formula guard, control characters, JSON escapes.
    const hostile = [
      '=SUM(A1)',
      '-2',
      '+1',
      '@home',
      '\ttab first',
      '\rcr first',
      'a,b',
      'say "hi"',
      'line1\nline2',
      'crlf\r\nafter',
      '\x01\x02 quoted \x02\x02 twice',
      "back\\slash \\x02 E'q' $1 %_",
      '中文 ✓ 😀',
      '',
    ];
    const base = Date.parse('2026-01-01T00:00:00.000Z');
    const rows = hostile.map((text, i) => ({
      ...auditRow(
        {
          who: null,
          action: 'test.hostile',
          target: text,
          result: i % 2 ? 'failure' : 'success',
          ip: i % 3 ? '10.0.0.1' : '',
          objectId: i % 2 ? `obj-${i}` : null,
        },
        new Date(base + i * 1000),
      ),
      username: text,
      details: JSON.stringify({ text, n: i, nested: { list: [text, null, true, 1.5] } }),
    }));
    await server.database.db.insertInto('audit_log').values(rows).execute();
    const newestFirst = [...rows].reverse();
    const viewOf = (r: (typeof rows)[number]) => ({
      id: r.id,
      at: r.at,
      severity: r.severity,
      action: r.action,
      target: r.target,
      result: r.result,
      username: r.username,
      domain_name: r.domain_name,
      source: r.source,
      ip: r.source_ip,
      count: r.count,
      object_id: r.object_id,
      details: JSON.parse(r.details) as unknown,
    });
    const csvOf = (selected: typeof rows) =>
      `${CSV_COLUMNS.join(',')}\r\n` +
      selected
        .map((r) => {
          const v = viewOf(r) as Record<string, unknown>;
          return `${CSV_COLUMNS.map((c) => csvCell(v[c])).join(',')}\r\n`;
        })
        .join('');
    const jsonOf = (selected: typeof rows) =>
      `[${selected.map((r, i) => `${i ? ',\n' : '\n'}${JSON.stringify(viewOf(r))}`).join('')}\n]\n`;
    const exported = async (format: 'csv' | 'json', query: Record<string, string>) => {
      const answer = await call(server, api.log.export, { token: root, query: { format, ...query } });
      expect(answer.status).toBe(200);
      return String(answer.data);
    };

    expect(await exported('csv', { action: 'test.hostile' })).toBe(csvOf(newestFirst));
    expect(await exported('json', { action: 'test.hostile' })).toBe(jsonOf(newestFirst));
    // Filter values holding quotes, backslashes and "$1" select by their text, nothing more.
    const tricky = newestFirst.filter((r) => r.target.includes("E'q' $1"));
    expect(tricky).toHaveLength(1);
    expect(await exported('csv', { action: 'test.hostile', q: "\\x02 E'q' $1 %_" })).toBe(csvOf(tricky));
    expect(await exported('json', { action: 'test.hostile', q: "E'q' $1" })).toBe(jsonOf(tricky));
    expect(await exported('json', { action: 'test.hostile', q: "' or 1=1 --" })).toBe('[\n]\n');
    expect(await exported('csv', { action: 'test.nothing' })).toBe(`${CSV_COLUMNS.join(',')}\r\n`);
  });

  it('seals records into per-domain chains that verify, and names the first broken link after tampering', async () => {
    // Sealers called together (the seal job and the syslog job) give each record one place.
    const sealed = (await Promise.all([1, 2, 3].map(() => server.services.logs.seal()))).reduce(
      (a, b) => a + b,
    );
    expect(sealed).toBeGreaterThan(0);
    const places = await server.database.db
      .selectFrom('audit_log')
      .select(['domain_id', 'chain_seq'])
      .where('chain_seq', 'is not', null)
      .execute();
    // (The seal job may have sealed some meanwhile on a slow machine: never fewer places.)
    expect(places.length).toBeGreaterThanOrEqual(sealed);
    expect(new Set(places.map((p) => `${p.domain_id}:${Number(p.chain_seq)}`)).size).toBe(places.length);
    const clean = await call(server, api.log.verify, { token: root });
    expect(clean.code, clean.msg).toBe(0);
    expect(clean.data.ok).toBe(true);
    const names = clean.data.chains.map((c) => c.domain).sort();
    expect(names).toEqual(['', 'branch', 'root']);
    expect(clean.data.chains.every((c) => c.records > 0 && c.broken === null)).toBe(true);
    // A domain's administrator checks its own chain only, and sees no other domain's name.
    const own = await call(server, api.log.verify, { token: branchAdmin });
    expect(own.data.chains.map((c) => c.domain)).toEqual(['branch']);

    const db = server.database.db;
    const rootChain = clean.data.chains.find((c) => c.domain === 'root')!;
    const victim = await db
      .selectFrom('audit_log')
      .selectAll()
      .where('target', '=', 'root-secret-key')
      .executeTakeFirstOrThrow();
    // 1. A changed record: its place is named.
    await db.updateTable('audit_log').set({ target: 'innocent-key' }).where('id', '=', victim.id).execute();
    const changed = await call(server, api.log.verify, { token: root });
    expect(changed.data.ok).toBe(false);
    const broken = changed.data.chains.find((c) => c.domain === 'root')!.broken;
    expect(broken).toEqual({
      seq: Number(victim.chain_seq),
      id: victim.id,
      at: victim.at,
      reason: 'changed',
    });
    expect(changed.data.chains.find((c) => c.domain === 'branch')?.ok).toBe(true);
    const alarm = await list(root, { action: 'log.verify', result: 'failure' });
    expect(alarm.data.data[0]).toMatchObject({ severity: 'CRITICAL' });
    await db.updateTable('audit_log').set({ target: victim.target }).where('id', '=', victim.id).execute();
    expect((await call(server, api.log.verify, { token: root })).data.ok).toBe(true);

    // 2. A removed record inside the chain: the gap is named.
    const middle = await db
      .selectFrom('audit_log')
      .selectAll()
      .where('domain_name', '=', 'root')
      .where('chain_seq', '=', 2)
      .executeTakeFirstOrThrow();
    await db.deleteFrom('audit_log').where('id', '=', middle.id).execute();
    const gap = (await call(server, api.log.verify, { token: root })).data.chains.find(
      (c) => c.domain === 'root',
    )!;
    expect(gap.broken).toMatchObject({ seq: 2, reason: 'missing' });
    await db.insertInto('audit_log').values(middle).execute();

    // 3. A cut tail: the last sealed records of the chain are gone.
    const last = await db
      .selectFrom('audit_log')
      .selectAll()
      .where('domain_id', 'is not', null)
      .where('chain_seq', '=', rootChain.last_seq)
      .where('domain_name', '=', 'root')
      .executeTakeFirstOrThrow();
    await db.deleteFrom('audit_log').where('id', '=', last.id).execute();
    const cut = (await call(server, api.log.verify, { token: root })).data.chains.find(
      (c) => c.domain === 'root',
    )!;
    expect(cut.broken).toMatchObject({ seq: rootChain.last_seq, reason: 'cut' });
    await db.insertInto('audit_log').values(last).execute();

    // 4. A record forged with a recomputed plain hash (no key) does not check either.
    await db
      .updateTable('audit_log')
      .set({ chain_mac: 'f'.repeat(64) })
      .where('id', '=', victim.id)
      .execute();
    expect((await call(server, api.log.verify, { token: root })).data.ok).toBe(false);
    await db
      .updateTable('audit_log')
      .set({ chain_mac: victim.chain_mac })
      .where('id', '=', victim.id)
      .execute();
    const restored = await call(server, api.log.verify, { token: root });
    expect(restored.data.ok).toBe(true);
  });

  it('seals a backlog larger than one statement in two chains, each record one place, and it verifies', async () => {
    await server.services.logs.seal();
    const branch = await server.database.db
      .selectFrom('domain')
      .select(['id', 'name'])
      .where('name', '=', 'branch')
      .executeTakeFirstOrThrow();
    // 2,600 records written at once (more than a sealing transaction and a statement take),
    // alternately the server's own and the branch domain's.
    const at = new Date();
    const rows = Array.from({ length: 2600 }, (_, i) => ({
      ...auditRow(
        { who: null, action: 'test.backlog', target: `backlog-${i}`, result: 'success', ip: '' },
        at,
      ),
      ...(i % 2 ? { domain_id: branch.id, domain_name: branch.name } : {}),
    }));
    for (let i = 0; i < rows.length; i += 500)
      await server.database.db
        .insertInto('audit_log')
        .values(rows.slice(i, i + 500))
        .execute();
    // The log.seal job (every 5 s) may take part of the backlog first; sealing is one at a time,
    // so once this call returns every record has its place, whoever sealed it.
    await server.services.logs.seal();
    const placed = await server.database.db
      .selectFrom('audit_log')
      .select(['domain_id', 'chain_seq', 'chain_mac'])
      .where('action', '=', 'test.backlog')
      .execute();
    expect(placed).toHaveLength(2600);
    expect(placed.every((p) => p.chain_seq !== null && /^[0-9a-f]{64}$/.test(p.chain_mac ?? ''))).toBe(true);
    expect(new Set(placed.map((p) => `${p.domain_id}:${Number(p.chain_seq)}`)).size).toBe(2600);
    const verified = (await call(server, api.log.verify, { token: root })).data;
    expect(verified.ok, JSON.stringify(verified.chains)).toBe(true);
  });

  it('retention drops whole old prefixes and the rest still verifies from the anchor', async () => {
    await server.services.logs.seal();
    const before = (await call(server, api.log.verify, { token: root })).data;
    expect(before.ok).toBe(true);
    // Records are stamped when written: everything before t0 is older than a day once the
    // server's clock says t0 + 1 day.
    const t0 = new Date();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await call(server, api.key.create, {
      token: root,
      body: { name: 'after-retention', algorithm: 'AES-256', usage_mask: Usage.Encrypt | Usage.Decrypt },
    });
    await server.services.logs.seal();
    const clockBefore = server.clock.now;
    server.clock.now = new Date(t0.getTime() + 86_400_000);
    const removed = await server.services.logs.retain(1);
    expect(removed).toBeGreaterThan(0);
    server.clock.now = clockBefore;
    const after = (await call(server, api.log.verify, { token: root })).data;
    expect(after.ok, JSON.stringify(after.chains)).toBe(true);
    const rootAfter = after.chains.find((c) => c.domain === 'root')!;
    expect(rootAfter.first_seq).toBeGreaterThan(1);
    expect(rootAfter.records).toBeGreaterThan(0);
    const left = await list(root);
    expect(left.data.data.map((r) => r.target)).toContain('after-retention');
    expect(left.data.data.map((r) => r.target)).not.toContain('root-secret-key');
  });

  it('gives back what an export holds when its download breaks off, again and again', async () => {
    // Enough records that the file is still being written when the client goes away; sealed
    // elsewhere (a negative place), so the sealing job leaves them.
    const at = new Date('2025-06-01T00:00:00.000Z');
    // (40 MB: more than the socket buffers on the way take, so the COPY is still running.)
    for (let batch = 0; batch < 40; batch++) {
      const rows = Array.from({ length: 1000 }, (_, i) => ({
        ...auditRow(
          { who: null, action: 'test.bulk', target: `bulk-${batch}-${i}`, result: 'success', ip: '10.0.0.9' },
          at,
        ),
        details: JSON.stringify({ filler: 'x'.repeat(1000) }),
        chain_seq: -(batch * 1000 + i + 1),
      }));
      await server.database.db.insertInto('audit_log').values(rows).execute();
    }
    const base = await server.app.listen({ host: '127.0.0.1', port: 0 });
    // More broken downloads than the database pool has connections: a held one would stall.
    // (node:http: its destroy closes the socket at once, as a browser's cancel does.)
    for (let n = 0; n < 12; n++) {
      const url = `${base}${api.log.export.path}?format=${n % 2 ? 'json' : 'csv'}&action=test.bulk`;
      const status = await new Promise<number | undefined>((resolve, reject) => {
        get(url, { headers: { token: root } }, (res) => {
          res.once('data', () => {
            res.destroy();
            resolve(res.statusCode);
          });
        }).on('error', reject);
      });
      expect(status).toBe(200);
    }
    const whole = await call(server, api.log.export, {
      token: root,
      query: { format: 'csv', action: 'test.bulk' },
    });
    expect(String(whole.data).split('\r\n')).toHaveLength(40_000 + 2);
    if (engine === 'postgres') {
      // No COPY is left running for the broken downloads.
      let copying = -1;
      for (let tries = 0; tries < 50 && copying !== 0; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const { rows } = await sql<{ n: string }>`select count(*) as n from pg_stat_activity
          where datname = current_database() and query like 'COPY%' and state = 'active'`.execute(
          server.database.db,
        );
        copying = Number(rows[0]!.n);
      }
      expect(copying).toBe(0);
    }
  });
});
