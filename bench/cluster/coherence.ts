/**
 * Coherence across two KSP nodes (docs/cluster.md#coherence-between-nodes): a change made on node
 * A, and the time until node B refuses what the change forbids, measured by asking B every
 * 10 ms from the moment A answered the change. B is asked once before the change, so whatever B
 * keeps in memory is warm: the figure is the real bound, not a cold read.
 */
import { api as contract, DB_KEY_PATH, DB_TOKEN_HEADER } from '@ksp/contracts';
import { api, login } from '../support.js';

/** What one request to a node answered: HTTP status and the envelope's code (or null). */
async function ask(
  base: string,
  path: string,
  init: { token?: string; body?: unknown; headers?: Record<string, string> },
) {
  const res = await fetch(base + path, {
    method: init.body === undefined ? 'GET' : 'POST',
    headers: {
      'content-type': 'application/json',
      ...(init.token ? { token: init.token } : {}),
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  let code: number | null;
  try {
    code = (JSON.parse(text) as { code?: number }).code ?? null;
  } catch {
    code = null;
  }
  return { status: res.status, code };
}

/** Milliseconds from `changedAt` until `refused()` holds (polled every 10 ms), or null past 10 s. */
async function until(changedAt: number, refused: () => Promise<boolean>): Promise<number | null> {
  for (;;) {
    if (await refused()) return Date.now() - changedAt;
    if (Date.now() - changedAt > 10_000) return null;
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface CoherenceRow {
  change: string;
  /** Milliseconds until node B refused; null: B still allowed it after 10 s. */
  ms: number | null;
  /** The bound docs/cluster.md states, in milliseconds. */
  boundMs: number;
}

/** Measures each documented bound between node `a` and node `b` (bases), as `token`'s administrator. */
export async function measureCoherence(a: string, b: string, token: string): Promise<CoherenceRow[]> {
  const rows: CoherenceRow[] = [];
  const tag = Date.now().toString(36);

  // A key disabled on A: B stops encrypting with it.
  const key = await api<{ id: string }>(
    a,
    contract.key.create.path,
    { name: `coh-key-${tag}`, algorithm: 'AES-256', usage_mask: 12 },
    token,
  );
  const encrypt = () =>
    ask(b, contract.crypto.encrypt.path, {
      token,
      body: { key_id: key.id, algorithm: 'AES-GCM', plaintext: Buffer.from('coherence').toString('base64') },
    });
  if ((await encrypt()).code !== 0) throw new Error('coherence: the key does not encrypt on node B');
  await api(a, contract.key.disable.path, { id: key.id }, token);
  let t = Date.now();
  rows.push({
    change: 'key disabled',
    ms: await until(t, async () => (await encrypt()).code !== 0),
    boundMs: 1000,
  });

  // A session ended on A (logout): B stops taking it.
  const session = (await login(a)).token;
  const info = () => ask(b, contract.user.info.path, { token: session });
  if ((await info()).code !== 0) throw new Error('coherence: the session does not work on node B');
  await api(a, contract.user.logout.path, {}, session);
  t = Date.now();
  rows.push({
    change: 'session ended (logout)',
    ms: await until(t, async () => (await info()).status === 401),
    boundMs: 1000,
  });

  // A role losing a permission on A: B refuses its holder the call.
  const role = await api<{ id: string }>(
    a,
    contract.role.create.path,
    { name: `coh-role-${tag}`, permissions: ['key:read', 'dashboard:read'] },
    token,
  );
  const username = `coh-user-${tag}`;
  const password = 'Coherence-Pass-1';
  await api(
    a,
    contract.user.create.path,
    {
      username,
      password,
      email: `${username}@example.test`,
      role_ids: [role.id],
      must_change_password: false,
    },
    token,
  );
  const { createHash } = await import('node:crypto');
  const user = await api<{ token: string }>(a, contract.user.login.path, {
    username: Buffer.from(username).toString('base64'),
    password: createHash('sha256').update(password).digest('base64'),
  });
  const list = () => ask(b, `${contract.key.list.path}?page=1&page_size=1`, { token: user.token });
  if ((await list()).code !== 0) throw new Error('coherence: the role does not list keys on node B');
  await api(a, contract.role.update.path, { id: role.id, permissions: ['dashboard:read'] }, token);
  t = Date.now();
  rows.push({
    change: 'role lost a permission',
    ms: await until(t, async () => (await list()).code === 4030),
    boundMs: 1000,
  });

  // A database client disabled on A: B refuses its key reads.
  const made = await api<{ client: { id: string }; token: string }>(
    a,
    contract.tdeDatabase.create.path,
    { name: `coh-db-${tag}` },
    token,
  );
  const dbKey = await api<{ id: string }>(
    a,
    contract.key.create.path,
    { name: `coh-dbkey-${tag}`, algorithm: 'AES-256', usage_mask: 12 },
    token,
  );
  await api(
    a,
    contract.tdeDatabase.grant.path,
    { id: made.client.id, db_key_id: 1, key_id: dbKey.id },
    token,
  );
  const read = () => ask(b, `${DB_KEY_PATH}/data/1`, { headers: { [DB_TOKEN_HEADER]: made.token } });
  if ((await read()).status !== 200) throw new Error('coherence: the database client cannot read on node B');
  await api(a, contract.tdeDatabase.update.path, { id: made.client.id, enabled: false }, token);
  t = Date.now();
  rows.push({
    change: 'database client disabled',
    ms: await until(t, async () => (await read()).status === 403),
    boundMs: 0,
  });
  return rows;
}
