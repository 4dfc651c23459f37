import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type LogRecord } from '@ksp/contracts';
import { call, initialize, ok, startServer, type TestServer } from '../../test/harness.js';
import { makeSelfSignedEc } from '../../test/openssl.js';
import { mariadbAvailable, startMariadb, type Mariadb } from './test/mariadb.js';

if (!mariadbAvailable()) {
  if (process.env.CI === 'true')
    throw new Error(
      'MariaDB is required in CI (Debian packages mariadb-server, mariadb-client, mariadb-plugin-hashicorp-key-management)',
    );
  console.warn(
    '\n!!! MariaDB or its hashicorp_key_management plugin not installed: the MariaDB suite cannot run (apt-get install mariadb-server mariadb-plugin-hashicorp-key-management) !!!\n',
  );
}

/** A waited-for condition: `probe` again until `done` holds or `ms` pass (then the last value is answered). */
async function until<T>(probe: () => Promise<T>, done: (v: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (done(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Every file under `dir`, with its path relative to `dir`. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(dir, join(prefix, e.name)) : [join(prefix, e.name)],
  );
}

/** The files of `dir` whose bytes contain `text`. */
const filesContaining = (dir: string, text: string) =>
  filesUnder(dir).filter((f) => readFileSync(join(dir, f)).includes(Buffer.from(text, 'utf8')));

/**
 * MariaDB 10.11 with Debian's `hashicorp_key_management` plugin against a real KSP over HTTPS
 * (docs/tde-database.md): the plugin reads the keys granted to a database client from the key
 * endpoint, InnoDB encrypts the tables and the redo log with them, a new key version in KSP
 * becomes the tables' key, a disabled client's database does not start, a key id taken away
 * leaves its table unreadable, and MariaDB goes on from its key cache while KSP is away. One
 * MariaDB for the whole file, restarted between steps. One engine: what is asserted is decided
 * by MariaDB and the endpoint's HTTP answers, not by SQL the engines run differently.
 */
describe.runIf(mariadbAvailable())('MariaDB reads its keys from the key endpoint (sqlite)', () => {
  let server: TestServer;
  let kspClosed = false;
  let token: string;
  let dir: string;
  let db: Mariadb;
  let clientId: string;
  let keyOne: string;
  let keyTwo: string;
  const marker = (what: string) => `ksp-marker-${what}-${randomBytes(8).toString('hex')}`;
  const secretOne = marker('one');
  const secretTwo = marker('two');
  const clear = marker('clear');

  const tablespace = async (name: string) => {
    const [row] = await db.query(
      `SELECT encryption_scheme, current_key_id, current_key_version, min_key_version
         FROM information_schema.INNODB_TABLESPACES_ENCRYPTION WHERE name = 'shop/${name}'`,
    );
    return {
      scheme: Number(row![0]),
      keyId: Number(row![1]),
      current: Number(row![2]),
      min: Number(row![3]),
    };
  };
  const values = async (table: string) => (await db.query(`SELECT v FROM shop.${table} ORDER BY id`)).flat();
  /**
   * The key endpoint's audit records (one per key version and client, or per refusal kind, per
   * window of KSP_DB_KEY_AUDIT_SECONDS): the window is ended on the server's clock (the test's),
   * then the records are waited for until one satisfies `wanted`.
   */
  const dbKeyRecords = async (wanted: (r: LogRecord) => boolean) => {
    server.clock.advance(2);
    const list = async () =>
      ok(
        await call(server, api.log.list, {
          token,
          query: { page: 1, page_size: 200, action: 'db-key.read' },
        }),
      ).data.data;
    return until(list, (rows) => rows.some(wanted), 15_000);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ksp-tde-mariadb-'));
    // KSP's HTTPS certificate names 127.0.0.1: the plugin checks the address against it.
    await makeSelfSignedEc({
      key: 'server.key',
      cert: 'server.pem',
      cn: '127.0.0.1',
      days: 2,
      san: ['IP:127.0.0.1'],
      cwd: dir,
    });
    server = await startServer('sqlite', {
      KSP_TLS_CERT: join(dir, 'server.pem'),
      KSP_TLS_KEY: join(dir, 'server.key'),
      KSP_DB_KEY_AUDIT_SECONDS: '1',
    });
    ({ token } = await initialize(server));
    const base = await server.app.listen({ host: '127.0.0.1', port: 0 });
    const aes = async (name: string) =>
      ok(await call(server, api.key.create, { token, body: { name, algorithm: 'AES-256', usage_mask: 12 } }))
        .data.id;
    keyOne = await aes('shop-tde-1');
    keyTwo = await aes('shop-tde-2');
    const made = ok(await call(server, api.tdeDatabase.create, { token, body: { name: 'shop-db' } })).data;
    clientId = made.client.id;
    for (const [dbKeyId, keyId] of [
      [1, keyOne],
      [2, keyTwo],
    ] as const)
      ok(
        await call(server, api.tdeDatabase.grant, {
          token,
          body: { id: clientId, db_key_id: dbKeyId, key_id: keyId },
        }),
      );
    // What an operator copies from the console: the endpoint's path and the certificate to trust.
    const endpoint = ok(await call(server, api.tdeDatabase.endpoint, { token })).data;
    writeFileSync(join(dir, 'ksp-ca.pem'), endpoint.server_certificate_pem);
    db = await startMariadb({
      vaultUrl: `${base}${endpoint.path}`,
      token: made.token,
      caFile: join(dir, 'ksp-ca.pem'),
      // A new key version is taken within a second (the plugin's default is a minute).
      cacheVersionTimeoutMs: 1000,
    });
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    if (server && !kspClosed) await server.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('encrypts the tables and the redo log on disk with the keys KSP grants, and reads them back', async () => {
    await db.query(`
      CREATE DATABASE shop;
      CREATE TABLE shop.secret_one (id INT PRIMARY KEY, v VARCHAR(100)) ENCRYPTED=YES ENCRYPTION_KEY_ID=1;
      CREATE TABLE shop.secret_two (id INT PRIMARY KEY, v VARCHAR(100)) ENCRYPTED=YES ENCRYPTION_KEY_ID=2;
      CREATE TABLE shop.clear (id INT PRIMARY KEY, v VARCHAR(100)) ENCRYPTED=NO;
      INSERT INTO shop.secret_one VALUES (1, '${secretOne}');
      INSERT INTO shop.secret_two VALUES (1, '${secretTwo}');
      INSERT INTO shop.clear VALUES (1, '${clear}');`);
    expect(await tablespace('secret_one')).toMatchObject({ scheme: 1, keyId: 1, current: 1 });
    expect(await tablespace('secret_two')).toMatchObject({ scheme: 1, keyId: 2, current: 1 });
    expect((await tablespace('clear')).scheme).toBe(0);

    // A slow shutdown writes every change into the data files; then the disk is read as a thief would.
    await db.stop({ slow: true });
    expect(filesContaining(db.datadir, secretOne)).toEqual([]);
    expect(filesContaining(db.datadir, secretTwo)).toEqual([]);
    // The control: the unencrypted table's file shows its text, so the scan would have found the others.
    // The redo log is encrypted too: the clear table's change is not readable there either.
    const showing = filesContaining(db.datadir, clear);
    expect(showing).toContain(join('shop', 'clear.ibd'));
    expect(showing).not.toContain('ib_logfile0');

    await db.start();
    expect(await values('secret_one')).toEqual([secretOne]);
    expect(await values('secret_two')).toEqual([secretTwo]);

    // KSP audits the reads: each key version the database read, by the client, from its address.
    const reads = await dbKeyRecords((r) => r.object_id === keyTwo);
    for (const keyId of [keyOne, keyTwo])
      expect(reads.find((r) => r.object_id === keyId)).toMatchObject({
        result: 'success',
        source: 'database',
        username: 'shop-db',
        ip: '127.0.0.1',
        details: expect.objectContaining({ version: 1 }) as unknown,
      });
    expect(reads.filter((r) => r.result === 'failure')).toEqual([]);
  }, 120_000);

  it('takes each new key version made in KSP as the table key, and re-encrypts the older pages', async () => {
    const rotate = () => call(server, api.key.addVersion, { token, body: { id: keyOne } }).then(ok);
    await rotate();
    const second = await until(
      () => tablespace('secret_one'),
      (t) => t.current === 2,
      30_000,
    );
    expect(second).toMatchObject({ keyId: 1, current: 2 });
    // The other key id is another KSP key: unchanged.
    expect(await tablespace('secret_two')).toMatchObject({ keyId: 2, current: 1 });
    // innodb_encryption_rotate_key_age=1 re-encrypts the pages more than one version behind the
    // latest: after a second new version none is left under version 1.
    await rotate();
    const third = await until(
      () => tablespace('secret_one'),
      (t) => t.current === 3 && t.min === 3,
      60_000,
    );
    expect(third).toMatchObject({ keyId: 1, current: 3, min: 3 });
    // KSP served the new versions to this client.
    const reads = await dbKeyRecords((r) => r.object_id === keyOne && r.details.version === 3);
    const served = reads.filter((r) => r.object_id === keyOne && r.result === 'success');
    expect(served.map((r) => r.details.version)).toEqual(expect.arrayContaining([1, 2, 3]));
    // After a restart the tables open with what KSP serves now.
    await db.restart();
    expect(await values('secret_one')).toEqual([secretOne]);
    expect(await values('secret_two')).toEqual([secretTwo]);
  }, 120_000);

  it("refuses a disabled client's database its keys: it does not start until the client is enabled again", async () => {
    ok(await call(server, api.tdeDatabase.update, { token, body: { id: clientId, enabled: false } }));
    try {
      const logBefore = db.errorLog().length;
      // Key id 1 is InnoDB's own (the system tablespace and the redo log): without it mariadbd does
      // not start. A restart begins with an empty key cache, so the cache setting changes nothing here.
      await expect(db.restart({ cacheEnabled: false })).rejects.toThrow(/permission denied/);
      expect(db.running()).toBe(false);
      expect(db.errorLog().slice(logBefore)).toContain(
        'hashicorp: Hashicorp server error: 403, response: {"errors":["permission denied: database client shop-db is disabled in KSP"]}',
      );
      const refused = await dbKeyRecords((r) => r.details.reason === 'dbKey.clientDisabled');
      expect(refused.find((r) => r.details.reason === 'dbKey.clientDisabled')).toMatchObject({
        result: 'failure',
        source: 'database',
        ip: '127.0.0.1',
        details: expect.objectContaining({ client: 'shop-db' }) as unknown,
      });
    } finally {
      ok(await call(server, api.tdeDatabase.update, { token, body: { id: clientId, enabled: true } }));
    }
    await db.start({ cacheEnabled: true });
    expect(await values('secret_one')).toEqual([secretOne]);
    expect(await values('secret_two')).toEqual([secretTwo]);
  }, 120_000);

  it('cannot open the table of a key id taken away from the client, and opens the others', async () => {
    ok(await call(server, api.tdeDatabase.ungrant, { token, body: { id: clientId, db_key_id: 2 } }));
    try {
      const logBefore = db.errorLog().length;
      await db.restart();
      expect(await values('secret_one')).toEqual([secretOne]);
      // The query is refused with the plugin's words; the error log names KSP's refusal.
      await expect(values('secret_two')).rejects.toThrow(/hashicorp: Unable to get key data/);
      expect(db.errorLog().slice(logBefore)).toContain(
        'permission denied: key id 2 is not granted to database client shop-db',
      );
      const refused = await dbKeyRecords((r) => r.details.reason === 'dbKey.notGranted');
      expect(refused.find((r) => r.details.reason === 'dbKey.notGranted')).toMatchObject({
        result: 'failure',
        details: expect.objectContaining({ db_key_id: 2, client: 'shop-db' }) as unknown,
      });
    } finally {
      ok(
        await call(server, api.tdeDatabase.grant, {
          token,
          body: { id: clientId, db_key_id: 2, key_id: keyTwo },
        }),
      );
    }
    await db.restart();
    expect(await values('secret_two')).toEqual([secretTwo]);
  }, 120_000);

  it('goes on serving its encrypted tables from its key cache while KSP is stopped', async () => {
    // With a version cache time of 0 the plugin asks KSP at every lookup of a key's latest version:
    // what follows is answered from its cache only because KSP cannot be reached.
    await db.restart({ cacheVersionTimeoutMs: 0 });
    expect(await values('secret_two')).toEqual([secretTwo]);
    kspClosed = true;
    await server.close();
    await db.query(`
      INSERT INTO shop.secret_one VALUES (2, 'written while KSP is away');
      INSERT INTO shop.secret_two VALUES (2, 'written while KSP is away');
      FLUSH TABLES shop.secret_one, shop.secret_two FOR EXPORT;
      UNLOCK TABLES;`);
    expect(await values('secret_one')).toEqual([secretOne, 'written while KSP is away']);
    expect(await values('secret_two')).toEqual([secretTwo, 'written while KSP is away']);
    // The key versions are asked of KSP again (and answered from the cache when it cannot be reached).
    expect(await tablespace('secret_one')).toMatchObject({ keyId: 1, current: 3 });
    expect(db.running()).toBe(true);
  }, 60_000);
});
