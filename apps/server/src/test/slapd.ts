import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'ldapts';
import { caSignedEc, selfSignedEc } from './openssl.js';
import { freePort } from './free-port.js';

export const BASE_DN = 'dc=ksp,dc=test';
export const ADMIN_DN = `cn=admin,${BASE_DN}`;
export const ADMIN_PW = 'directory-admin-pw';

export interface Slapd {
  ldapUrl: string;
  ldapsUrl: string;
  caPem: string;
  stop(): Promise<void>;
}

/** Whether Debian's slapd is installed (CI installs it; elsewhere the suite says so). */
export function slapdAvailable(): boolean {
  return existsSync('/usr/sbin/slapd');
}

/**
 * A throwaway OpenLDAP server on loopback (ldap:// and ldaps:// with a CA made here),
 * seeded with people alice, bob and carol and groups kms-admins, kms-auditors.
 */
export async function startSlapd(): Promise<Slapd> {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-slapd-'));
  mkdirSync(join(dir, 'db'));
  selfSignedEc(dir, { key: 'ca.key', cert: 'ca.pem', cn: 'KSP Test Directory CA', days: 2 });
  caSignedEc(dir, {
    name: 'server',
    cn: '127.0.0.1',
    ext: 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth',
    days: 2,
  });
  const ldapPort = await freePort();
  const ldapsPort = await freePort();
  writeFileSync(
    join(dir, 'slapd.conf'),
    [
      'include /etc/ldap/schema/core.schema',
      'include /etc/ldap/schema/cosine.schema',
      'include /etc/ldap/schema/inetorgperson.schema',
      'include /etc/ldap/schema/nis.schema',
      `pidfile ${dir}/slapd.pid`,
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      `TLSCACertificateFile ${dir}/ca.pem`,
      `TLSCertificateFile ${dir}/server.pem`,
      `TLSCertificateKeyFile ${dir}/server.key`,
      'database mdb',
      'maxsize 67108864',
      `suffix "${BASE_DN}"`,
      `rootdn "${ADMIN_DN}"`,
      `rootpw ${ADMIN_PW}`,
      `directory ${dir}/db`,
      'access to attrs=userPassword by self write by anonymous auth by * none',
      'access to * by users read by * none',
      '',
    ].join('\n'),
  );
  const ldapUrl = `ldap://127.0.0.1:${ldapPort}`;
  const ldapsUrl = `ldaps://127.0.0.1:${ldapsPort}`;
  let log = '';
  const child: ChildProcess = spawn(
    '/usr/sbin/slapd',
    ['-f', join(dir, 'slapd.conf'), '-h', `${ldapUrl}/ ${ldapsUrl}/`, '-d', '0'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const admin = new Client({ url: ldapUrl, timeout: 3000, connectTimeout: 3000 });
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      await admin.bind(ADMIN_DN, ADMIN_PW);
      break;
    } catch (err) {
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`slapd did not start: ${String(err)}\n${log}`, { cause: err });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const add = (dn: string, attrs: Record<string, string | string[]>) => admin.add(dn, attrs);
  await add(BASE_DN, { objectClass: ['top', 'dcObject', 'organization'], o: 'KSP test', dc: 'ksp' });
  await add(`ou=people,${BASE_DN}`, { objectClass: ['organizationalUnit'], ou: 'people' });
  await add(`ou=groups,${BASE_DN}`, { objectClass: ['organizationalUnit'], ou: 'groups' });
  for (const [uid, name, pw] of [
    ['alice', 'Alice Admin', 'alice-pw-1'],
    ['bob', 'Bob Auditor', 'bob-pw-1'],
    ['carol', 'Carol Nobody', 'carol-pw-1'],
  ] as const) {
    await add(`uid=${uid},ou=people,${BASE_DN}`, {
      objectClass: ['inetOrgPerson'],
      uid,
      cn: name,
      sn: name.split(' ')[1] ?? name,
      mail: `${uid}@ksp.test`,
      userPassword: pw,
    });
  }
  await add(`cn=kms-admins,ou=groups,${BASE_DN}`, {
    objectClass: ['groupOfNames'],
    cn: 'kms-admins',
    member: [`uid=alice,ou=people,${BASE_DN}`],
  });
  await add(`cn=kms-auditors,ou=groups,${BASE_DN}`, {
    objectClass: ['groupOfNames'],
    cn: 'kms-auditors',
    member: [`uid=bob,ou=people,${BASE_DN}`, `uid=alice,ou=people,${BASE_DN}`],
  });
  await admin.unbind();
  const caPem = readFileSync(join(dir, 'ca.pem'), 'utf8');
  return {
    ldapUrl,
    ldapsUrl,
    caPem,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
