import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code } from '@ksp/contracts';
import {
  ADMIN,
  call,
  domainWithAdmin,
  engines,
  initialize,
  login,
  startServer,
  type TestServer,
} from '../../test/harness.js';
import { auditRecords, plainActor, userWithRole } from '../../test/fixtures.js';
import {
  forbidPasswordChange,
  setPassword,
  startSshd,
  throwawayAccount,
  type Sshd,
} from '../../test/sshd.js';
import { licenseEverything, testLicenseKeys } from '../../test/license.js';
import { conflict } from '../../platform/errors.js';
import type { ModuleServices } from '../../platform/module.js';
import { SERVER_ROTATION_JOB } from './ssh-server.module.js';
import { type SshClient } from './ssh-server.connection.js';
import { createSshServerService } from './ssh-server.service.js';
import { SshError } from './ssh-server.ssh.js';

/** The throwaway sshd is on loopback: this suite lets the server connect there. */
const SSH_ENV = { KSP_SSH_ALLOWED_NETWORKS: '127.0.0.1/32', KSP_SSH_TIMEOUT_S: '3' };
const ACCOUNT = `ksp-sms-${process.pid % 100000}`;
const FIRST_PASSWORD = 'First-pw-9q7x!Kd';

/** Whether the account logs in to the sshd with this password (the host key is not checked here). */
function canLogin(port: number, password: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = new Client();
    c.on('ready', () => {
      c.end();
      resolve(true);
    });
    c.on('error', () => resolve(false));
    c.connect({
      host: '127.0.0.1',
      port,
      username: ACCOUNT,
      password,
      tryKeyboard: false,
      readyTimeout: 10_000,
    });
  });
}

let sshd: Sshd;
let removeAccount: () => void;
let keyDir: string;
let privateKey: string;

beforeAll(async () => {
  removeAccount = throwawayAccount(ACCOUNT, FIRST_PASSWORD);
  sshd = await startSshd();
  keyDir = mkdtempSync(join(tmpdir(), 'ksp-sms-key-'));
  const keygen = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(keyDir, 'id')], {
    encoding: 'utf8',
  });
  if (keygen.status !== 0) throw new Error(`ssh-keygen: ${keygen.stderr}`);
  privateKey = readFileSync(join(keyDir, 'id'), 'utf8');
  sshd.authorize(ACCOUNT, readFileSync(join(keyDir, 'id.pub'), 'utf8'));
});
afterAll(async () => {
  await sshd?.stop();
  removeAccount?.();
  if (keyDir) rmSync(keyDir, { recursive: true, force: true });
});

describe.each(await engines())('servers and root credentials on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let credentialId: string;
  let serverId: string;

  beforeAll(async () => {
    // More servers than the community limit of SMS servers (1) allows, while the clock moves on.
    const licenseKeys = testLicenseKeys();
    server = await startServer(engine, {
      ...SSH_ENV,
      KSP_LICENSE_TEST_PUBLIC_KEY: licenseKeys.publicKeyBase64,
    });
    ({ token } = await initialize(server));
    await licenseEverything(server, token, licenseKeys, 3650);
    setPassword(ACCOUNT, FIRST_PASSWORD);
    const cred = await call(server, api.credential.create, {
      token,
      body: { name: 'web-1 root', type: 'password', value: FIRST_PASSWORD },
    });
    expect(cred.code, cred.msg).toBe(0);
    credentialId = cred.data.id;
  });
  afterAll(async () => {
    await server?.close();
  });

  const audits = (action: string) => auditRecords(server, action);
  const current = async () =>
    (await call(server, api.credential.detail, { token, query: { id: credentialId } })).data.current_version;
  const reveal = async () => {
    const r = await call(server, api.credential.reveal, {
      token,
      body: { id: credentialId, password: ADMIN.password },
    });
    expect(r.code, r.msg).toBe(0);
    return r.data.value;
  };
  const serverBody = (name: string, fingerprint: string | null) => ({
    name,
    host: '127.0.0.1',
    port: sshd.port,
    account: ACCOUNT,
    credential_id: credentialId,
    host_key_fingerprint: fingerprint,
  });

  it('fetches the host key fingerprint without logging in, and pins it only when the host presents it', async () => {
    const fetched = await call(server, api.sshServer.fetchFingerprint, {
      token,
      body: { host: '127.0.0.1', port: sshd.port },
    });
    expect(fetched.code, fetched.msg).toBe(0);
    expect(fetched.data).toEqual({ fingerprint: sshd.fingerprint, key_type: 'ssh-ed25519', pinned: null });

    const wrong = `SHA256:${'A'.repeat(43)}`;
    const refused = await call(server, api.sshServer.create, { token, body: serverBody('web-1', wrong) });
    expect(refused.code).toBe(Code.STATE_FORBIDS);
    expect(refused.msg).toContain(sshd.fingerprint);
    expect(refused.msg).toContain(wrong);
    expect((await audits('server.create'))[0]).toMatchObject({
      result: 'failure',
      target: 'web-1',
      severity: 'ERROR',
    });

    const made = await call(server, api.sshServer.create, {
      token,
      body: serverBody('web-1', sshd.fingerprint),
    });
    expect(made.code, made.msg).toBe(0);
    expect(made.data).toMatchObject({
      name: 'web-1',
      port: sshd.port,
      os: 'linux',
      account: ACCOUNT,
      auth_type: 'password',
      credential_name: 'web-1 root',
      host_key_fingerprint: sshd.fingerprint,
      host_key_type: 'ssh-ed25519',
      rotation_enabled: false,
      last_rotation_result: null,
    });
    serverId = made.data.id;
    // The credential now names its server.
    expect(
      (await call(server, api.credential.detail, { token, query: { id: credentialId } })).data.server_id,
    ).toBe(serverId);
    const list = await call(server, api.sshServer.list, {
      token,
      query: { page: 1, page_size: 10, name: 'web' },
    });
    expect(list.data.total).toBe(1);
    expect(list.data.data[0]!.id).toBe(serverId);
    expect((await call(server, api.sshServer.create, { token, body: serverBody('web-1', null) })).code).toBe(
      Code.CONFLICT,
    );
    // One server per credential: two rotating one password would overwrite each other.
    const shared = await call(server, api.sshServer.create, { token, body: serverBody('web-1-again', null) });
    expect(shared.code).toBe(Code.CONFLICT);
    expect(shared.msg).toBe('credential_id: credential web-1 root is already the credential of server web-1');
  });

  it('refuses to connect before a fingerprint is confirmed, then pins the confirmed one', async () => {
    const own = await call(server, api.credential.create, {
      token,
      body: { name: 'unpinned pw', type: 'password', value: FIRST_PASSWORD },
    });
    const made = await call(server, api.sshServer.create, {
      token,
      body: { ...serverBody('web-unpinned', null), credential_id: own.data.id },
    });
    expect(made.code, made.msg).toBe(0);
    expect(made.data.host_key_fingerprint).toBeNull();
    const test = await call(server, api.sshServer.test, { token, body: { id: made.data.id } });
    expect(test.code).toBe(Code.STATE_FORBIDS);
    expect(test.msg).toMatch(/no confirmed host key/);
    const confirmed = await call(server, api.sshServer.confirmFingerprint, {
      token,
      body: { id: made.data.id, fingerprint: sshd.fingerprint },
    });
    expect(confirmed.code, confirmed.msg).toBe(0);
    expect(confirmed.data.host_key_fingerprint).toBe(sshd.fingerprint);
    expect((await call(server, api.sshServer.test, { token, body: { id: made.data.id } })).code).toBe(0);
    expect(
      (await call(server, api.sshServer.delete, { token, body: { ids: [made.data.id] } })).data.deleted,
    ).toBe(1);
  });

  it('tests the connection with the stored credential and says why one fails', async () => {
    const ok = await call(server, api.sshServer.test, { token, body: { id: serverId } });
    expect(ok.code, ok.msg).toBe(0);
    expect(ok.data.output).toMatch(new RegExp(`^uid=\\d+\\(${ACCOUNT}\\)`));

    // A wrong password: authentication refused.
    const bad = await call(server, api.credential.create, {
      token,
      body: { name: 'wrong pw', type: 'password', value: 'Not-The-Password-1' },
    });
    const badServer = await call(server, api.sshServer.create, {
      token,
      body: { ...serverBody('web-bad-pw', sshd.fingerprint), credential_id: bad.data.id },
    });
    expect(badServer.code, badServer.msg).toBe(0);
    const refused = await call(server, api.sshServer.test, { token, body: { id: badServer.data.id } });
    expect(refused.code).toBe(Code.STATE_FORBIDS);
    expect(refused.msg).toBe(`The server refused the login of ${ACCOUNT} with credential wrong pw`);
    const zh = await call(server, api.sshServer.test, { token, lang: 'zh', body: { id: badServer.data.id } });
    expect(zh.msg).toContain('拒绝');

    // Nothing listens on that port: unreachable.
    const closed = await call(server, api.sshServer.fetchFingerprint, {
      token,
      body: { host: '127.0.0.1', port: 1 },
    });
    expect(closed.code).toBe(Code.STATE_FORBIDS);
    expect(closed.msg).toBe('No SSH server answered at 127.0.0.1:1');

    const trail = await audits('server.test');
    expect(trail.map((a) => a.result)).toEqual(['failure', 'success', 'success', 'failure', 'failure']);
    expect(JSON.parse(trail[3]!.details)).toMatchObject({ reason: 'server.authRefused' });
    await call(server, api.sshServer.delete, { token, body: { ids: [badServer.data.id] } });
    await call(server, api.credential.delete, { token, body: { ids: [bad.data.id] } });
  });

  it('logs in with a private key, and refuses to rotate a password it does not log in with', async () => {
    const key = await call(server, api.credential.create, {
      token,
      body: { name: 'web-1 key', type: 'ssh-private-key', value: privateKey },
    });
    expect(key.code, key.msg).toBe(0);
    // The auth type must match the credential's type.
    expect(
      (
        await call(server, api.sshServer.create, {
          token,
          body: { ...serverBody('k', null), credential_id: key.data.id },
        })
      ).code,
    ).toBe(Code.INVALID);
    const made = await call(server, api.sshServer.create, {
      token,
      body: {
        ...serverBody('web-1-key', sshd.fingerprint),
        auth_type: 'private-key',
        credential_id: key.data.id,
      },
    });
    expect(made.code, made.msg).toBe(0);
    const ok = await call(server, api.sshServer.test, { token, body: { id: made.data.id } });
    expect(ok.code, ok.msg).toBe(0);
    expect(ok.data.output).toContain(ACCOUNT);
    const rotate = await call(server, api.sshServer.rotate, { token, body: { id: made.data.id } });
    expect(rotate.code).toBe(Code.STATE_FORBIDS);
    expect(rotate.msg).toMatch(/logs in with a private key/);
    await call(server, api.sshServer.delete, { token, body: { ids: [made.data.id] } });
  });

  it('rotates now: the new password logs in, the old one is refused, and the credential has a new version', async () => {
    expect(await current()).toBe(1);
    const rotated = await call(server, api.sshServer.rotate, { token, body: { id: serverId } });
    expect(rotated.code, rotated.msg).toBe(0);
    expect(rotated.data).toMatchObject({
      trigger: 'manual',
      by: ADMIN.username,
      result: 'success',
      version: 2,
    });
    expect(await current()).toBe(2);
    const fresh = await reveal();
    expect(fresh).not.toBe(FIRST_PASSWORD);
    expect(fresh).toHaveLength(24);
    expect(await canLogin(sshd.port, fresh)).toBe(true);
    expect(await canLogin(sshd.port, FIRST_PASSWORD)).toBe(false);
    const detail = await call(server, api.sshServer.detail, { token, query: { id: serverId } });
    expect(detail.data).toMatchObject({ last_rotation_result: 'success' });
    // The password is nowhere but sealed: not in the history, the server row or the audit.
    const stored = JSON.stringify([
      await server.database.db.selectFrom('ssh_server_rotation').selectAll().execute(),
      await server.database.db.selectFrom('ssh_server').selectAll().execute(),
      await server.database.db.selectFrom('audit_log').selectAll().execute(),
    ]);
    expect(stored).not.toContain(fresh);
    expect(stored).not.toContain(FIRST_PASSWORD);
  });

  it('keeps the old version current when the target refuses the new password, and records why', async () => {
    const before = await reveal();
    // An alarm rule on failed rotations: the failure raises an alarm.
    const rule = await call(server, api.alarm.ruleCreate, {
      token,
      body: {
        name: 'rotation-failed',
        action: 'server.rotate',
        result: 'failure',
        threshold: 1,
        interval_seconds: 60,
      },
    });
    expect(rule.code, rule.msg).toBe(0);
    forbidPasswordChange(ACCOUNT);
    try {
      const refused = await call(server, api.sshServer.rotate, { token, body: { id: serverId } });
      expect(refused.code).toBe(Code.STATE_FORBIDS);
      expect(refused.msg).toMatch(/^The command LC_ALL=C passwd failed on the server/);
      expect(refused.msg).not.toContain(before);
    } finally {
      setPassword(ACCOUNT, before);
    }
    expect(await current()).toBe(2);
    expect(await reveal()).toBe(before);
    expect(await canLogin(sshd.port, before)).toBe(true);
    const history = await call(server, api.sshServer.rotations, {
      token,
      lang: 'zh',
      query: { id: serverId, page: 1, page_size: 10 },
    });
    expect(history.data.total).toBe(2);
    expect(history.data.data[0]).toMatchObject({ result: 'failure', version: null });
    expect(history.data.data[0]!.error).toContain('命令 LC_ALL=C passwd 在服务器上执行失败');
    expect(history.data.data[1]).toMatchObject({ result: 'success', version: 2 });
    const trail = await audits('server.rotate');
    expect(trail.at(-1)).toMatchObject({ result: 'failure', severity: 'ERROR' });
    expect(JSON.parse(trail.at(-1)!.details)).toMatchObject({ reason: 'server.commandFailed' });
    expect((await call(server, api.sshServer.detail, { token, query: { id: serverId } })).data).toMatchObject(
      {
        last_rotation_result: 'failure',
      },
    );
    // The round (the jobs timer may have run it already: one alarm either way).
    await server.services.alarms.evaluate();
    const raised = await call(server, api.alarm.list, { token, query: { page: 1, page_size: 5 } });
    expect(raised.data.total).toBe(1);
    expect(raised.data.data[0]).toMatchObject({ rule_name: 'rotation-failed' });
  });

  it('rotates on schedule once the rotation is due', async () => {
    const enabled = await call(server, api.sshServer.update, {
      token,
      body: { id: serverId, rotation_enabled: true, rotation_days: 7, rotation_hour: 3, rotation_length: 16 },
    });
    expect(enabled.code, enabled.msg).toBe(0);
    const due = enabled.data.next_rotation_at!;
    expect(new Date(due).getUTCHours()).toBe(3);
    // Not due yet: nothing happens.
    await server.services.jobs.trigger(SERVER_ROTATION_JOB);
    expect(await current()).toBe(2);
    server.clock.advance((Date.parse(due) - server.clock.now.getTime()) / 1000 + 60);
    token = await login(server, ADMIN.username, ADMIN.password);
    const outcome = await server.services.jobs.trigger(SERVER_ROTATION_JOB);
    expect(outcome?.result).toBe('success');
    expect(await current()).toBe(3);
    const fresh = await reveal();
    expect(fresh).toHaveLength(16);
    expect(await canLogin(sshd.port, fresh)).toBe(true);
    const history = await call(server, api.sshServer.rotations, {
      token,
      query: { id: serverId, page: 1, page_size: 1 },
    });
    expect(history.data.data[0]).toMatchObject({
      trigger: 'schedule',
      by: 'scheduler',
      result: 'success',
      version: 3,
    });
    const next = (await call(server, api.sshServer.detail, { token, query: { id: serverId } })).data
      .next_rotation_at!;
    expect(Date.parse(next)).toBeGreaterThan(Date.parse(due) + 6 * 86400_000);
  });

  it('refuses a host presenting another key, naming both fingerprints, and rotates nothing', async () => {
    const pinned = sshd.fingerprint;
    await sshd.replaceHostKey();
    const test = await call(server, api.sshServer.test, { token, body: { id: serverId } });
    expect(test.code).toBe(Code.STATE_FORBIDS);
    expect(test.msg).toContain('HOST KEY CHANGED');
    expect(test.msg).toContain(pinned);
    expect(test.msg).toContain(sshd.fingerprint);
    const rotate = await call(server, api.sshServer.rotate, { token, body: { id: serverId } });
    expect(rotate.code).toBe(Code.STATE_FORBIDS);
    expect(rotate.msg).toContain('HOST KEY CHANGED');
    expect(await current()).toBe(3);
    expect((await audits('server.test')).at(-1)).toMatchObject({ result: 'failure', severity: 'ERROR' });
    // The user confirms the new key: connections work again.
    const fetched = await call(server, api.sshServer.fetchFingerprint, { token, body: { id: serverId } });
    expect(fetched.data).toMatchObject({ fingerprint: sshd.fingerprint, pinned });
    const confirmed = await call(server, api.sshServer.confirmFingerprint, {
      token,
      body: { id: serverId, fingerprint: sshd.fingerprint },
    });
    expect(confirmed.code, confirmed.msg).toBe(0);
    expect((await call(server, api.sshServer.test, { token, body: { id: serverId } })).code).toBe(0);
  });

  it('keeps domains apart: another domain neither sees nor uses a server, nor links its credential', async () => {
    const other = await domainWithAdmin(server, token, {
      domain: 'other',
      username: 'other-admin',
      password: 'Other-Pass-1',
    });
    const t = other.token;
    const list = await call(server, api.sshServer.list, { token: t, query: { page: 1, page_size: 50 } });
    expect(list.data).toEqual({ data: [], total: 0 });
    for (const answer of [
      await call(server, api.sshServer.detail, { token: t, query: { id: serverId } }),
      await call(server, api.sshServer.test, { token: t, body: { id: serverId } }),
      await call(server, api.sshServer.rotate, { token: t, body: { id: serverId } }),
      await call(server, api.sshServer.update, { token: t, body: { id: serverId, name: 'stolen' } }),
      await call(server, api.sshServer.delete, { token: t, body: { ids: [serverId] } }),
      await call(server, api.sshServer.fetchFingerprint, { token: t, body: { id: serverId } }),
      await call(server, api.sshServer.rotations, {
        token: t,
        query: { id: serverId, page: 1, page_size: 5 },
      }),
    ])
      expect(answer.code).toBe(Code.NOT_FOUND);
    const stolen = await call(server, api.sshServer.create, { token: t, body: serverBody('mine', null) });
    expect(stolen.code).toBe(Code.INVALID);
    expect(stolen.msg).toMatch(/not found in this domain/);
    expect(await current()).toBe(3);
  });

  it('lets an Auditor read servers but neither test, rotate nor change them', async () => {
    const { token: aud } = await userWithRole(server, token, {
      role: 'Auditor',
      username: 'srv-auditor',
      password: 'Audit-Pass-1',
      email: 'sa@example.test',
    });
    expect(
      (await call(server, api.sshServer.list, { token: aud, query: { page: 1, page_size: 5 } })).data.total,
    ).toBe(1);
    expect((await call(server, api.sshServer.detail, { token: aud, query: { id: serverId } })).code).toBe(0);
    for (const answer of [
      await call(server, api.sshServer.test, { token: aud, body: { id: serverId } }),
      await call(server, api.sshServer.rotate, { token: aud, body: { id: serverId } }),
      await call(server, api.sshServer.update, { token: aud, body: { id: serverId, name: 'x' } }),
      await call(server, api.sshServer.create, { token: aud, body: serverBody('x', null) }),
      await call(server, api.sshServer.fetchFingerprint, { token: aud, body: { id: serverId } }),
    ])
      expect(answer.code).toBe(Code.FORBIDDEN);
    expect(await current()).toBe(3);
  });

  it('leaves the server without a credential when its credential is deleted, and deletes the server', async () => {
    const spare = await call(server, api.credential.create, {
      token,
      body: { name: 'spare', type: 'password', value: 'Spare-pw-1' },
    });
    const made = await call(server, api.sshServer.create, {
      token,
      body: { ...serverBody('web-spare', sshd.fingerprint), credential_id: spare.data.id },
    });
    await call(server, api.credential.delete, { token, body: { ids: [spare.data.id] } });
    const detail = await call(server, api.sshServer.detail, { token, query: { id: made.data.id } });
    expect(detail.data).toMatchObject({ credential_id: null, credential_name: null });
    const test = await call(server, api.sshServer.test, { token, body: { id: made.data.id } });
    expect(test.msg).toMatch(/has no credential/);
    const gone = await call(server, api.sshServer.delete, { token, body: { ids: [made.data.id, serverId] } });
    expect(gone.data.deleted).toBe(2);
    expect(await server.database.db.selectFrom('ssh_server_rotation').selectAll().execute()).toEqual([]);
    expect(
      (await call(server, api.credential.detail, { token, query: { id: credentialId } })).data.server_id,
    ).toBeNull();
  });
});

/**
 * When the server took the new password but the credential cannot (a new version stored
 * meanwhile, say), the old password is put back through the session still open; if that fails
 * too and the old one no longer logs in, the new one is kept as a version rather than lost.
 * SSH and the credential service are stand-ins here: a real sshd cannot be made to fail there.
 */
const firstEngine = (await engines())[0]!;
describe('a rotation that fails after the server changed its password', () => {
  let server: TestServer;
  let token: string;
  let serverId: string;
  let domainId: string;

  beforeAll(async () => {
    server = await startServer(firstEngine, SSH_ENV);
    ({ token } = await initialize(server));
    setPassword(ACCOUNT, FIRST_PASSWORD);
    const cred = await call(server, api.credential.create, {
      token,
      body: { name: 'stand-in', type: 'password', value: FIRST_PASSWORD },
    });
    const made = await call(server, api.sshServer.create, {
      token,
      body: {
        name: 'stand-in',
        host: '127.0.0.1',
        port: sshd.port,
        account: ACCOUNT,
        credential_id: cred.data.id,
        host_key_fingerprint: sshd.fingerprint,
      },
    });
    expect(made.code, made.msg).toBe(0);
    serverId = made.data.id;
    domainId = (
      await server.database.db
        .selectFrom('ssh_server')
        .select('domain_id')
        .where('id', '=', serverId)
        .executeTakeFirstOrThrow()
    ).domain_id;
  });
  afterAll(async () => {
    await server?.close();
  });

  function standIns(o: { restoreStatus: number; oldLogsIn: boolean }) {
    const commands: { command: string; input: string | undefined }[] = [];
    const commits: { from: number; value: string }[] = [];
    let changed = false;
    const ssh: SshClient = {
      fetchHostKey: () => Promise.resolve({ fingerprint: sshd.fingerprint, keyType: 'ssh-ed25519' }),
      login: (target) => {
        const ok =
          target.password === 'New-pw' || (target.password === 'Old-pw' && (!changed || o.oldLogsIn));
        return ok
          ? Promise.resolve({ end: () => undefined } as unknown as Client)
          : Promise.reject(new SshError({ kind: 'auth-refused' }));
      },
      exec: (_client, command, input) => {
        commands.push({ command, input });
        const restoring = commands.length > 1;
        if (!restoring) changed = true;
        return Promise.resolve({ status: restoring ? o.restoreStatus : 0, stdout: '', stderr: '' });
      },
    };
    const credentials = {
      describe: () =>
        Promise.resolve({ id: 'c', name: 'stand-in', type: 'password' as const, current_version: 2 }),
      openCurrent: () => Promise.resolve({ version: 1, value: 'Old-pw' }),
      generatePassword: () => ({ password: 'New-pw' }),
      link: () => Promise.resolve(),
      addRotatedVersion: (_a: unknown, _m: unknown, _id: string, from: number, value: string) => {
        commits.push({ from, value });
        return from === 1
          ? Promise.reject(conflict('credential.changed', { name: 'stand-in' }))
          : Promise.resolve(from + 1);
      },
    } as unknown as ModuleServices['credentials'];
    const service = createSshServerService({
      db: server.database.db,
      clock: () => server.clock.now,
      credentials: () => credentials,
      ssh,
    });
    const actor = plainActor({ userId: '', username: 'tester', domainId, domainName: 'root' });
    const rotate = () => service.rotate(actor, { ip: '', lang: 'en', userAgent: '' }, serverId);
    return { rotate, commands, commits };
  }

  it('puts the old password back and keeps the old version current', async () => {
    const s = standIns({ restoreStatus: 0, oldLogsIn: false });
    await expect(s.rotate()).rejects.toMatchObject({ messageKey: 'credential.changed' });
    expect(s.commands).toEqual([
      { command: 'LC_ALL=C passwd', input: 'Old-pw\nNew-pw\nNew-pw\n' },
      { command: 'LC_ALL=C passwd', input: 'New-pw\nOld-pw\nOld-pw\n' },
    ]);
    expect(s.commits).toEqual([{ from: 1, value: 'New-pw' }]);
  });

  it('keeps the new password as a version when the old one cannot be put back', async () => {
    const s = standIns({ restoreStatus: 1, oldLogsIn: false });
    await expect(s.rotate()).rejects.toMatchObject({
      messageKey: 'server.restoreFailed',
      params: { version: 3 },
    });
    expect(s.commits).toEqual([
      { from: 1, value: 'New-pw' },
      { from: 2, value: 'New-pw' },
    ]);
    const history = await call(server, api.sshServer.rotations, {
      token,
      query: { id: serverId, page: 1, page_size: 1 },
    });
    expect(history.data.data[0]).toMatchObject({ result: 'failure', version: 3 });
    expect(history.data.data[0]!.error).toMatch(
      /putting the old one back failed: the new password was kept as credential version 3/,
    );
  });

  it('keeps nothing when the old password still logs in', async () => {
    const s = standIns({ restoreStatus: 1, oldLogsIn: true });
    await expect(s.rotate()).rejects.toMatchObject({ messageKey: 'credential.changed' });
    expect(s.commits).toEqual([{ from: 1, value: 'New-pw' }]);
  });
});
