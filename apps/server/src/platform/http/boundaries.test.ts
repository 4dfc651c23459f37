import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCalls, api, type CallDef, Code, tokensOf } from '@ksp/contracts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentAuthorization, agentKeyAndCsr } from '../../test/agent.js';
import { openssl } from '../../test/openssl.js';
import { finished } from '../../test/backup.js';
import { call, login, roleIdByName, type TestServer } from '../../test/harness.js';
import { licensedServer, testLicenseKeys } from '../../test/license.js';

/**
 * The cross-domain half of the authorization matrix, and the holes outside testing found
 * (issue 8), each as a named case. Domains: root, branch (B: the attacker's) and coast (C).
 * B's Administrator, Operator and Auditor try every call on users, memberships, roles,
 * registration tokens and keys of root and of C: every one is refused (4030 or 4040), and
 * every list they read is free of root's and C's names.
 */
const PASSWORD = 'Bound-Pass-1';

describe('domain boundaries', () => {
  let server: TestServer;
  let root: string; // the root administrator's token
  const domain: Record<string, string> = {};
  const user: Record<string, string> = {};
  const role: Record<string, string> = {};
  const regToken: Record<string, string> = {};
  const key: Record<string, string> = {};
  const ca: Record<string, string> = {};
  const cert: Record<string, string> = {};
  const external: Record<string, string> = {};
  const alarmRule: Record<string, string> = {};
  const alarm: Record<string, string> = {};
  const clientRecord: Record<string, string> = {};
  const credential: Record<string, string> = {};
  const task: Record<string, string> = {};
  const backupKey: Record<string, string> = {};
  const backup: Record<string, string> = {};
  const kadpClient: Record<string, string> = {};
  const sshServer: Record<string, string> = {};
  const sshSession: Record<string, string> = {};
  const tdeSet: Record<string, string> = {};
  const tdePolicy: Record<string, string> = {};
  const rdmPolicy: Record<string, string> = {};
  const tdeClient: Record<string, string> = {};
  /** A database client of each domain (docs/tde-database.md), key id 1 granted its key, and its token. */
  const dbClient: Record<string, string> = {};
  const dbToken: Record<string, string> = {};
  const rdmClient: Record<string, string> = {};
  const clientGroup: Record<string, string> = {};
  const guardPoint: Record<string, string> = {};
  const groupGuardPoint: Record<string, string> = {};
  let ukeyCsr: string;
  let adminId: string;

  const as = async (name: string) => login(server, name, PASSWORD);

  beforeAll(async () => {
    // A server of the SMS sub-console in each of two domains: more than the community limit (1).
    ({ server, token: root } = await licensedServer('sqlite', testLicenseKeys()));
    const db = server.database.db;
    adminId = (await call(server, api.user.info, { token: root })).data.userinfo.id;
    domain.root = (
      await db.selectFrom('domain').select('id').where('name', '=', 'root').executeTakeFirstOrThrow()
    ).id;
    for (const name of ['branch', 'coast'])
      domain[name] = (await call(server, api.domain.create, { token: root, body: { name } })).data.id;
    for (const name of ['Administrator', 'Operator', 'Auditor']) role[name] = await roleIdByName(db, name);
    const people: [string, string, string[]][] = [
      ['b-admin', 'Administrator', ['branch']],
      ['b-operator', 'Operator', ['branch']],
      ['b-auditor', 'Auditor', ['branch']],
      ['b-member', 'Operator', ['branch']],
      ['c-user', 'Operator', ['coast']],
      ['c-admin', 'Administrator', ['coast']],
      ['root-op', 'Operator', ['root']],
      ['root-and-b', 'Operator', ['root', 'branch']],
      ['b-and-c', 'Operator', ['branch', 'coast']],
    ];
    for (const [name, roleName, domains] of people) {
      const created = await call(server, api.user.create, {
        token: root,
        body: {
          username: name,
          password: PASSWORD,
          email: `${name}@example.test`,
          role_ids: [role[roleName]!],
          domain_ids: domains.map((d) => domain[d]!),
          must_change_password: false,
        },
      });
      expect(created.code).toBe(0);
      user[name] = created.data.id;
    }
    // Objects of root and of coast: a custom role, a registration token, a key each.
    for (const [where, token] of [
      ['root', root],
      ['coast', await as('c-admin')],
    ] as const) {
      role[`custom-${where}`] = (
        await call(server, api.role.create, {
          token,
          body: { name: `secret-role-${where}`, permissions: ['key:read'] },
        })
      ).data.id;
      await call(server, api.role.assign, {
        token,
        body: {
          id: role[`custom-${where}`]!,
          user_ids: [where === 'root' ? user['root-op']! : user['c-user']!],
        },
      });
      regToken[where] = (
        await call(server, api.registrationToken.create, {
          token,
          body: { name: `secret-token-${where}`, usage: 'cte' },
        })
      ).data.id;
      key[where] = (
        await call(server, api.key.create, {
          token,
          body: { name: `secret-key-${where}`, algorithm: 'AES-256', usage_mask: 0xc },
        })
      ).data.id;
      const dbMade = await call(server, api.tdeDatabase.create, {
        token,
        body: { name: `secret-db-${where}` },
      });
      expect(dbMade.code, dbMade.msg).toBe(0);
      [dbClient[where], dbToken[where]] = [dbMade.data.client.id, dbMade.data.token];
      const granted = await call(server, api.tdeDatabase.grant, {
        token,
        body: { id: dbMade.data.client.id, db_key_id: 1, key_id: key[where] },
      });
      expect(granted.code, granted.msg).toBe(0);
      credential[where] = (
        await call(server, api.credential.create, {
          token,
          body: { name: `secret-cred-${where}`, type: 'password', value: `secret-value-${where}` },
        })
      ).data.id;
      // A server of the SMS sub-console on that credential, with a recorded terminal session.
      const made = await call(server, api.sshServer.create, {
        token,
        body: {
          name: `secret-server-${where}`,
          host: '127.0.0.1',
          port: 22,
          account: 'root',
          credential_id: credential[where],
          terminal_users: ['admin', 'c-admin'],
        },
      });
      expect(made.code, made.msg).toBe(0);
      sshServer[where] = made.data.id;
      sshSession[where] = randomUUID();
      await db
        .insertInto('ssh_session')
        .values({
          id: sshSession[where],
          domain_id: where === 'root' ? domain.root : domain.coast!,
          server_id: made.data.id,
          user_id: adminId,
          user_name: `secret-session-user-${where}`,
          ip: '127.0.0.1',
          cols: 80,
          rows: 24,
          started_at: new Date().toISOString(),
          alive_at: new Date().toISOString(),
          ended_at: new Date().toISOString(),
          end_reason: 'closed',
          bytes_in: 0,
          bytes_out: 0,
          recording_bytes: 0,
          recording_truncated: 0,
        })
        .execute();
      // A scheduled rotation task, a domain backup key and a domain backup.
      task[where] = (
        await call(server, api.scheduler.create, {
          token,
          body: { name: `secret-task-${where}`, cron: '0 3 * * *', query: {} },
        })
      ).data.id;
      backupKey[where] = (
        await call(server, api.backupKey.create, {
          token,
          body: { name: `secret-bkey-${where}`, scope: 'domain', is_default: true },
        })
      ).data.id;
      const started = await call(server, api.backup.create, {
        token,
        body: { scope: 'domain', description: `secret-backup-${where}` },
      });
      expect(started.code, started.msg).toBe(0);
      backup[where] = (await finished(server, token, started.data.id)).id;
      // A local CA, a certificate it issued (with an exportable key) and an external CA.
      ca[where] = (
        await call(server, api.cert.caCreate, {
          token,
          body: { name: `secret-ca-${where}`, cn: `secret-ca-${where}` },
        })
      ).data.id;
      const rootCa = await call(server, api.cert.caSelfSign, { token, body: { id: ca[where] } });
      expect(rootCa.code).toBe(0);
      cert[where] = (
        await call(server, api.cert.issue, {
          token,
          body: {
            name: `secret-cert-${where}`,
            ca_id: ca[where],
            cn: `secret-cert-${where}`,
            exportable: true,
          },
        })
      ).data.id;
      // An agent with a client certificate of this CA uploads a record (client records).
      const agent = agentKeyAndCsr(`secret-agent-${where}`);
      const agentCert = await call(server, api.cert.issue, {
        token,
        body: { name: `secret-agent-${where}`, ca_id: ca[where], csr: agent.csr, purpose: 'client' },
      });
      const raw = JSON.stringify({
        client_name: `secret-client-${where}`,
        records: [
          {
            level: 'INFO',
            at: new Date().toISOString(),
            action: 'read',
            effect: 'deny',
            os_user: `secret-osuser-${where}`,
            resource: `/secret/${where}`,
          },
        ],
      });
      const uploaded = await server.app.inject({
        method: 'POST',
        url: api.clientLog.upload.path,
        headers: {
          'content-type': 'application/json',
          authorization: agentAuthorization({
            key: agent.key,
            certPem: agentCert.data.certificate_pem,
            body: raw,
            iat: Math.floor(server.clock.now.getTime() / 1000),
          }),
        },
        payload: raw,
      });
      expect(uploaded.json<{ code: number }>().code, uploaded.body).toBe(0);
      clientRecord[where] = (
        await call(server, api.clientLog.list, { token, query: { page: 1, page_size: 1 } })
      ).data.data[0]!.id;
      external[where] = (
        await call(server, api.cert.externalUpload, {
          token,
          body: { name: `secret-external-${where}`, content: rootCa.data.certificate_pem! },
        })
      ).data.added[0]!.id;
      // A KADP client enrolled with a token of this domain (client module).
      const kadpToken = await call(server, api.registrationToken.create, {
        token,
        body: { name: `secret-kadp-token-${where}`, usage: 'kadp' },
      });
      const enrolled = await call(server, api.client.enrol, {
        body: {
          token: kadpToken.data.secret,
          csr: agentKeyAndCsr(`secret-kadp-${where}`).csr,
          name: `secret-kadp-${where}`,
          type: 'kadp',
          host: `secret-kadp-host-${where}`,
        },
      });
      expect(enrolled.code, enrolled.msg).toBe(0);
      kadpClient[where] = enrolled.data.client_id;
      // A TDE policy element, a TDE and an RDM policy using it, a client profile (tde-policy).
      tdeSet[where] = (
        await call(server, api.tdePolicy.elementCreate, {
          token,
          body: { kind: 'process', name: `secret-tset-${where}`, processes: [{ directory: '/usr/bin' }] },
        })
      ).data.id;
      tdePolicy[where] = (
        await call(server, api.tdePolicy.policyCreate, {
          token,
          body: {
            name: `secret-tpol-${where}`,
            security_rules: [{ process_set_id: tdeSet[where], actions: ['read'], effects: ['permit'] }],
          },
        })
      ).data.id;
      rdmPolicy[where] = (
        await call(server, api.rdmPolicy.policyCreate, {
          token,
          body: {
            name: `secret-rpol-${where}`,
            rdm: {
              mode: 'block',
              trusted_process_set_ids: [tdeSet[where]],
              threshold: { files: 50, window_s: 10 },
            },
          },
        })
      ).data.id;
      expect(
        (await call(server, api.tdePolicy.profileCreate, { token, body: { name: `secret-tprof-${where}` } }))
          .code,
      ).toBe(0);
      // A TDE and an RDM client, a client group (TDE) and guard points (rwp: no policy needed).
      for (const type of ['tde', 'rdm'] as const) {
        const agentToken = await call(server, api.registrationToken.create, {
          token,
          body: { name: `secret-${type}-token-${where}`, usage: type === 'tde' ? 'cte' : 'rdm' },
        });
        const agent = await call(server, api.client.enrol, {
          body: {
            token: agentToken.data.secret,
            csr: agentKeyAndCsr(`secret-${type}-${where}`).csr,
            name: `secret-${type}-${where}`,
            type,
            host: `secret-${type}-host-${where}`,
          },
        });
        expect(agent.code, agent.msg).toBe(0);
        (type === 'tde' ? tdeClient : rdmClient)[where] = agent.data.client_id;
      }
      const group = await call(server, api.tdeClient.groupCreate, {
        token,
        body: { name: `secret-group-${where}` },
      });
      expect(group.code, group.msg).toBe(0);
      clientGroup[where] = group.data.id;
      const joined = await call(server, api.tdeClient.groupAddMembers, {
        token,
        body: { id: group.data.id, client_ids: [tdeClient[where]!] },
      });
      expect(joined.code, joined.msg).toBe(0);
      guardPoint[where] = (
        await call(server, api.rdmClient.guardPointCreate, {
          token,
          body: { client_id: rdmClient[where]!, path: `/secret-path-${where}`, type: 'rwp' },
        })
      ).data.id;
      groupGuardPoint[where] = (
        await call(server, api.tdeClient.guardPointCreate, {
          token,
          body: { group_id: group.data.id, path: `/secret-group-path-${where}`, type: 'rwp' },
        })
      ).data.id;
    }
    // A client group of the branch, into which an attacker would pull another domain's client.
    clientGroup.branch = (
      await call(server, api.tdeClient.groupCreate, {
        token: await as('b-admin'),
        body: { name: 'branch-group' },
      })
    ).data.id;
    // A database client of the branch, to which an attacker would grant another domain's key.
    dbClient.branch = (
      await call(server, api.tdeDatabase.create, { token: await as('b-admin'), body: { name: 'branch-db' } })
    ).data.client.id;
    // A credential of the branch, which an attacker would link to another domain's server.
    credential.branch = (
      await call(server, api.credential.create, {
        token: await as('b-admin'),
        body: { name: 'branch-cred', type: 'password', value: 'branch-value' },
      })
    ).data.id;
    // An alarm rule of root (every domain) and of coast, each with an alarm it raised.
    for (const [where, token] of [
      ['root', root],
      ['coast', await as('c-admin')],
    ] as const) {
      const made = await call(server, api.alarm.ruleCreate, {
        token,
        body: { name: `secret-rule-${where}`, action: 'key.create', threshold: 1, interval_seconds: 3600 },
      });
      expect(made.code, made.msg).toBe(0);
      alarmRule[where] = made.data.id;
    }
    expect(await server.services.alarms.evaluate()).toBe(2);
    for (const where of ['root', 'coast'])
      alarm[where] = (
        await db
          .selectFrom('alarm')
          .select('id')
          .where('rule_id', '=', alarmRule[where]!)
          .executeTakeFirstOrThrow()
      ).id;
    // A token's CSR, for UKEY certificates of other domains' users.
    const dir = mkdtempSync(join(tmpdir(), 'ksp-bound-'));
    openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:SM2', '-out', 'k.pem'], dir);
    openssl(['req', '-new', '-key', 'k.pem', '-sm3', '-subj', '/CN=stolen-ukey', '-out', 'ukey.csr'], dir);
    ukeyCsr = readFileSync(join(dir, 'ukey.csr'), 'utf8');
    rmSync(dir, { recursive: true, force: true });
    // The attacker's own pending CA, to be signed by another domain's CA.
    ca.branch = (
      await call(server, api.cert.caCreate, {
        token: await as('b-admin'),
        body: { name: 'branch-ca', cn: 'branch-ca' },
      })
    ).data.id;
  });
  afterAll(async () => server?.close());

  /** Every call on another domain's users, memberships and objects (target: root or coast). */
  function attacks(target: 'root' | 'coast', self: string): [string, CallDef, unknown][] {
    const victim = target === 'root' ? user['root-op']! : user['c-user']!;
    const shared = target === 'root' ? user['root-and-b']! : user['b-and-c']!;
    const d = domain[target]!;
    const r = role[`custom-${target}`]!;
    const k = key[target]!;
    const t = regToken[target]!;
    const attempts: [string, CallDef, unknown][] = [];
    for (const [who, id] of [
      ['victim', victim],
      ['shared member', shared],
    ] as const) {
      attempts.push(
        [`update ${who}`, api.user.update, { id, phone: '+1 555 0100' }],
        [`roles of ${who}`, api.user.update, { id, role_ids: [role.Administrator] }],
        [`delete ${who}`, api.user.delete, { ids: [id] }],
        [`password of ${who}`, api.user.updatePassword, { id, password: 'Taken-Over-1' }],
        [`password-next-login of ${who}`, api.user.updatePasswordNextLogin, { id, value: true }],
        [`unlock ${who}`, api.user.unlock, { id }],
        [`whitelist of ${who}`, api.user.updateIp, { id, ip_whitelist: ['10.0.0.0/8'] }],
        [`e-mail of ${who}`, api.user.updateEmail, { id, email: 'x@example.test' }],
        [`secret of ${who}`, api.user.updateSecret, { id }],
        [`sdk profile of ${who}`, api.user.sendSdkUser, { id }],
        [`bind ukey of ${who}`, api.user.bindUkey, { id, serial: 'S1', certificate: 'not a certificate' }],
        [`unbind ukey of ${who}`, api.user.unbindUkey, { id }],
        [`assign Administrator to ${who}`, api.role.assign, { id: role.Administrator, user_ids: [id] }],
        [`unassign Operator from ${who}`, api.role.unassign, { id: role.Operator, user_ids: [id] }],
      );
    }
    attempts.push(
      ['detail of victim', api.user.detailGroups, { id: victim }],
      ['take victim into branch', api.user.domainAddUser, { domain_id: domain.branch, user_ids: [victim] }],
      [`remove victim from ${target}`, api.user.domainDeleteUser, { domain_id: d, user_ids: [victim] }],
      [`join ${target}`, api.user.domainAddUser, { domain_id: d, user_ids: [self] }],
      [`rename ${target}`, api.domain.update, { id: d, description: 'owned' }],
      [`delete ${target}`, api.domain.delete, { ids: [d] }],
      [`members of ${target}`, api.domain.users, { id: d }],
      [`edit ${target}'s role`, api.role.update, { id: r, permissions: ['key:read', 'user:write'] }],
      [`delete ${target}'s role`, api.role.delete, { ids: [r] }],
      [`grant ${target}'s role`, api.role.assign, { id: r, user_ids: [user['b-member']!] }],
      [`give my app secret ${target}'s role`, api.user.updateSecret, { role_id: r }],
      [`update ${target}'s registration token`, api.registrationToken.update, { id: t, capacity: 9 }],
      [`renew ${target}'s registration token`, api.registrationToken.renew, { id: t }],
      [`delete ${target}'s registration token`, api.registrationToken.delete, { ids: [t] }],
      [`detail of ${target}'s key`, api.key.detail, { id: k }],
      [`versions of ${target}'s key`, api.key.versions, { id: k }],
      [`trail of ${target}'s key`, api.key.audit, { id: k }],
      [`update ${target}'s key`, api.key.update, { id: k, description: 'owned' }],
      [`disable ${target}'s key`, api.key.disable, { id: k }],
      [`delete ${target}'s key`, api.key.delete, { ids: [k] }],
      [`encrypt with ${target}'s key`, api.crypto.encrypt, { key_id: k, plaintext: 'aGk=' }],
      [`detail of ${target}'s CA`, api.cert.caDetail, { id: ca[target] }],
      [`self-sign ${target}'s CA`, api.cert.caSelfSign, { id: ca[target] }],
      [`sign my CA with ${target}'s CA`, api.cert.caSign, { id: ca.branch, parent_id: ca[target] }],
      [`install into ${target}'s CA`, api.cert.caInstall, { id: ca[target], certificate: 'x' }],
      [`rename ${target}'s CA`, api.cert.caUpdate, { id: ca[target], name: 'owned' }],
      [`make ${target}'s CA default`, api.cert.caUpdate, { id: ca[target], is_default: true }],
      [`delete ${target}'s CA`, api.cert.caDelete, { ids: [ca[target]] }],
      [`CSR of ${target}'s CA`, api.cert.caDownload, { id: ca[target], kind: 'csr' }],
      [`CRL of ${target}'s CA`, api.cert.caDownload, { id: ca[target], kind: 'crl-der' }],
      [`issue from ${target}'s CA`, api.cert.issue, { name: 'owned', ca_id: ca[target], cn: 'owned' }],
      [`detail of ${target}'s certificate`, api.cert.detail, { id: cert[target] }],
      [`revoke ${target}'s certificate`, api.cert.revoke, { id: cert[target], reason: 'keyCompromise' }],
      [`resume ${target}'s certificate`, api.cert.resume, { id: cert[target] }],
      [`delete ${target}'s certificate`, api.cert.delete, { ids: [cert[target]] }],
      [`certificate of ${target}`, api.cert.download, { id: cert[target], kind: 'cert-pem' }],
      [
        `private key of ${target}'s certificate`,
        api.cert.downloadKey,
        { id: cert[target], kind: 'key-pkcs12', password: 'stolen-pass-1' },
      ],
      [
        `UKEY certificate for ${target}'s user`,
        api.cert.ukeyIssue,
        { user_id: victim, ukey_type: 'SKF', algorithm: 'SM2', serial: 'S', csr: ukeyCsr },
      ],
      [`detail of ${target}'s external CA`, api.cert.externalDetail, { id: external[target] }],
      [`delete ${target}'s external CA`, api.cert.externalDelete, { ids: [external[target]] }],
      [`detail of ${target}'s credential`, api.credential.detail, { id: credential[target] }],
      [`rename ${target}'s credential`, api.credential.update, { id: credential[target], name: 'owned' }],
      [
        `new version of ${target}'s credential`,
        api.credential.addVersion,
        { id: credential[target], value: 'x' },
      ],
      [
        `reveal ${target}'s credential`,
        api.credential.reveal,
        { id: credential[target], version: 1, password: PASSWORD },
      ],
      [`delete ${target}'s credential`, api.credential.delete, { ids: [credential[target]] }],
      [
        `a credential on ${target}'s server`,
        api.credential.create,
        {
          name: `owned-link-${target === 'root' ? 'r' : 'c'}`,
          type: 'password',
          value: 'x',
          server_id: sshServer[target],
        },
      ],
      [
        `link my credential to ${target}'s server`,
        api.credential.update,
        { id: credential.branch, server_id: sshServer[target] },
      ],
      [`rename ${target}'s scheduled task`, api.scheduler.update, { id: task[target], name: 'owned' }],
      [`disable ${target}'s scheduled task`, api.scheduler.disable, { id: task[target] }],
      [`run ${target}'s scheduled task`, api.scheduler.runNow, { id: task[target] }],
      [
        `history of ${target}'s task`,
        api.scheduler.history,
        { id: task[target], page: '1', page_size: '10' },
      ],
      [`delete ${target}'s scheduled task`, api.scheduler.delete, { ids: [task[target]] }],
      [
        `download ${target}'s backup key`,
        api.backupKey.download,
        { id: backupKey[target], password: 'stolen-pass-1', hint: 'x' },
      ],
      [`make ${target}'s backup key default`, api.backupKey.setDefault, { id: backupKey[target] }],
      [`delete ${target}'s backup key`, api.backupKey.delete, { ids: [backupKey[target]] }],
      [
        `back up under ${target}'s backup key`,
        api.backup.create,
        { scope: 'domain', backup_key_id: backupKey[target] },
      ],
      [`detail of ${target}'s backup`, api.backup.detail, { id: backup[target] }],
      [`download ${target}'s backup`, api.backup.download, { id: backup[target] }],
      [`restore ${target}'s backup`, api.backup.restore, { id: backup[target] }],
      [`delete ${target}'s backup`, api.backup.delete, { ids: [backup[target]] }],
      [`disable ${target}'s alarm rule`, api.alarm.ruleUpdate, { id: alarmRule[target], enabled: false }],
      [`delete ${target}'s alarm rule`, api.alarm.ruleDelete, { ids: [alarmRule[target]] }],
      [`acknowledge ${target}'s alarm`, api.alarm.acknowledge, { ids: [alarm[target]] }],
      [`detail of ${target}'s server`, api.sshServer.detail, { id: sshServer[target] }],
      [`edit ${target}'s server`, api.sshServer.update, { id: sshServer[target], host: '203.0.113.9' }],
      [`delete ${target}'s server`, api.sshServer.delete, { ids: [sshServer[target]] }],
      [`host key of ${target}'s server`, api.sshServer.fetchFingerprint, { id: sshServer[target] }],
      [
        `pin a host key on ${target}'s server`,
        api.sshServer.confirmFingerprint,
        { id: sshServer[target], fingerprint: 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
      ],
      [`test ${target}'s server`, api.sshServer.test, { id: sshServer[target] }],
      [`rotate ${target}'s server`, api.sshServer.rotate, { id: sshServer[target] }],
      [
        `rotations of ${target}'s server`,
        api.sshServer.rotations,
        { id: sshServer[target], page: 1, page_size: 10 },
      ],
      [
        `sessions of ${target}'s server`,
        api.sshServer.sessions,
        { id: sshServer[target], page: 1, page_size: 10 },
      ],
      [`recording of ${target}'s session`, api.sshServer.recording, { id: sshSession[target] }],
      [`terminal on ${target}'s server`, api.sshServer.terminalTicket, { id: sshServer[target] }],
      [`detail of ${target}'s KADP client`, api.client.detail, { id: kadpClient[target] }],
      [
        `operations of ${target}'s KADP client`,
        api.kadpOps.operations,
        { id: kadpClient[target], page: 1, page_size: 10 },
      ],
      [`revoke ${target}'s KADP client`, api.client.revoke, { id: kadpClient[target] }],
      [`renew ${target}'s KADP client`, api.client.renew, { id: kadpClient[target] }],
      [`delete ${target}'s KADP client`, api.client.delete, { id: kadpClient[target] }],
      [`force-delete ${target}'s KADP client`, api.client.forceDelete, { id: kadpClient[target] }],
      [`detail of ${target}'s policy element`, api.tdePolicy.elementDetail, { id: tdeSet[target] }],
      [`RDM detail of ${target}'s policy element`, api.rdmPolicy.elementDetail, { id: tdeSet[target] }],
      [
        `update ${target}'s policy element`,
        api.tdePolicy.elementUpdate,
        { id: tdeSet[target], name: 'owned', processes: [{ file: 'owned' }] },
      ],
      [`delete ${target}'s policy element`, api.tdePolicy.elementDelete, { id: tdeSet[target] }],
      [`detail of ${target}'s policy`, api.tdePolicy.policyDetail, { id: tdePolicy[target] }],
      [`update ${target}'s policy`, api.tdePolicy.policyUpdate, { id: tdePolicy[target], name: 'owned' }],
      [`delete ${target}'s policy`, api.tdePolicy.policyDelete, { id: tdePolicy[target] }],
      [`detail of ${target}'s RDM policy`, api.rdmPolicy.policyDetail, { id: rdmPolicy[target] }],
      [
        `update ${target}'s RDM policy`,
        api.rdmPolicy.policyUpdate,
        {
          id: rdmPolicy[target],
          name: 'owned',
          rdm: { mode: 'audit', trusted_process_set_ids: [], threshold: { files: 50, window_s: 10 } },
        },
      ],
      [`delete ${target}'s RDM policy`, api.rdmPolicy.policyDelete, { id: rdmPolicy[target] }],
      [
        `detail of ${target}'s client profile`,
        api.tdePolicy.profileDetail,
        { name: `secret-tprof-${target}` },
      ],
      [
        `update ${target}'s client profile`,
        api.tdePolicy.profileUpdate,
        { name: `secret-tprof-${target}`, description: 'owned' },
      ],
      [`delete ${target}'s client profile`, api.tdePolicy.profileDelete, { name: `secret-tprof-${target}` }],
      ...(['tdeClient', 'rdmClient'] as const).flatMap((area) => {
        const c = api[area];
        const id = (area === 'tdeClient' ? tdeClient : rdmClient)[target];
        return [
          [`detail of ${target}'s ${area}`, c.detail, { id }],
          [`revoke ${target}'s ${area}`, c.revoke, { id }],
          [`renew ${target}'s ${area}`, c.renew, { id }],
          [`delete ${target}'s ${area}`, c.delete, { id }],
          [`force-delete ${target}'s ${area}`, c.forceDelete, { id }],
          [`set the profile of ${target}'s ${area}`, c.setProfile, { id, profile: null }],
          [`disable communication of ${target}'s ${area}`, c.setCommunication, { id, enabled: false }],
          [`guard points of ${target}'s ${area}`, c.guardPoints, { client_id: id }],
          [
            `guard a path on ${target}'s ${area}`,
            c.guardPointCreate,
            { client_id: id, path: '/owned', type: 'rwp' },
          ],
        ] as [string, CallDef, unknown][];
      }),
      [
        `disable ${target}'s guard point`,
        api.rdmClient.guardPointSetEnabled,
        { id: guardPoint[target], enabled: false },
      ],
      [`unguard ${target}'s guard point`, api.rdmClient.guardPointDelete, { id: guardPoint[target] }],
      [
        `disable ${target}'s group guard point`,
        api.tdeClient.guardPointSetEnabled,
        { id: groupGuardPoint[target], enabled: false },
      ],
      [
        `unguard ${target}'s group guard point`,
        api.tdeClient.guardPointDelete,
        { id: groupGuardPoint[target] },
      ],
      [`lock ${target}'s TDE client`, api.tdeClient.lock, { id: tdeClient[target], locked: true }],
      [
        `authorised binaries of ${target}'s TDE client`,
        api.tdeClient.authBinaries,
        { client_id: tdeClient[target] },
      ],
      [
        `set authorised binaries of ${target}'s TDE client`,
        api.tdeClient.authBinariesSet,
        { client_id: tdeClient[target], entries: [] },
      ],
      [
        `authorised binaries of ${target}'s client group`,
        api.tdeClient.authBinaries,
        { group_id: clientGroup[target] },
      ],
      [
        `set authorised binaries of ${target}'s client group`,
        api.tdeClient.authBinariesSet,
        { group_id: clientGroup[target], entries: [] },
      ],
      [
        `name ${target}'s policy element as a signature set in my group`,
        api.tdeClient.authBinariesSet,
        {
          group_id: clientGroup.branch,
          entries: [{ filename: '/bin/su', privilege: 'authenticator', signature_set_id: tdeSet[target] }],
        },
      ],
      [`detail of ${target}'s client group`, api.tdeClient.groupDetail, { id: clientGroup[target] }],
      [
        `guard points of ${target}'s client group`,
        api.tdeClient.guardPoints,
        { group_id: clientGroup[target] },
      ],
      [
        `guard a path on ${target}'s client group`,
        api.tdeClient.guardPointCreate,
        { group_id: clientGroup[target], path: '/owned', type: 'rwp' },
      ],
      [
        `rename ${target}'s client group`,
        api.tdeClient.groupUpdate,
        { id: clientGroup[target], name: 'owned' },
      ],
      [`delete ${target}'s client group`, api.tdeClient.groupDelete, { id: clientGroup[target] }],
      [`detail of ${target}'s database client`, api.tdeDatabase.detail, { id: dbClient[target] }],
      [
        `disable ${target}'s database client`,
        api.tdeDatabase.update,
        { id: dbClient[target], enabled: false },
      ],
      [`new token of ${target}'s database client`, api.tdeDatabase.regenerateToken, { id: dbClient[target] }],
      [`revoke ${target}'s database token`, api.tdeDatabase.revokeToken, { id: dbClient[target] }],
      [
        `grant a key to ${target}'s database client`,
        api.tdeDatabase.grant,
        { id: dbClient[target], db_key_id: 5, key_id: k },
      ],
      [`ungrant ${target}'s database key`, api.tdeDatabase.ungrant, { id: dbClient[target], db_key_id: 1 }],
      [`delete ${target}'s database client`, api.tdeDatabase.delete, { id: dbClient[target] }],
      [
        `grant ${target}'s key to my database client`,
        api.tdeDatabase.grant,
        { id: dbClient.branch, db_key_id: 9, key_id: k },
      ],
      [
        `add my client to ${target}'s group`,
        api.tdeClient.groupAddMembers,
        { id: clientGroup[target], client_ids: [tdeClient.root] },
      ],
      [
        `remove members of ${target}'s group`,
        api.tdeClient.groupRemoveMembers,
        { id: clientGroup[target], client_ids: [tdeClient[target]] },
      ],
      [
        `pull ${target}'s client into my group`,
        api.tdeClient.groupAddMembers,
        { id: clientGroup.branch, client_ids: [tdeClient[target]] },
      ],
    );
    return attempts;
  }

  async function attempt(token: string, def: CallDef, input: unknown) {
    const isQuery = def.method === 'GET';
    return call(server, def, {
      token,
      ...(isQuery ? { query: input as Record<string, string> } : { body: input }),
    });
  }

  for (const attacker of ['b-admin', 'b-operator', 'b-auditor']) {
    for (const target of ['root', 'coast'] as const) {
      it(`${attacker} reaches nothing of ${target}`, async () => {
        const token = await as(attacker);
        const passed: string[] = [];
        for (const [label, def, input] of attacks(target, user[attacker]!)) {
          const res = await attempt(token, def, input);
          expect(res.status, label).toBeLessThan(500);
          if (res.code !== Code.FORBIDDEN && res.code !== Code.NOT_FOUND)
            passed.push(`${label}: ${res.code} ${res.msg}`);
        }
        expect(passed).toEqual([]);
        // No credential of the branch names the other domain's server.
        const mine = await call(server, api.credential.list, {
          token: await as('b-admin'),
          query: { page: 1, page_size: 100 },
        });
        expect(mine.data.data.map((c) => c.server_id)).not.toContain(sshServer[target]);
        // Nothing changed: the victims still sign in with their own password, objects are intact.
        await as(target === 'root' ? 'root-op' : 'c-user');
        await as(target === 'root' ? 'root-and-b' : 'b-and-c');
        const keyRow = await call(server, api.key.detail, {
          token: target === 'root' ? root : await as('c-admin'),
          query: { id: key[target]! },
        });
        expect(keyRow.data.description).not.toBe('owned');
        // The database client of the target still reads its key with its token.
        const read = await server.app.inject({
          method: 'GET',
          url: '/v1/tde/data/1',
          headers: { 'x-vault-token': dbToken[target]! },
        });
        expect(read.statusCode, read.body).toBe(200);
        const owner = target === 'root' ? root : await as('c-admin');
        const certRow = await call(server, api.cert.detail, { token: owner, query: { id: cert[target]! } });
        expect(certRow.data.status).toBe('normal');
        const caRow = await call(server, api.cert.caDetail, { token: owner, query: { id: ca[target]! } });
        expect(caRow.data).toMatchObject({ name: `secret-ca-${target}`, state: 'active' });
        const page = { page: 1, page_size: 100 };
        const rules = (await call(server, api.alarm.ruleList, { token: owner, query: page })).data.data;
        expect(rules.find((r) => r.id === alarmRule[target])).toMatchObject({ enabled: true });
        const open = await call(server, api.alarm.list, { token: owner, query: { ...page, state: 'open' } });
        expect(open.data.data.map((a) => a.id)).toContain(alarm[target]);
        const cred = await call(server, api.credential.detail, {
          token: owner,
          query: { id: credential[target]! },
        });
        expect(cred.data).toMatchObject({ name: `secret-cred-${target}`, current_version: 1 });
        const tasks = (await call(server, api.scheduler.list, { token: owner, query: page })).data.data;
        expect(tasks.find((t) => t.id === task[target])).toMatchObject({
          name: `secret-task-${target}`,
          enabled: true,
          last_run_at: null,
        });
        const kept = await call(server, api.backup.detail, { token: owner, query: { id: backup[target]! } });
        expect(kept.data).toMatchObject({ status: 'completed', restore_status: null });
        const keys = (await call(server, api.backupKey.list, { token: owner, query: page })).data.data;
        expect(keys.map((k) => k.id)).toContain(backupKey[target]);
        const client = await call(server, api.client.detail, {
          token: owner,
          query: { id: kadpClient[target]! },
        });
        expect(client.data).toMatchObject({ name: `secret-kadp-${target}`, certificate: { revoked: false } });
        expect(['healthy', 'warning', 'error']).toContain(client.data.status);
        const kept2 = await call(server, api.sshServer.detail, {
          token: owner,
          query: { id: sshServer[target]! },
        });
        expect(kept2.data).toMatchObject({ name: `secret-server-${target}`, host: '127.0.0.1' });
        const rotations = await call(server, api.sshServer.rotations, {
          token: owner,
          query: { id: sshServer[target]!, page: 1, page_size: 10 },
        });
        expect(rotations.data.total).toBe(0);
        const policy = await call(server, api.tdePolicy.policyDetail, {
          token: owner,
          query: { id: tdePolicy[target]! },
        });
        expect(policy.data).toMatchObject({ name: `secret-tpol-${target}`, revision: 1 });
        const rdm = await call(server, api.rdmPolicy.policyDetail, {
          token: owner,
          query: { id: rdmPolicy[target]! },
        });
        expect(rdm.data).toMatchObject({ name: `secret-rpol-${target}`, revision: 1 });
        const set = await call(server, api.tdePolicy.elementDetail, {
          token: owner,
          query: { id: tdeSet[target]! },
        });
        expect(set.data.name).toBe(`secret-tset-${target}`);
        const profile = await call(server, api.tdePolicy.profileDetail, {
          token: owner,
          query: { name: `secret-tprof-${target}` },
        });
        expect(profile.data.description).toBe('');
        const group = await call(server, api.tdeClient.groupDetail, {
          token: owner,
          query: { id: clientGroup[target]! },
        });
        expect(group.data).toMatchObject({ name: `secret-group-${target}`, members: 1, guard_points: 1 });
        const points = await call(server, api.rdmClient.guardPoints, {
          token: owner,
          query: { client_id: rdmClient[target]! },
        });
        expect(points.data.data).toMatchObject([{ id: guardPoint[target], enabled: true }]);
      });
    }

    it(`${attacker} lists no name of root or coast`, async () => {
      const token = await as(attacker);
      const page = { page: 1, page_size: 1000 };
      const seen = JSON.stringify([
        (await call(server, api.user.list, { token, query: page })).data,
        (await call(server, api.role.list, { token, query: page })).data,
        (await call(server, api.domain.list, { token, query: page })).data,
        (await call(server, api.registrationToken.list, { token, query: page })).data,
        (await call(server, api.key.list, { token, query: page })).data,
        (await call(server, api.dashboard.summary, { token })).data,
        (await call(server, api.dashboard.operations, { token, query: { range: '7d' } })).data,
        (await call(server, api.cert.caList, { token, query: page })).data,
        (await call(server, api.cert.list, { token, query: page })).data,
        (await call(server, api.cert.externalList, { token, query: page })).data,
        (await call(server, api.cert.summary, { token })).data,
        // The log: its own domain's records only, refusals of the attacks above included.
        (await call(server, api.log.list, { token, query: page })).data,
        (await call(server, api.log.export, { token, query: { format: 'json' } })).data,
        (await call(server, api.alarm.ruleList, { token, query: page })).data,
        (await call(server, api.alarm.list, { token, query: page })).data,
        (await call(server, api.alarm.summary, { token })).data,
        // Client records: those of root's and coast's agents stay with them.
        (await call(server, api.clientLog.list, { token, query: page })).data,
        (await call(server, api.clientLog.export, { token, query: { format: 'json' } })).data,
        (await call(server, api.clientLog.export, { token, query: { format: 'csv' } })).data,
        (await call(server, api.credential.list, { token, query: page })).data,
        (await call(server, api.scheduler.list, { token, query: page })).data,
        (await call(server, api.backupKey.list, { token, query: page })).data,
        (await call(server, api.backup.list, { token, query: page })).data,
        (await call(server, api.client.list, { token, query: page })).data,
        (await call(server, api.sshServer.list, { token, query: page })).data,
        (await call(server, api.tdePolicy.elementList, { token, query: page })).data,
        (await call(server, api.rdmPolicy.elementList, { token, query: page })).data,
        (await call(server, api.tdePolicy.policyList, { token, query: page })).data,
        (await call(server, api.rdmPolicy.policyList, { token, query: page })).data,
        (await call(server, api.tdePolicy.profileList, { token, query: page })).data,
        (await call(server, api.tdePolicy.keyOptions, { token })).data,
        (await call(server, api.tdeClient.list, { token, query: page })).data,
        (await call(server, api.rdmClient.list, { token, query: page })).data,
        (await call(server, api.tdeClient.groupList, { token, query: page })).data,
        (await call(server, api.tdeClient.groupDetail, { token, query: { id: clientGroup.branch! } })).data,
      ]);
      for (const target of ['root', 'coast']) {
        const detail = await call(server, api.clientLog.detail, {
          token,
          query: { id: clientRecord[target]! },
        });
        expect([Code.FORBIDDEN, Code.NOT_FOUND]).toContain(detail.code);
      }
      for (const foreign of [
        '"admin@example.test"',
        '"admin"',
        'root-op',
        'c-user',
        'c-admin',
        'coast',
        '"root"',
        'secret-role',
        'secret-token',
        'secret-key',
        'secret-ca',
        'secret-cert',
        'secret-external',
        'secret-rule',
        'secret-agent',
        'secret-client',
        'secret-kadp',
        'secret-tde',
        'secret-rdm',
        'secret-group',
        'secret-path',
        'secret-osuser',
        'secret-cred',
        'secret-value',
        'secret-task',
        'secret-bkey',
        'secret-backup',
        'secret-tset',
        'secret-tpol',
        'secret-rpol',
        'secret-tprof',
      ])
        expect(seen, foreign).not.toContain(foreign);
    });
  }

  it("counts only the caller's domain on the dashboard", async () => {
    const summary = await call(server, api.dashboard.summary, { token: await as('b-auditor') });
    const members = await call(server, api.domain.users, {
      token: await as('b-auditor'),
      query: { id: domain.branch! },
    });
    expect(summary.data).toMatchObject({ domain: 'branch', domains: 1, users: members.data.length });
    // Keys and operations: the branch's own, as its key list counts them (every key object,
    // a certificate's key pair too).
    const keys = await call(server, api.key.list, {
      token: await as('b-auditor'),
      query: { page: 1, page_size: 1, state: 'in-use', certificate_keys: 'show' },
    });
    expect(summary.data.keys.by_state.find((s) => s.state === 'in-use')!.count).toBe(keys.data.total);
    const all = await call(server, api.dashboard.summary, { token: root });
    expect(all.data.users).toBeGreaterThan(summary.data.users);
    expect(all.data.keys.total).toBeGreaterThan(summary.data.keys.total);
    const ops = await call(server, api.dashboard.operations, { token: await as('b-auditor') });
    const allOps = await call(server, api.dashboard.operations, { token: root });
    expect(allOps.data.totals.keygen).toBeGreaterThan(ops.data.totals.keygen);
    expect(all.data.domains).toBeGreaterThanOrEqual(3);
  });

  it("counts only the caller's domain on the product page, and the licence's use from root only", async () => {
    const token = await as('b-auditor');
    const tiles = (await call(server, api.product.overview, { token })).data.tiles;
    const keys = await call(server, api.key.list, {
      token,
      query: { page: 1, page_size: 1, certificate_keys: 'show' },
    });
    const kms = tiles.find((t) => t.product === 'kms')!;
    expect(kms.figures.find((f) => f.name === 'keys')!.value).toBe(keys.data.total);
    const kadp = await call(server, api.client.list, { token, query: { page: 1, page_size: 1 } });
    const kadpTile = tiles.find((t) => t.product === 'kadp')!;
    expect(kadpTile.figures.find((f) => f.name === 'clients')!.value).toBe(kadp.data.total);
    expect(tiles.every((t) => t.license.used === null)).toBe(true);
    const rootTiles = (await call(server, api.product.overview, { token: root })).data.tiles;
    expect(rootTiles.find((t) => t.product === 'kms')!.license.used).not.toBeNull();
  });

  it('a sub-console token (kadp, sms, tde, rdm, kms) reaches no call of another area', async () => {
    const session = await as('b-admin');
    const mints = [
      ['kadp', api.user.kadpToken],
      ['sms', api.user.ssmToken],
      ['cte', api.user.tdeToken],
      ['rdm', api.user.rdmToken],
      ['kms', api.user.kmsToken],
    ] as const;
    const leaks: string[] = [];
    for (const [kind, mint] of mints) {
      const minted = await call(server, mint, { token: session });
      expect(minted.code, kind).toBe(0);
      for (const def of allCalls) {
        if (def.access === 'public' || tokensOf(def).includes(kind)) continue;
        const res = await server.app.inject({
          method: def.method,
          url: def.path,
          headers: { token: minted.data.token, 'content-type': 'application/json' },
          payload: def.method === 'GET' ? undefined : '{}',
        });
        const code = res.json<{ code: number }>().code;
        if (code !== Code.FORBIDDEN) leaks.push(`${kind}: ${def.method} ${def.path} answered ${code}`);
      }
    }
    expect(leaks).toEqual([]);
  });

  it("a database client's token reaches no REST call, and no token but its own reaches the key endpoint", async () => {
    const leaks: string[] = [];
    for (const def of allCalls) {
      if (def.access === 'public') continue;
      const res = await server.app.inject({
        method: def.method,
        url: def.path,
        headers: { token: dbToken.coast!, 'content-type': 'application/json' },
        payload: def.method === 'GET' ? undefined : '{}',
      });
      if (res.statusCode !== 401) leaks.push(`${def.method} ${def.path} answered ${res.statusCode}`);
    }
    expect(leaks).toEqual([]);
    const session = await as('b-admin');
    const kadp = (await call(server, api.user.kadpToken, { token: session })).data.token;
    for (const token of [session, kadp, root]) {
      const res = await server.app.inject({
        method: 'GET',
        url: '/v1/tde/data/1',
        headers: { 'x-vault-token': token },
      });
      expect(res.statusCode).toBe(403);
      expect(JSON.stringify(res.json())).not.toContain('secret-key');
    }
  });

  it('refuses every system call to a domain administrator', async () => {
    const token = await as('b-admin');
    const system = allCalls.filter((def) => def.scope === 'system');
    expect(system.length).toBeGreaterThan(10);
    for (const def of system) {
      const res = await server.app.inject({
        method: def.method,
        url: def.path,
        headers: { token, 'content-type': 'application/json' },
        payload: def.method === 'GET' ? undefined : '{}',
      });
      expect(res.json<{ code: number }>().code, `${def.method} ${def.path}`).toBe(Code.FORBIDDEN);
    }
  });

  it('a domain administrator cannot create a root administrator (the reported escalation)', async () => {
    const token = await as('b-admin');
    const res = await call(server, api.user.create, {
      token,
      body: {
        username: 'mallory',
        password: PASSWORD,
        email: 'm@example.test',
        role_ids: [role.Administrator!],
        domain_ids: [domain.root!],
      },
    });
    expect([Code.FORBIDDEN, Code.NOT_FOUND]).toContain(res.code);
    const login2 = await call(server, api.user.login, {
      body: { username: Buffer.from('mallory').toString('base64'), password: 'x' },
    });
    expect(login2.code).toBe(Code.BAD_CREDENTIALS);
    // Within branch, it may create an administrator of branch only.
    const ok = await call(server, api.user.create, {
      token,
      body: {
        username: 'b-admin-2',
        password: PASSWORD,
        email: 'b2@example.test',
        role_ids: [role.Administrator!],
      },
    });
    expect(ok.code).toBe(0);
    expect(ok.data.domains.map((d) => d.name)).toEqual(['branch']);
  });

  it("a domain administrator cannot reset the root administrator's password, nor join root and switch to it", async () => {
    const token = await as('b-admin');
    const reset = await call(server, api.user.updatePassword, {
      token,
      body: { id: adminId, password: 'Taken-Over-1' },
    });
    expect(reset.code).toBe(Code.NOT_FOUND);
    const join = await call(server, api.user.domainAddUser, {
      token,
      body: { domain_id: domain.root!, user_ids: [user['b-admin']!] },
    });
    expect(join.code).toBe(Code.FORBIDDEN);
    const sw = await call(server, api.user.switchDomain, { token, body: { domain_name: 'root' } });
    expect(sw.code).toBe(Code.FORBIDDEN);
  });

  it('a user who also belongs to root is out of reach, though listed in branch', async () => {
    const token = await as('b-admin');
    const list = await call(server, api.user.list, { token, query: { page: 1, page_size: 100 } });
    const row = list.data.data.find((u) => u.username === 'root-and-b')!;
    // Listed as a member of branch; the root membership is not named.
    expect(row.domains.map((d) => d.name)).toEqual(['branch']);
    const reset = await call(server, api.user.updatePassword, {
      token,
      body: { id: row.id, password: 'Taken-Over-1' },
    });
    expect(reset).toMatchObject({ code: Code.FORBIDDEN });
    expect(reset.msg).toContain('root-and-b');
  });

  it('every refusal is audited', async () => {
    const token = await as('b-operator');
    await call(server, api.user.create, {
      token,
      body: { username: 'nope', password: PASSWORD, email: 'n@example.test', role_ids: [role.Operator!] },
    });
    const records = await server.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'access.denied')
      .where('username', '=', 'b-operator')
      .where('target', '=', api.user.create.path)
      .execute();
    expect(records.length).toBeGreaterThan(0);
    expect(records[0]).toMatchObject({ result: 'failure', domain_name: 'branch' });
    expect(JSON.parse(records[0]!.details)).toMatchObject({
      reason: 'auth.forbidden',
      permission: 'user:write',
    });
  });

  it('the domain creator does not become a member of the new domain', async () => {
    const created = await call(server, api.domain.create, { token: root, body: { name: 'fresh' } });
    expect(created.data.users).toBe(0);
    const info = await call(server, api.user.info, { token: root });
    expect(info.data.userinfo.domains).not.toContain('fresh');
  });

  it('a domain administrator sees no global settings in its menu', async () => {
    const token = await as('b-admin');
    const info = await call(server, api.user.info, { token });
    const paths = JSON.stringify(info.data.menu);
    for (const p of ['ldap', 'password-policy', 'config']) expect(paths).not.toContain(p);
    expect(info.data.userinfo.permissions).not.toContain('config:write');
    const rootInfo = await call(server, api.user.info, { token: root });
    expect(rootInfo.data.userinfo.permissions).toContain('config:write');
  });
});
