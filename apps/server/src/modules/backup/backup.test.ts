import { createHash, randomBytes, randomUUID, scryptSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, BACKUP_FORMAT_VERSION, Code, formatMessage, PRODUCT_VERSION, Usage } from '@ksp/contracts';
import { keyCheckValue } from '../../platform/crypto/symmetric.js';
import { aeadSeal } from '../../platform/keyring/aead.js';
import { createBackupKeyService } from './backup-key.service.js';
import { createJobs } from '../../platform/jobs/jobs.js';
import { createBackupService } from './backup.service.js';
import { BACKUP_JOB, type BackupCheckpoint } from './backup.writer.js';
import { createArchiveWriter, kekWrapKey, newSalt } from './backup.format.js';
import {
  ADMIN,
  call,
  domainWithAdmin,
  engines,
  initialize,
  login,
  roleIdByName,
  startServer,
  type EngineName,
  type TestServer,
} from '../../test/harness.js';
import { downloadKey, fetchArchive, finished, uploadArchive } from '../../test/backup.js';
import { makeSelfSignedEc } from '../../test/openssl.js';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const text = (b: string) => Buffer.from(b, 'base64').toString('utf8');
const available = await engines();
/** The other engine when both run: a SQLite backup restores into PostgreSQL and back. */
const otherThan = (engine: EngineName): EngineName => available.find((e) => e !== engine) ?? engine;

describe.each(available)('backups on %s', (engine) => {
  let a: TestServer;
  let b: TestServer;
  let token: string;
  let systemKeyId: string;
  const secrets: { keyId: string; ciphertext: string; plain: string; token: 'root' | 'd1' }[] = [];
  let ecKey: { id: string; signature: string };
  let d1: { domainId: string; token: string };
  let d2: { domainId: string; token: string };

  const newKey = (t: string, name: string, algorithm: 'AES-256' | 'EC-P256' = 'AES-256') =>
    call(a, api.key.create, {
      token: t,
      body: {
        name,
        algorithm,
        usage_mask: algorithm === 'AES-256' ? Usage.Encrypt | Usage.Decrypt : Usage.Sign | Usage.Verify,
      },
    });

  beforeAll(async () => {
    a = await startServer(engine);
    ({ token } = await initialize(a));
    d1 = await domainWithAdmin(a, token, { domain: 'd1', username: 'd1admin', password: 'D1-Admin-Pass-1' });
    d2 = await domainWithAdmin(a, token, { domain: 'd2', username: 'd2admin', password: 'D2-Admin-Pass-1' });
    for (const [t, who] of [
      [token, 'root'],
      [d1.token, 'd1'],
    ] as const) {
      for (let i = 0; i < 3; i++) {
        const k = await newKey(t, `${who}-aes-${i}`);
        expect(k.code, k.msg).toBe(0);
        const plain = `secret ${who} ${i}`;
        const enc = await call(a, api.crypto.encrypt, {
          token: t,
          body: { key_id: k.data.id, plaintext: b64(plain) },
        });
        expect(enc.code, enc.msg).toBe(0);
        secrets.push({ keyId: k.data.id, ciphertext: enc.data.ciphertext, plain, token: who });
      }
    }
    const ec = await newKey(token, 'root-ec', 'EC-P256');
    expect(ec.code, ec.msg).toBe(0);
    const sig = await call(a, api.crypto.sign, {
      token,
      body: { key_id: ec.data.id, data: b64('signed text') },
    });
    expect(sig.code, sig.msg).toBe(0);
    ecKey = { id: ec.data.id, signature: sig.data.signature };
    const credential = await call(a, api.credential.create, {
      token: d1.token,
      body: { name: 'db root', type: 'password', value: 'Cr3dential-value-d1' },
    });
    expect(credential.code, credential.msg).toBe(0);
    const task = await call(a, api.scheduler.create, {
      token,
      body: { name: 'nightly rotation', cron: '0 3 * * *', query: {} },
    });
    expect(task.code, task.msg).toBe(0);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('generates backup keys, one default per scope, and keeps system keys from domain administrators', async () => {
    const first = await call(a, api.backupKey.create, { token, body: { name: 'sys-1', scope: 'system' } });
    expect(first.code, first.msg).toBe(0);
    expect(first.data).toMatchObject({ scope: 'system', is_default: true, domain: 'root' });
    expect(first.data.kcv).toMatch(/^[0-9A-F]{6}$/);
    const second = await call(a, api.backupKey.create, { token, body: { name: 'sys-2', scope: 'system' } });
    expect(second.data.is_default).toBe(false);
    const swap = await call(a, api.backupKey.setDefault, { token, body: { id: second.data.id } });
    expect(swap.data.is_default).toBe(true);
    const list = await call(a, api.backupKey.list, { token });
    expect(list.data.data.filter((k) => k.is_default).map((k) => k.name)).toEqual(['sys-2']);
    await call(a, api.backupKey.setDefault, { token, body: { id: first.data.id } });
    systemKeyId = first.data.id;

    // A domain administrator neither sees nor makes system keys.
    const refused = await call(a, api.backupKey.create, {
      token: d1.token,
      body: { name: 'x', scope: 'system' },
    });
    expect(refused.code).toBe(Code.FORBIDDEN);
    const d1Key = await call(a, api.backupKey.create, {
      token: d1.token,
      body: { name: 'd1-key', scope: 'domain' },
    });
    expect(d1Key.data).toMatchObject({ scope: 'domain', is_default: true, domain: 'd1' });
    const d1List = await call(a, api.backupKey.list, { token: d1.token });
    expect(d1List.data.data.map((k) => k.name)).toEqual(['d1-key']);
    const d2List = await call(a, api.backupKey.list, { token: d2.token });
    expect(d2List.data.total).toBe(0);
    const peek = await call(a, api.backupKey.setDefault, { token: d2.token, body: { id: d1Key.data.id } });
    expect(peek.code).toBe(Code.NOT_FOUND);
    const steal = await call(a, api.backupKey.download, {
      token: d2.token,
      body: { id: systemKeyId, password: 'whatever-pw' },
    });
    expect(steal.code).toBe(Code.NOT_FOUND);
  });

  it('writes a key file sealed under the password, with its scrypt parameters and hint, no key bytes in clear', async () => {
    const file = await downloadKey(a, token, systemKeyId, 'file-password-1');
    const parsed = JSON.parse(file) as Record<string, unknown> & { kdf: Record<string, unknown> };
    expect(parsed).toMatchObject({
      format: 'ksp-backup-key',
      version: 1,
      id: systemKeyId,
      scope: 'system',
      hint: 'the usual',
    });
    expect(parsed.kdf).toMatchObject({ name: 'scrypt', N: 32768, r: 8, p: 1 });
    // The same key uploaded where it exists is a conflict; a wrong password opens nothing.
    const again = await call(a, api.backupKey.upload, { token, body: { file, password: 'file-password-1' } });
    expect(again.code).toBe(Code.CONFLICT);
    const wrong = await call(a, api.backupKey.upload, {
      token,
      body: { file, password: 'not-the-password' },
    });
    expect(wrong.code).toBe(Code.INVALID);
    expect(wrong.msg).toMatch(/does not open this backup key file/);
    const junk = await call(a, api.backupKey.upload, {
      token,
      lang: 'zh',
      body: { file: '{"format":1}', password: 'x' },
    });
    expect(junk.code).toBe(Code.INVALID);
    expect(junk.msg).toContain('不是 KSP 备份密钥文件');
  });

  it('round-trips a system backup into a fresh install on another engine, keys decrypting as before', async () => {
    const started = await call(a, api.backup.create, {
      token,
      body: { scope: 'system', description: 'nightly' },
    });
    expect(started.code, started.msg).toBe(0);
    expect(['backing_up', 'completed']).toContain(started.data.status);
    const done = await finished(a, token, started.data.id);
    expect(done).toMatchObject({
      status: 'completed',
      progress: 100,
      scope: 'system',
      backup_key_id: systemKeyId,
    });
    expect(done.counts.kms_key).toBeGreaterThanOrEqual(7);
    expect(done.counts.domain).toBe(3);
    // The dashboard names it as the last backup in system scope; a domain sees only its own.
    const dash = await call(a, api.dashboard.summary, { token });
    expect(dash.data.last_backup).toMatchObject({ id: done.id, scope: 'system' });
    expect((await call(a, api.dashboard.summary, { token: d2.token })).data.last_backup).toBeNull();
    const archive = await fetchArchive(a, token, done.id);
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(archive).digest('hex')).toBe(done.sha256);
    expect(archive.length).toBe(done.size);
    // Nothing of the plaintext is in the file.
    expect(archive.includes(Buffer.from('root-aes-0'))).toBe(false);

    // The key cannot be deleted while it is the only one that opens this backup.
    const del = await call(a, api.backupKey.delete, { token, body: { ids: [systemKeyId] } });
    expect(del.code).toBe(Code.STATE_FORBIDS);
    expect(del.msg).toMatch(/only key able to open 1 backup/);

    b = await startServer(otherThan(engine));
    let tokenB = (await initialize(b)).token;
    // The target has a credential of its own: the restore replaces it with the archive's.
    const own = await call(b, api.credential.create, {
      token: tokenB,
      body: { name: 'replaced', type: 'api-key', value: 'target-own-secret' },
    });
    expect(own.code, own.msg).toBe(0);
    // Without its backup key the archive is kept but not restored.
    const up = await uploadArchive(b, tokenB, archive);
    expect(up.code, up.msg).toBe(0);
    expect(up.data.sha256).toBe(done.sha256);
    const noKey = await call(b, api.backup.restore, { token: tokenB, body: { id: up.data.id } });
    expect(noKey.code).toBe(Code.STATE_FORBIDS);
    expect(noKey.msg).toMatch(/upload the backup key file/);
    const file = await downloadKey(a, token, systemKeyId, 'file-password-1');
    const key = await call(b, api.backupKey.upload, {
      token: tokenB,
      body: { file, password: 'file-password-1' },
    });
    expect(key.code, key.msg).toBe(0);
    expect(key.data.kcv).toBe(done.backup_key_id ? key.data.kcv : '');

    const restored = await call(b, api.backup.restore, { token: tokenB, body: { id: up.data.id } });
    expect(restored.code, restored.msg).toBe(0);
    expect(restored.data.restore_status).toBe('restored');
    // Everyone signs in again, with the restored accounts.
    expect((await call(b, api.key.list, { token: tokenB })).status).toBe(401);
    tokenB = await login(b, ADMIN.username, ADMIN.password);
    const d1B = await login(b, 'd1admin', 'D1-Admin-Pass-1');
    for (const s of secrets) {
      const dec = await call(b, api.crypto.decrypt, {
        token: s.token === 'root' ? tokenB : d1B,
        body: { ciphertext: s.ciphertext },
      });
      expect(dec.code, dec.msg).toBe(0);
      expect(text(dec.data.plaintext)).toBe(s.plain);
    }
    const verified = await call(b, api.crypto.verify, {
      token: tokenB,
      body: { key_id: ecKey.id, data: b64('signed text'), signature: ecKey.signature },
    });
    expect(verified.data.valid).toBe(true);
    // Credentials come back sealed under their domain's KEK, and reveal as they were.
    const creds = await call(b, api.credential.list, { token: d1B, query: { page: 1, page_size: 10 } });
    expect(creds.data.data.map((c) => c.name)).toEqual(['db root']);
    const revealed = await call(b, api.credential.reveal, {
      token: d1B,
      body: { id: creds.data.data[0]!.id, password: 'D1-Admin-Pass-1' },
    });
    expect(revealed.code, revealed.msg).toBe(0);
    expect(revealed.data.value).toBe('Cr3dential-value-d1');
    expect((await call(b, api.credential.list, { token: tokenB })).data.total).toBe(0);
    // So do the scheduler's tasks.
    const tasks = await call(b, api.scheduler.list, { token: tokenB, query: { page: 1, page_size: 10 } });
    expect(tasks.data.data.map((t) => t.name)).toEqual(['nightly rotation']);
    // d1's keys stay in d1.
    const d1Keys = await call(b, api.key.list, { token: d1B });
    expect(d1Keys.data.data.map((k) => k.name).sort()).toEqual(['d1-aes-0', 'd1-aes-1', 'd1-aes-2']);
    // The key counts (kept in a tally) match the source's.
    const totalA = (await call(a, api.key.list, { token })).data.total;
    expect((await call(b, api.key.list, { token: tokenB })).data.total).toBe(totalA);
    expect(d1Keys.data.total).toBe(3);
    // New keys and operations work after the restore (the restored KEKs unwrap under B's root key).
    const fresh = await call(b, api.key.create, {
      token: tokenB,
      body: { name: 'after', algorithm: 'AES-256', usage_mask: Usage.Encrypt | Usage.Decrypt },
    });
    expect(fresh.code, fresh.msg).toBe(0);
  });

  it('refuses a truncated, tampered, newer or wrongly keyed archive, changing nothing', async () => {
    const started = await call(a, api.backup.create, {
      token,
      body: { scope: 'domain', description: 'root domain' },
    });
    const done = await finished(a, token, started.data.id);
    expect(done.status).toBe('completed');
    const archive = await fetchArchive(a, token, done.id);
    const keysBefore = await call(a, api.key.list, { token, query: { page_size: 1000 } });

    const attempt = async (bytes: Buffer) => {
      const up = await uploadArchive(a, token, bytes);
      if (up.code !== 0) return up;
      return call(a, api.backup.restore, { token, body: { id: up.data.id } });
    };
    const truncated = await attempt(archive.subarray(0, archive.length - 40));
    expect(truncated.code).toBe(Code.INVALID);
    expect(truncated.msg).toMatch(/damaged or altered|truncated/);
    const cut = await attempt(archive.subarray(0, archive.length - (archive.length - 200)));
    expect(cut.code).toBe(Code.INVALID);
    const tampered = Buffer.from(archive);
    tampered[tampered.length - 30] = tampered[tampered.length - 30]! ^ 1;
    const t = await attempt(tampered);
    expect(t.code).toBe(Code.INVALID);
    expect(t.msg).toMatch(/damaged or altered/);
    const newer = Buffer.from(archive);
    newer.writeUInt16BE(99, 8);
    const n = await attempt(newer);
    expect(n.code).toBe(Code.STATE_FORBIDS);
    expect(n.msg).toMatch(/format version 99/);
    // A header naming another key: that key does not open it.
    const other = await call(a, api.backupKey.list, { token });
    const sys2 = other.data.data.find((k) => k.name === 'sys-2')!;
    const headerLength = archive.readUInt32BE(10);
    const header = JSON.parse(archive.subarray(14, 14 + headerLength).toString('utf8')) as Record<
      string,
      unknown
    >;
    const swapped = Buffer.from(JSON.stringify({ ...header, backup_key_id: sys2.id }), 'utf8');
    const lengthField = Buffer.alloc(4);
    lengthField.writeUInt32BE(swapped.length);
    const wrongKey = await attempt(
      Buffer.concat([archive.subarray(0, 10), lengthField, swapped, archive.subarray(14 + headerLength)]),
    );
    expect(wrongKey.code).toBe(Code.INVALID);
    expect(wrongKey.msg).toMatch(/does not open this backup/);
    const garbage = await attempt(Buffer.from('not an archive at all'));
    expect(garbage.code).toBe(Code.INVALID);

    const keysAfter = await call(a, api.key.list, { token, query: { page_size: 1000 } });
    expect(keysAfter.data.data.map((k) => k.id).sort()).toEqual(keysBefore.data.data.map((k) => k.id).sort());
    for (const s of secrets.filter((x) => x.token === 'root')) {
      const dec = await call(a, api.crypto.decrypt, { token, body: { ciphertext: s.ciphertext } });
      expect(text(dec.data.plaintext)).toBe(s.plain);
    }
  });

  it('restores a domain without touching other domains, and keeps each domain to its own backups', async () => {
    const d2Key = await call(a, api.backupKey.create, {
      token: d2.token,
      body: { name: 'd2-key', scope: 'domain' },
    });
    expect(d2Key.code).toBe(0);
    const d2Aes = await newKey(d2.token, 'd2-aes');
    const started = await call(a, api.backup.create, { token: d1.token, body: { scope: 'domain' } });
    expect(started.code, started.msg).toBe(0);
    const done = await finished(a, d1.token, started.data.id);
    expect(done.status).toBe('completed');
    expect(done.counts.kms_key).toBe(3);

    // Another domain's administrator neither sees nor restores it; a system backup is refused.
    expect((await call(a, api.backup.list, { token: d2.token })).data.data.map((x) => x.id)).not.toContain(
      done.id,
    );
    expect((await call(a, api.backup.detail, { token: d2.token, query: { id: done.id } })).code).toBe(
      Code.NOT_FOUND,
    );
    expect((await call(a, api.backup.restore, { token: d2.token, body: { id: done.id } })).code).toBe(
      Code.NOT_FOUND,
    );
    expect((await call(a, api.backup.create, { token: d1.token, body: { scope: 'system' } })).code).toBe(
      Code.FORBIDDEN,
    );
    const d2Download = await a.app.inject({
      method: 'GET',
      url: `${api.backup.download.path}?id=${done.id}`,
      headers: { token: d2.token },
    });
    expect(d2Download.json<{ code: number }>().code).toBe(Code.NOT_FOUND);

    // Lose a key, add one, restore: d1 is as backed up, d2 untouched.
    const victim = secrets.find((s) => s.token === 'd1')!;
    const d1Keys = await call(a, api.key.list, { token: d1.token });
    const added = await newKey(d1.token, 'd1-after');
    const removed = await a.database.db
      .deleteFrom('kms_key_version')
      .where('key_id', '=', victim.keyId)
      .execute();
    expect(removed.length).toBe(1);
    await a.database.db.deleteFrom('kms_key').where('id', '=', victim.keyId).execute();
    const restored = await call(a, api.backup.restore, { token: d1.token, body: { id: done.id } });
    expect(restored.code, restored.msg).toBe(0);
    const after = await call(a, api.key.list, { token: d1.token });
    expect(after.data.data.map((k) => k.id).sort()).toEqual(d1Keys.data.data.map((k) => k.id).sort());
    expect(after.data.data.map((k) => k.id)).not.toContain(added.data.id);
    const dec = await call(a, api.crypto.decrypt, {
      token: d1.token,
      body: { ciphertext: victim.ciphertext },
    });
    expect(text(dec.data.plaintext)).toBe(victim.plain);
    const d2After = await call(a, api.key.list, { token: d2.token });
    expect(d2After.data.data.map((k) => k.id)).toEqual([d2Aes.data.id]);
  });

  it('backs up and restores chosen keys (partial), leaving the rest of the domain alone', async () => {
    const [one, two] = secrets.filter((s) => s.token === 'root');
    const empty = await call(a, api.backup.create, { token, body: { scope: 'partial', filters: {} } });
    expect(empty.code).toBe(Code.INVALID);
    const started = await call(a, api.backup.create, {
      token,
      body: { scope: 'partial', backup_key_id: systemKeyId, filters: { key_ids: [one!.keyId] } },
    });
    expect(started.code, started.msg).toBe(0);
    const done = await finished(a, token, started.data.id);
    expect(done.counts.kms_key).toBe(1);
    await a.database.db.deleteFrom('kms_key_version').where('key_id', '=', one!.keyId).execute();
    await a.database.db.deleteFrom('kms_key').where('id', '=', one!.keyId).execute();
    const restored = await call(a, api.backup.restore, { token, body: { id: done.id } });
    expect(restored.code, restored.msg).toBe(0);
    for (const s of [one!, two!]) {
      const dec = await call(a, api.crypto.decrypt, { token, body: { ciphertext: s.ciphertext } });
      expect(text(dec.data.plaintext)).toBe(s.plain);
    }
    // An archive missing from this node's disk is named as such, not a server fault.
    rmSync(join(a.dataDir, 'backups', `${done.id}.kspb`));
    const gone = await call(a, api.backup.restore, { token, body: { id: done.id } });
    expect(gone.code).toBe(Code.STATE_FORBIDS);
    // It names the node that wrote it (another node of a cluster without a shared directory).
    expect(done.node).toBeTruthy();
    expect(gone.msg).toContain(`not in this node's backup directory: node ${done.node} wrote it`);
    const goneDownload = await a.app.inject({
      method: 'GET',
      url: `${api.backup.download.path}?id=${done.id}`,
      headers: { token },
    });
    expect(goneDownload.json<{ code: number }>().code).toBe(Code.STATE_FORBIDS);
    // A deleted backup's file goes with it.
    const del = await call(a, api.backup.delete, { token, body: { ids: [done.id] } });
    expect(del.data.deleted).toBe(1);
    expect((await call(a, api.backup.detail, { token, query: { id: done.id } })).code).toBe(Code.NOT_FOUND);
  });

  it("takes the scheduler's key rotation backup through the module service, and restores it", async () => {
    // The same services the module registers, over this server's database and keyring.
    const keys = createBackupKeyService({
      db: a.database.db,
      clock: () => a.clock.now,
      keyring: a.services.keyring,
    });
    // A second node over the same database and backup directory, with jobs of its own.
    const jobs = createJobs({ db: a.database.db, clock: () => a.clock.now, node: 'node-b' });
    const backups = createBackupService({
      db: a.database.db,
      clock: () => a.clock.now,
      keyring: a.services.keyring,
      keys,
      backupDir: join(a.dataDir, 'backups'),
      node: 'node-b',
      jobs,
      engine: a.engine,
      restored: () => undefined,
      log: { error: () => undefined },
      hsm: () => {
        throw new Error('no HSM in this test');
      },
    });
    jobs.register<BackupCheckpoint>({ name: BACKUP_JOB, every: 15, run: (run) => backups.runJob(run) });
    const [rootKey] = secrets.filter((s) => s.token === 'root');
    const d1Key = secrets.find((s) => s.token === 'd1')!;
    const { id } = await backups.takeRotation({
      keyIds: [rootKey!.keyId, d1Key.keyId],
      actor: 'scheduler',
      description: 'before rotation task 7',
    });
    const row = await call(a, api.backup.detail, { token, query: { id } });
    expect(row.data).toMatchObject({
      scope: 'key_rotation',
      status: 'completed',
      description: 'before rotation task 7',
    });
    expect(row.data.counts).toMatchObject({ kms_key: 2, domain: 2 });
    // A description given as text stays as it is, in every language.
    expect(row.data.description_message).toBeNull();
    const typedZh = await call(a, api.backup.detail, { token, lang: 'zh', query: { id } });
    expect(typedZh.data.description).toBe('before rotation task 7');

    // A row written before server-made descriptions were stored as messages (English text) is
    // read as the message it was made from, in the reader's language.
    await a.database.db
      .updateTable('backup')
      .set({ description: `Key rotation: task nightly keys, run 0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee` })
      .where('id', '=', id)
      .execute();
    const legacy = await call(a, api.backup.detail, { token, lang: 'zh', query: { id } });
    expect(legacy.data.description).toBe(
      '密钥轮换：任务 nightly keys，运行 0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee',
    );
    expect(legacy.data.description_message).toEqual({
      key: 'backup.rotationDescription',
      params: { task: 'nightly keys', run: '0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee' },
    });
    for (const s of [rootKey!, d1Key]) {
      await a.database.db.deleteFrom('kms_key_version').where('key_id', '=', s.keyId).execute();
      await a.database.db.deleteFrom('kms_key').where('id', '=', s.keyId).execute();
    }
    const restored = await call(a, api.backup.restore, { token, body: { id } });
    expect(restored.code, restored.msg).toBe(0);
    const d1Dec = await call(a, api.crypto.decrypt, {
      token: d1.token,
      body: { ciphertext: d1Key.ciphertext },
    });
    expect(text(d1Dec.data.plaintext)).toBe(d1Key.plain);
    const rootDec = await call(a, api.crypto.decrypt, { token, body: { ciphertext: rootKey!.ciphertext } });
    expect(text(rootDec.data.plaintext)).toBe(rootKey!.plain);
  });

  /**
   * Restores into `domain` an archive written here with `records` after its domain row, sealed
   * under a domain key uploaded by its administrator (who holds one and could forge an archive
   * with it), as an older KSP or a forger would write it.
   */
  const forgedRestore = async (
    domain: { domainId: string; token: string },
    name: string,
    records: object[],
  ) => {
    const material = randomBytes(32);
    const kcv = keyCheckValue('AES-256', material);
    const keyId = randomUUID();
    const salt = randomBytes(32);
    const kdf = { N: 1024, r: 8, p: 1 };
    const sealed = aeadSeal(
      scryptSync('Forger-Pass-1', salt, 32, kdf),
      material,
      `ksp/backup-key-file/v1/${keyId}/domain/${kcv}`,
    );
    const file = JSON.stringify({
      format: 'ksp-backup-key',
      version: 1,
      id: keyId,
      name: `forged-${keyId.slice(0, 8)}`,
      scope: 'domain',
      domain: name,
      kcv,
      hint: '',
      kdf: { name: 'scrypt', ...kdf, salt: salt.toString('base64') },
      sealed,
    });
    const up = await call(a, api.backupKey.upload, {
      token: domain.token,
      body: { file, password: 'Forger-Pass-1' },
    });
    expect(up.code, up.msg).toBe(0);
    const archiveSalt = newSalt();
    const path = join(mkdtempSync(join(tmpdir(), 'ksp-forge-')), 'x.kspb');
    const writer = createArchiveWriter(path, material, {
      format_version: BACKUP_FORMAT_VERSION,
      scope: 'domain',
      domain_id: domain.domainId,
      domain_name: name,
      created_at: new Date().toISOString(),
      source_version: PRODUCT_VERSION,
      counts: {},
      backup_key_id: keyId,
      backup_key_kcv: kcv,
      salt: archiveSalt,
      description: 'forged',
    });
    const kek = randomBytes(32);
    const wrap = kekWrapKey(material, Buffer.from(archiveSalt, 'base64'));
    await writer.write({
      t: 'domain',
      r: { id: domain.domainId, name },
      kek: aeadSeal(wrap, kek, `ksp/backup/kek/${domain.domainId}`),
    });
    for (const r of records) await writer.write(r as never);
    await writer.write({ t: 'end', counts: {} });
    await writer.finish();
    const uploaded = await uploadArchive(a, domain.token, readFileSync(path));
    expect(uploaded.code, uploaded.msg).toBe(0);
    return call(a, api.backup.restore, { token: domain.token, body: { id: uploaded.data.id } });
  };

  it("refuses a hostile domain archive (another table, another domain's rows) and changes nothing", async () => {
    const forge = (records: object[]) => forgedRestore(d1, 'd1', records);
    const usersBefore = await a.database.db.selectFrom('app_user').select('id').execute();
    const d1Before = await call(a, api.key.list, { token: d1.token });
    const d2Before = await call(a, api.key.list, { token: d2.token });

    const users = await forge([{ t: 'app_user', r: { id: 'evil', username: 'evil' } }]);
    expect(users.code).toBe(Code.INVALID);
    expect(users.msg).toMatch(/table app_user in a domain backup/);
    // A version of d2's key slipped into d1's archive.
    const d2KeyId = d2Before.data.data[0]!.id;
    const version = await forge([
      {
        t: 'kms_key_version',
        r: { key_id: d2KeyId, version: 9, material_wrapped: null, created_at: '' },
        d: d1.domainId,
      },
    ]);
    expect(version.code).toBe(Code.INVALID);
    expect(version.msg).toMatch(/key version without its key/);

    expect(await a.database.db.selectFrom('app_user').select('id').execute()).toHaveLength(
      usersBefore.length,
    );
    expect((await call(a, api.key.list, { token: d1.token })).data.total).toBe(d1Before.data.total);
    expect((await call(a, api.key.list, { token: d2.token })).data.data.map((k) => k.id)).toEqual(
      d2Before.data.data.map((k) => k.id),
    );
  });

  it('writes again, at the next round of the backup job, a backup its node left half written', async () => {
    const started = await call(a, api.backup.create, {
      token,
      body: { scope: 'domain', description: 'cut' },
    });
    const done = await finished(a, token, started.data.id);
    // The job's round that wrote it has ended (a round writes every queued backup it finds).
    await a.services.jobs.trigger(BACKUP_JOB);
    // As if the node died while writing it: the row says backing up, a partial file is there.
    await a.database.db
      .updateTable('backup')
      .set({ status: 'backing_up', progress: 40, size: 0, sha256: '' })
      .where('id', '=', done.id)
      .execute();
    const file = join(a.dataDir, 'backups', `${done.id}.kspb`);
    const { renameSync, existsSync, readFileSync } = await import('node:fs');
    renameSync(file, `${file}.part`);
    a = await a.restart();
    // Still queued: nothing failed it; the job's next round (after its interval) writes it.
    const queued = await call(a, api.backup.detail, { token, query: { id: done.id } });
    expect(queued.data.status).toBe('backing_up');
    a.clock.advance(16);
    await a.services.jobs.runDue();
    const after = await finished(a, token, done.id);
    expect(after).toMatchObject({ status: 'completed', progress: 100, error: null });
    expect(existsSync(`${file}.part`)).toBe(false);
    const bytes = readFileSync(file);
    expect(after.size).toBe(bytes.length);
    expect(after.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    // And it restores.
    const restored = await call(a, api.backup.restore, { token, body: { id: done.id } });
    expect(restored.code, restored.msg).toBe(0);
  });

  it("answers a failed backup in the reader's language", async () => {
    // The backup key is gone by the time the job writes the archive.
    const started = await call(a, api.backup.create, {
      token,
      body: { scope: 'domain', description: 'no key' },
    });
    await finished(a, token, started.data.id);
    await a.services.jobs.trigger(BACKUP_JOB);
    await a.database.db
      .updateTable('backup')
      .set({ status: 'backing_up', backup_key_id: 'gone-key' })
      .where('id', '=', started.data.id)
      .execute();
    a.clock.advance(16);
    await a.services.jobs.runDue();
    const en = await finished(a, token, started.data.id);
    expect(en).toMatchObject({ status: 'failed', error: 'Backup key gone-key not found' });
    const zh = await call(a, api.backup.detail, { token, lang: 'zh', query: { id: started.data.id } });
    expect(zh.data.error).toBe(formatMessage('backup.keyNotFound', 'zh', { id: 'gone-key' }));
    expect(zh.data.error).not.toBe(en.error);
  });

  it("keeps a removed domain's backup keys within reach of the root domain alone, to restore it", async () => {
    const late = await domainWithAdmin(a, token, {
      domain: 'late',
      username: 'lateadmin',
      password: 'Late-Admin-Pass-1',
    });
    const key = await call(a, api.backupKey.create, {
      token: late.token,
      body: { name: 'late-key', scope: 'domain' },
    });
    expect(key.code, key.msg).toBe(0);
    const made = await newKey(late.token, 'late-aes');
    const plain = 'secret of a removed domain';
    const enc = await call(a, api.crypto.encrypt, {
      token: late.token,
      body: { key_id: made.data.id, plaintext: b64(plain) },
    });
    const started = await call(a, api.backup.create, {
      token: late.token,
      body: { scope: 'domain', description: 'late domain' },
    });
    expect(started.code, started.msg).toBe(0);
    const backup = await finished(a, token, started.data.id);
    expect(backup.status).toBe('completed');
    expect(backup.backup_key_id).toBe(key.data.id);
    // The domain is emptied and removed: its key, its administrator, then the domain.
    const user = await a.database.db
      .selectFrom('app_user')
      .select('id')
      .where('username', '=', 'lateadmin')
      .executeTakeFirstOrThrow();
    expect((await call(a, api.user.delete, { token, body: { ids: [user.id] } })).code).toBe(0);
    await a.database.db.deleteFrom('kms_key_version').where('key_id', '=', made.data.id).execute();
    await a.database.db.deleteFrom('kms_key').where('id', '=', made.data.id).execute();
    const removed = await call(a, api.domain.delete, { token, body: { ids: [late.domainId] } });
    expect(removed.code, removed.msg).toBe(0);

    // The root domain sees the key, marked as orphaned; no domain administrator does.
    const rootList = await call(a, api.backupKey.list, { token, query: { page_size: 100 } });
    const orphan = rootList.data.data.find((k) => k.id === key.data.id);
    expect(orphan).toMatchObject({ name: 'late-key', scope: 'domain', domain: 'late', orphaned: true });
    expect(rootList.data.data.filter((k) => k.id !== key.data.id).every((k) => !k.orphaned)).toBe(true);
    const d1List = await call(a, api.backupKey.list, { token: d1.token, query: { page_size: 100 } });
    expect(d1List.data.data.map((k) => k.id)).not.toContain(key.data.id);
    const d1Download = await call(a, api.backupKey.download, {
      token: d1.token,
      body: { id: key.data.id, password: 'Some-Pass-word-1', hint: '' },
    });
    expect(d1Download.code).toBe(Code.NOT_FOUND);

    // With it, the root domain restores the removed domain: its key decrypts as before.
    const restored = await call(a, api.backup.restore, { token, body: { id: backup.id } });
    expect(restored.code, restored.msg).toBe(0);
    const domains = await a.database.db.selectFrom('domain').select(['id', 'name']).execute();
    expect(domains.find((d) => d.name === 'late')?.id).toBe(late.domainId);
    const back = await a.database.db
      .selectFrom('kms_key')
      .select('id')
      .where('id', '=', made.data.id)
      .executeTakeFirst();
    expect(back?.id).toBe(made.data.id);
    // The key is the domain's again: its administrators see it, the root domain no longer does.
    const after = await call(a, api.backupKey.list, { token, query: { page_size: 100 } });
    expect(after.data.data.map((k) => k.id)).not.toContain(key.data.id);
    const newAdmin = await call(a, api.user.create, {
      token,
      body: {
        username: 'lateadmin2',
        password: 'Late-Admin-Pass-2',
        email: 'lateadmin2@example.test',
        role_ids: [await roleIdByName(a.database.db, 'Administrator')],
        domain_ids: [late.domainId],
        must_change_password: false,
      },
    });
    expect(newAdmin.code, newAdmin.msg).toBe(0);
    const lateToken = await login(a, 'lateadmin2', 'Late-Admin-Pass-2');
    expect(enc.code, enc.msg).toBe(0);
    const dec = await call(a, api.crypto.decrypt, {
      token: lateToken,
      body: { ciphertext: enc.data.ciphertext },
    });
    expect(dec.code, dec.msg).toBe(0);
    expect(text(dec.data.plaintext)).toBe(plain);
    const lateList = await call(a, api.backupKey.list, { token: lateToken, query: { page_size: 100 } });
    expect(lateList.data.data.find((k) => k.id === key.data.id)).toMatchObject({ orphaned: false });
    // Its deletion is refused while it alone opens a backup.
    const del = await call(a, api.backupKey.delete, { token: lateToken, body: { ids: [key.data.id] } });
    expect(del.code).toBe(Code.STATE_FORBIDS);
    expect(del.msg).toMatch(/only key able to open/);
  });

  it('keeps the kind of external certificates, and restores those of a backup written before kinds as CAs', async () => {
    const kinds = await domainWithAdmin(a, token, {
      domain: 'kinds',
      username: 'kindsadmin',
      password: 'Kinds-Admin-Pass-1',
    });
    const dir = mkdtempSync(join(tmpdir(), 'ksp-kinds-'));
    try {
      const certificate = async (name: string, ca: boolean) => {
        await makeSelfSignedEc({ key: `${name}.key`, cert: `${name}.pem`, cn: name, days: 2, ca, cwd: dir });
        return readFileSync(join(dir, `${name}.pem`), 'utf8');
      };
      const upload = async (content: string, kind: 'ca' | 'certificate') => {
        const added = await call(a, api.cert.externalUpload, { token: kinds.token, body: { content, kind } });
        expect(added.code, added.msg).toBe(0);
        return added.data.added[0]!;
      };
      const listed = async () =>
        Object.fromEntries(
          (await call(a, api.cert.externalList, { token: kinds.token })).data.data.map((r) => [
            r.name,
            r.kind,
          ]),
        );
      const ca = await upload(await certificate('kinds-ca', true), 'ca');
      await upload(await certificate('kinds-leaf', false), 'certificate');
      expect(
        await call(a, api.backupKey.create, {
          token: kinds.token,
          body: { name: 'kinds-key', scope: 'domain' },
        }),
      ).toMatchObject({ code: 0 });
      const started = await call(a, api.backup.create, { token: kinds.token, body: { scope: 'domain' } });
      expect(started.code, started.msg).toBe(0);
      expect((await finished(a, kinds.token, started.data.id)).status).toBe('completed');
      await a.database.db.deleteFrom('cert_external').where('domain_id', '=', kinds.domainId).execute();
      const restored = await call(a, api.backup.restore, {
        token: kinds.token,
        body: { id: started.data.id },
      });
      expect(restored.code, restored.msg).toBe(0);
      expect(await listed()).toEqual({ 'kinds-ca': 'ca', 'kinds-leaf': 'certificate' });

      // A backup of an older KSP has no kind: every external certificate was a CA's then. Before
      // migration 039 a serial with its top bit set could be stored with DER's leading zero octet.
      const row = await a.database.db
        .selectFrom('cert_external')
        .selectAll()
        .where('id', '=', ca.id)
        .executeTakeFirstOrThrow();
      const { kind: _kind, ...older } = row;
      const old = await forgedRestore(kinds, 'kinds', [
        { t: 'cert_external', r: { ...older, serial: '00F1E2D3' } },
      ]);
      expect(old.code, old.msg).toBe(0);
      expect(await listed()).toEqual({ 'kinds-ca': 'ca' });
      const serial = await a.database.db
        .selectFrom('cert_external')
        .select('serial')
        .where('id', '=', ca.id)
        .executeTakeFirstOrThrow();
      expect(serial.serial).toBe('F1E2D3');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
