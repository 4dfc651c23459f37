import { randomUUID } from 'node:crypto';
import { sign as cryptoSign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { api, Code } from '@ksp/contracts';
import {
  ADMIN,
  call,
  encodeUsername,
  engines,
  hashForLogin,
  login,
  type TestServer,
} from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';
import { selfSignedEc } from '../../test/openssl.js';

function ecCertificate(cn: string): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-ukey-'));
  selfSignedEc(dir, { key: 'k.pem', cert: 'c.pem', cn, days: 30 });
  const out = {
    cert: readFileSync(join(dir, 'c.pem'), 'utf8'),
    key: readFileSync(join(dir, 'k.pem'), 'utf8'),
  };
  rmSync(dir, { recursive: true, force: true });
  return out;
}

describe.each(await engines())('access management on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let roles: Record<string, string>;
  let rootId: string;

  signedInServer(engine, (started) => ({ server, token } = started), { each: true });
  beforeEach(async () => {
    const list = await call(server, api.role.list, { token, query: { page: 1, page_size: 20 } });
    roles = Object.fromEntries(list.data.data.map((r) => [r.name, r.id]));
    rootId = (await call(server, api.domain.list, { token, query: { page: 1, page_size: 20 } })).data.data[0]!
      .id;
  });

  const createUser = (name: string, role = 'Operator', extra: Record<string, unknown> = {}) =>
    call(server, api.user.create, {
      token,
      body: {
        username: name,
        password: 'User-Pass-1',
        email: `${name}@example.test`,
        role_ids: [roles[role]!],
        ...extra,
      },
    });

  it('creates users under the password policy, lists and filters them, and never deletes the last administrator', async () => {
    const weak = await createUser('weak', 'Operator', { password: 'abc' });
    expect(weak.code).toBe(Code.INVALID);
    const op = await createUser('olivia', 'Operator', {
      phone: '+86 138 0000 0000',
      must_change_password: false,
    });
    expect(op.code).toBe(0);
    expect(op.data).toMatchObject({
      username: 'olivia',
      roles: [{ name: 'Operator' }],
      domains: [{ name: 'root' }],
      must_change_password: false,
    });
    expect((await createUser('olivia')).code).toBe(Code.CONFLICT);
    expect((await createUser('a/b')).code).toBe(Code.INVALID);
    const badIp = await createUser('ipbad', 'Operator', { ip_whitelist: ['10.0.0.300'] });
    expect(badIp).toMatchObject({
      code: Code.INVALID,
      msg: 'ip_whitelist.0: must be an IPv4/IPv6 address or CIDR range',
    });

    const all = await call(server, api.user.list, { token, query: { page: 1, page_size: 20 } });
    expect(all.data.data.map((u) => u.username)).toEqual(['admin', 'olivia']);
    const byRole = await call(server, api.user.list, {
      token,
      query: { page: 1, page_size: 20, role_id: roles.Operator! },
    });
    expect(byRole.data.data.map((u) => u.username)).toEqual(['olivia']);
    const detail = await call(server, api.user.detailGroups, { token, body: { id: op.data.id } });
    expect(detail.data.phone).toBe('+86 138 0000 0000');

    const admin = all.data.data.find((u) => u.username === 'admin')!;
    expect((await call(server, api.user.delete, { token, body: { ids: [admin.id] } })).code).toBe(
      Code.STATE_FORBIDS,
    );
    const demote = await call(server, api.user.update, {
      token,
      body: { id: admin.id, role_ids: [roles.Auditor!] },
    });
    expect(demote).toMatchObject({
      code: Code.STATE_FORBIDS,
      msg: 'At least one user must keep the Administrator role',
    });
    const unassign = await call(server, api.role.unassign, {
      token,
      body: { id: roles.Administrator!, user_ids: [admin.id] },
    });
    expect(unassign.code).toBe(Code.STATE_FORBIDS);
    expect((await call(server, api.user.info, { token })).data.userinfo.roles).toEqual(['Administrator']);

    // With a second administrator, the first may be demoted.
    await call(server, api.role.assign, {
      token,
      body: { id: roles.Administrator!, user_ids: [op.data.id] },
    });
    expect(
      (
        await call(server, api.role.unassign, {
          token,
          body: { id: roles.Administrator!, user_ids: [admin.id] },
        })
      ).code,
    ).toBe(0);
    expect(
      (
        await call(server, api.user.delete, {
          token: await login(server, 'olivia', 'User-Pass-1'),
          body: { ids: [admin.id] },
        })
      ).code,
    ).toBe(0);
  });

  it('makes a user change the password at the next login: 4003 on everything else until then', async () => {
    const u = await createUser('nina');
    expect(u.data.must_change_password).toBe(true);
    const ninaToken = await login(server, 'nina', 'User-Pass-1');
    const info = await call(server, api.user.info, { token: ninaToken });
    expect(info.data.userinfo.must_change_password).toBe(true);
    const blocked = await call(server, api.dashboard.summary, { token: ninaToken });
    expect(blocked).toMatchObject({
      code: Code.PASSWORD_CHANGE_REQUIRED,
      msg: 'You must change your password before going on',
    });
    const changed = await call(server, api.user.updateMyPassword, {
      token: ninaToken,
      body: { old_password: 'User-Pass-1', new_password: 'Nina-Pass-2' },
    });
    expect(changed.code).toBe(0);
    expect((await call(server, api.dashboard.summary, { token: changed.data.token })).code).toBe(0);

    const reset = await call(server, api.user.updatePassword, {
      token,
      body: { id: u.data.id, password: 'Reset-Pass-3' },
    });
    expect(reset.code).toBe(0);
    expect((await call(server, api.user.info, { token: changed.data.token })).status).toBe(401);
    const again = await login(server, 'nina', 'Reset-Pass-3');
    expect((await call(server, api.dashboard.summary, { token: again })).code).toBe(
      Code.PASSWORD_CHANGE_REQUIRED,
    );
    await call(server, api.user.updatePasswordNextLogin, { token, body: { id: u.data.id, value: false } });
    expect((await call(server, api.dashboard.summary, { token: again })).code).toBe(0);
  });

  it('enforces the password policy: rules, expiry, minimum age, lockout and unlock', async () => {
    const bad = await call(server, api.passwordPolicy.update, {
      token,
      body: {
        min_length: 8,
        max_length: 6,
        min_lowercase: 1,
        min_uppercase: 1,
        min_digits: 1,
        min_special: 0,
        lockout_disabled: false,
        max_failed_attempts: 3,
        expiry_days: 0,
        min_change_days: 0,
      },
    });
    expect(bad).toMatchObject({ code: Code.INVALID, msg: 'min_length (8) must not exceed max_length (6)' });
    const policy = {
      min_length: 10,
      max_length: 32,
      min_lowercase: 1,
      min_uppercase: 1,
      min_digits: 1,
      min_special: 1,
      lockout_disabled: false,
      max_failed_attempts: 3,
      expiry_days: 30,
      min_change_days: 1,
    };
    expect((await call(server, api.passwordPolicy.update, { token, body: policy })).data).toMatchObject(
      policy,
    );
    expect((await call(server, api.user.passwordRules)).data).toMatchObject({
      min_length: 10,
      min_special: 1,
    });
    expect((await createUser('pia', 'Operator', { password: 'Userpass1' })).msg).toBe(
      'Password does not meet the rules! (at least 10 characters; at least 1 special character(s))',
    );
    const pia = await createUser('pia', 'Operator', {
      password: 'User-Pass-1!',
      must_change_password: false,
    });
    const piaToken = await login(server, 'pia', 'User-Pass-1!');
    const tooSoon = await call(server, api.user.updateMyPassword, {
      token: piaToken,
      body: { old_password: 'User-Pass-1!', new_password: 'Other-Pass-2!' },
    });
    expect(tooSoon.code).toBe(Code.STATE_FORBIDS);

    server.clock.advance(31 * 86_400);
    const expired = await login(server, 'pia', 'User-Pass-1!');
    expect((await call(server, api.user.info, { token: expired })).data.userinfo.must_change_password).toBe(
      true,
    );
    // The administrator's password expired too: the forced change comes first.
    const adminExpired = await login(server, ADMIN.username, ADMIN.password);
    expect(
      (await call(server, api.user.list, { token: adminExpired, query: { page: 1, page_size: 20 } })).code,
    ).toBe(Code.PASSWORD_CHANGE_REQUIRED);
    const renewedAdmin = await call(server, api.user.updateMyPassword, {
      token: adminExpired,
      body: { old_password: ADMIN.password, new_password: 'Admin-Pass-2!' },
    });
    expect(renewedAdmin.code).toBe(0);
    const adminToken = () => login(server, ADMIN.username, 'Admin-Pass-2!');

    for (let i = 0; i < 3; i++) {
      await call(server, api.user.login, {
        body: { username: encodeUsername('pia'), password: await hashForLogin('wrong') },
      });
    }
    const locked = await call(server, api.user.login, {
      body: { username: encodeUsername('pia'), password: await hashForLogin('User-Pass-1!') },
    });
    expect(locked.code).toBe(Code.ACCOUNT_LOCKED);
    const listed = await call(server, api.user.list, {
      token: await adminToken(),
      query: { page: 1, page_size: 20, status: 'locked' },
    });
    expect(listed.data.data.map((u) => u.username)).toEqual(['pia']);
    await call(server, api.user.unlock, { token: await adminToken(), body: { id: pia.data.id } });
    expect(await login(server, 'pia', 'User-Pass-1!')).toBeTruthy();

    await call(server, api.passwordPolicy.update, {
      token: await adminToken(),
      body: { ...policy, lockout_disabled: true },
    });
    for (let i = 0; i < 4; i++) {
      await call(server, api.user.login, {
        body: { username: encodeUsername('pia'), password: await hashForLogin('wrong') },
      });
    }
    expect(await login(server, 'pia', 'User-Pass-1!')).toBeTruthy();
  });

  it('enforces the IP whitelist at login and on every call (4004)', async () => {
    const u = await createUser('ivan', 'Operator', {
      must_change_password: false,
      ip_whitelist: ['10.1.0.0/16'],
    });
    const fromLoopback = await call(server, api.user.login, {
      body: { username: encodeUsername('ivan'), password: await hashForLogin('User-Pass-1') },
    });
    expect(fromLoopback).toMatchObject({
      code: Code.IP_NOT_ALLOWED,
      msg: 'Access from 127.0.0.1 is not allowed for this account',
    });
    await call(server, api.user.updateIp, {
      token,
      body: { id: u.data.id, ip_whitelist: ['127.0.0.0/8', '::1'] },
    });
    const ivanToken = await login(server, 'ivan', 'User-Pass-1');
    expect((await call(server, api.dashboard.summary, { token: ivanToken })).code).toBe(0);
    await call(server, api.user.updateIp, {
      token,
      body: { id: u.data.id, ip_whitelist: ['192.168.0.0/24'] },
    });
    expect((await call(server, api.dashboard.summary, { token: ivanToken })).code).toBe(Code.IP_NOT_ALLOWED);
  });

  it('issues app secrets shown once that applications trade for a session', async () => {
    const u = await createUser('app1', 'Operator', { must_change_password: false });
    const sdk = await call(server, api.user.sendSdkUser, { token, body: { id: u.data.id } });
    expect(sdk.data).toMatchObject({ username: 'app1', login_path: '/v1/ksp/open_api/app-login' });
    const rows = await server.database.db
      .selectFrom('app_user')
      .select('app_secret_hash')
      .where('username', '=', 'app1')
      .executeTakeFirstOrThrow();
    expect(rows.app_secret_hash).not.toContain(sdk.data.app_secret);
    const session = await call(server, api.user.appLogin, {
      body: { username: 'app1', app_secret: sdk.data.app_secret },
    });
    expect(session.code).toBe(0);
    expect((await call(server, api.user.info, { token: session.data.token })).data.userinfo.name).toBe(
      'app1',
    );
    const renewed = await call(server, api.user.updateSecret, { token, body: { id: u.data.id } });
    expect(renewed.data.app_secret).not.toBe(sdk.data.app_secret);
    const old = await call(server, api.user.appLogin, {
      body: { username: 'app1', app_secret: sdk.data.app_secret },
    });
    expect(old).toMatchObject({ code: Code.BAD_CREDENTIALS, msg: 'Incorrect username or app secret' });
    const opToken = await login(server, 'app1', 'User-Pass-1');
    const notMine = await call(server, api.user.updateSecret, {
      token: opToken,
      body: { id: (await call(server, api.user.info, { token })).data.userinfo.id },
    });
    expect(notMine.code).toBe(Code.FORBIDDEN);
  });

  it('limits KADP and SMS tokens to their sub-console', async () => {
    const kadp = await call(server, api.user.kadpToken, { token, body: {} });
    expect(kadp.code).toBe(0);
    const info = await call(server, api.user.info, { token: kadp.data.token });
    expect(info.code).toBe(0);
    expect(
      (await call(server, api.config.list, { token: kadp.data.token, query: { page: 1, page_size: 20 } }))
        .code,
    ).toBe(Code.FORBIDDEN);
    const sms = await call(server, api.user.ssmToken, { token, body: {} });
    expect((await call(server, api.dashboard.summary, { token: sms.data.token })).code).toBe(Code.FORBIDDEN);
  });

  it('manages custom roles from the permission tree; built-in roles are read-only', async () => {
    const tree = await call(server, api.role.permissionTree, { token });
    const keys = JSON.stringify(tree.data);
    expect(keys).toContain('"key:use"');
    expect(tree.data.map((g) => g.key)).toContain('group:access');
    const unknown = await call(server, api.role.create, {
      token,
      body: { name: 'Key custodian', permissions: ['key:read', 'key:fly'] },
    });
    expect(unknown).toMatchObject({ code: Code.INVALID, msg: "permissions: 'key:fly' is not a permission" });
    const created = await call(server, api.role.create, {
      token,
      body: {
        name: 'Key custodian',
        description: 'Reads keys',
        permissions: ['key:read', 'dashboard:read', 'key:read'],
      },
    });
    expect(created.data).toMatchObject({ type: 'custom', permissions: ['dashboard:read', 'key:read'] });
    const builtIn = await call(server, api.role.update, {
      token,
      body: { id: roles.Auditor!, permissions: ['key:read'] },
    });
    expect(builtIn.code).toBe(Code.STATE_FORBIDS);
    const u = await createUser('kate', 'Key custodian' in roles ? 'Key custodian' : 'Operator', {
      role_ids: [created.data.id],
      must_change_password: false,
    });
    const kate = await login(server, 'kate', 'User-Pass-1');
    const kateInfo = await call(server, api.user.info, { token: kate });
    expect(kateInfo.data.menu.map((m) => m.path)).toEqual([
      '/console/dashboard',
      '/console/key',
      '/console/key/detail/:id',
      '/kms',
    ]);
    expect(kateInfo.data.menu.find((m) => m.path === '/kms')?.children.map((c) => c.path)).toEqual([
      '/kms/key',
      '/kms/key/detail/:id',
    ]);
    expect(
      (await call(server, api.config.list, { token: kate, query: { page: 1, page_size: 20 } })).code,
    ).toBe(Code.FORBIDDEN);
    const inUse = await call(server, api.role.delete, { token, body: { ids: [created.data.id] } });
    expect(inUse.code).toBe(Code.CONFLICT);
    await call(server, api.user.delete, { token, body: { ids: [u.data.id] } });
    expect((await call(server, api.role.delete, { token, body: { ids: [created.data.id] } })).data).toEqual({
      deleted: 1,
    });
  });

  it('keeps domains apart: members, removal ends sessions there, delete only when empty', async () => {
    const fin = await call(server, api.domain.create, {
      token,
      body: { name: 'finance', description: 'Finance' },
    });
    const u = await createUser('fred', 'Operator', {
      domain_ids: [fin.data.id],
      must_change_password: false,
    });
    expect(u.data.domains.map((d) => d.name)).toEqual(['finance']);
    const fredToken = await login(server, 'fred', 'User-Pass-1');
    expect((await call(server, api.user.info, { token: fredToken })).data.userinfo.domain).toBe('finance');
    const adminId = (await call(server, api.user.info, { token })).data.userinfo.id;
    const notYet = await call(server, api.domain.users, { token, query: { id: fin.data.id } });
    expect(notYet.data.map((m) => m.name)).toEqual(['fred']);
    await call(server, api.user.domainAddUser, {
      token,
      body: { domain_id: fin.data.id, user_ids: [adminId] },
    });
    const members = await call(server, api.domain.users, { token, query: { id: fin.data.id } });
    expect(members.data.map((m) => m.name).sort()).toEqual(['admin', 'fred']);

    // From inside finance, root's users are not visible.
    const adminFin = await call(server, api.user.switchDomain, { token, body: { domain_name: 'finance' } });
    const seen = await call(server, api.user.list, {
      token: adminFin.data.token,
      query: { page: 1, page_size: 20 },
    });
    expect(seen.data.data.map((x) => x.username)).toEqual(['admin', 'fred']);
    const admin2 = await login(server, ADMIN.username, ADMIN.password);
    token = admin2; // the switch revoked the first token
    await createUser('rooty', 'Operator');
    const rootyId = (
      await call(server, api.user.list, {
        token: admin2,
        query: { page: 1, page_size: 20, username: 'rooty' },
      })
    ).data.data[0]!.id;
    expect(
      (await call(server, api.user.detailGroups, { token: adminFin.data.token, body: { id: rootyId } })).code,
    ).toBe(Code.NOT_FOUND);

    const notEmpty = await call(server, api.domain.delete, { token: admin2, body: { ids: [fin.data.id] } });
    expect(notEmpty.code).toBe(Code.CONFLICT);
    const lastDomain = await call(server, api.user.domainDeleteUser, {
      token: admin2,
      body: { domain_id: fin.data.id, user_ids: [u.data.id] },
    });
    expect(lastDomain.code).toBe(Code.STATE_FORBIDS);
    await call(server, api.user.domainAddUser, {
      token: admin2,
      body: { domain_id: rootId, user_ids: [u.data.id] },
    });
    const removed = await call(server, api.user.domainDeleteUser, {
      token: admin2,
      body: { domain_id: fin.data.id, user_ids: [u.data.id, adminId] },
    });
    expect(removed.data).toEqual({ removed: 2 });
    expect((await call(server, api.user.info, { token: fredToken })).status).toBe(401);
    expect((await call(server, api.domain.delete, { token: admin2, body: { ids: [rootId] } })).code).toBe(
      Code.STATE_FORBIDS,
    );
    // A TDE client group (or any other object of the domain) keeps the domain, named in the refusal.
    const at = new Date().toISOString();
    await server.database.db
      .insertInto('tde_client_group')
      .values({
        id: randomUUID(),
        domain_id: fin.data.id,
        name: 'g',
        description: '',
        profile: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    const withGroup = await call(server, api.domain.delete, { token: admin2, body: { ids: [fin.data.id] } });
    expect(withGroup.code).toBe(Code.CONFLICT);
    expect(withGroup.msg).toContain('1 object(s)');
    await server.database.db.deleteFrom('tde_client_group').where('domain_id', '=', fin.data.id).execute();
    expect(
      (await call(server, api.domain.delete, { token: admin2, body: { ids: [fin.data.id] } })).data,
    ).toEqual({ deleted: 1 });
  });

  it('handles registration tokens: secret once, expiry, capacity and clear refusals', async () => {
    const created = await call(server, api.registrationToken.create, {
      token,
      body: { name: 'cte-agents', usage: 'cte', capacity: 2 },
    });
    expect(created.data).toMatchObject({
      expires_at: '-',
      cert_validity_days: 365,
      capacity: 2,
      used: 0,
      remaining: 2,
      status: 'valid',
    });
    expect(created.data.secret).toMatch(/^ksprt_/);
    const listed = await call(server, api.registrationToken.list, {
      token,
      query: { page: 1, page_size: 20 },
    });
    expect(JSON.stringify(listed.data)).not.toContain(created.data.secret);
    const past = await call(server, api.registrationToken.create, {
      token,
      body: { name: 'old', usage: 'kadp', expires_at: '2020-01-01T00:00:00Z' },
    });
    expect(past.code).toBe(Code.INVALID);
    const redeem = (secret: string) =>
      server.database.db
        .transaction()
        .execute((trx) => server.services.registrationTokens.redeem(trx, secret, 'cte'));
    await redeem(created.data.secret);
    await redeem(created.data.secret);
    await expect(redeem(created.data.secret)).rejects.toMatchObject({
      code: Code.STATE_FORBIDS,
      messageKey: 'token.exhausted',
    });
    await expect(redeem('ksprt_nope')).rejects.toMatchObject({ code: Code.BAD_CREDENTIALS });
    const after = await call(server, api.registrationToken.list, {
      token,
      query: { page: 1, page_size: 20 },
    });
    expect(after.data.data[0]).toMatchObject({ used: 2, remaining: 0, status: 'exhausted' });
    const soon = await call(server, api.registrationToken.create, {
      token,
      body: {
        name: 'short',
        usage: 'cte',
        expires_at: new Date(server.clock.now.getTime() + 3600_000).toISOString(),
      },
    });
    server.clock.advance(7200);
    await expect(redeem(soon.data.secret)).rejects.toMatchObject({ messageKey: 'token.expired' });
    token = await login(server, ADMIN.username, ADMIN.password); // two idle hours ended the session
    const listedLater = await call(server, api.registrationToken.list, {
      token,
      query: { page: 1, page_size: 20, name: 'short' },
    });
    expect(listedLater.data.data[0]?.status).toBe('expired');
    const renewed = await call(server, api.registrationToken.renew, { token, body: { id: created.data.id } });
    expect(renewed.data.secret).not.toBe(created.data.secret);
    expect(
      (
        await call(server, api.registrationToken.delete, {
          token,
          body: { ids: [created.data.id, soon.data.id] },
        })
      ).data,
    ).toEqual({ deleted: 2 });
  });

  it('logs in with a UKEY when MFA is on: password, one-time challenge, signature', async () => {
    const { cert, key } = ecCertificate('admin-ukey');
    const me = (await call(server, api.user.info, { token })).data.userinfo;
    const bound = await call(server, api.user.bindUkey, {
      token,
      body: { serial: 'SN-0001', certificate: cert },
    });
    expect(bound.data).toMatchObject({ ukey_serial: 'SN-0001', subject: 'CN=admin-ukey' });
    const list = await call(server, api.config.list, { token, query: { page: 1, page_size: 20 } });
    await call(server, api.config.edit, {
      token,
      body: { id: list.data.data.find((e) => e.key === 'MFA')!.id, value: '1' },
    });

    const noPassword = await call(server, api.user.random, { query: { name: 'admin' } });
    expect(noPassword).toMatchObject({ code: Code.STATE_FORBIDS, msg: 'Sign in with your password first' });
    const step1 = await call(server, api.user.login, {
      body: { username: encodeUsername('admin'), password: await hashForLogin(ADMIN.password) },
    });
    expect(step1.code).toBe(Code.UKEY_REQUIRED);
    const challenge = await call(server, api.user.random, { query: { name: 'admin' } });
    expect(challenge.data.random).toMatch(/^[0-9a-f]{64}$/);
    const forged = cryptoSign('sha256', Buffer.from('something else'), key).toString('base64');
    const bad = await call(server, api.user.verify, { body: { name: 'admin', sign: forged } });
    expect(bad).toMatchObject({ code: Code.BAD_CREDENTIALS, msg: 'UKEY verification failed' });
    // The failed attempt spent the challenge: start again.
    await call(server, api.user.login, {
      body: { username: encodeUsername('admin'), password: await hashForLogin(ADMIN.password) },
    });
    const c2 = await call(server, api.user.random, { query: { name: 'admin' } });
    const p1363 = cryptoSign('sha256', Buffer.from(c2.data.random), {
      key,
      dsaEncoding: 'ieee-p1363',
    }).toString('base64');
    const ok = await call(server, api.user.verify, { body: { name: 'admin', sign: p1363 } });
    expect(ok.code).toBe(0);
    expect(ok.data.userinfo.id).toBe(me.id);
    const replay = await call(server, api.user.verify, { body: { name: 'admin', sign: p1363 } });
    expect(replay.code).toBe(Code.BAD_CREDENTIALS);

    await call(server, api.user.login, {
      body: { username: encodeUsername('admin'), password: await hashForLogin(ADMIN.password) },
    });
    const c3 = await call(server, api.user.random, { query: { name: 'admin' } });
    server.clock.advance(61);
    const late = cryptoSign('sha256', Buffer.from(c3.data.random), key).toString('base64');
    expect((await call(server, api.user.verify, { body: { name: 'admin', sign: late } })).code).toBe(
      Code.BAD_CREDENTIALS,
    );
    const badCert = await call(server, api.user.bindUkey, {
      token,
      body: { serial: 'x', certificate: 'not a cert' },
    });
    expect(badCert).toMatchObject({ code: Code.INVALID, msg: 'certificate: not a PEM X.509 certificate' });
  });
});
