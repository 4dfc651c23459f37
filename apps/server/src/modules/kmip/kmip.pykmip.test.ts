import { execFile } from 'node:child_process';
import { createCipheriv, createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '@ksp/contracts';
import { ADMIN, call, domainWithAdmin, ok, type TestServer } from '../../test/harness.js';
import { newEcKey, openssl } from '../../test/openssl.js';
import {
  selfSignedDerFile,
  startKmipServer,
  type ClientFiles,
  type KmipServer,
} from './test/kmip-fixture.js';
import { requestMessage } from './test/kmip-request.js';
import { TAG } from './kmip.tags.js';
import { decodeTtlv, type Ttlv } from './kmip.ttlv.js';
import { ttlv } from './kmip.message.js';

const script = fileURLToPath(new URL('./test/pykmip_client.py', import.meta.url));
const run = promisify(execFile);

/** Runs the PyKMIP client script (the server answers in this process, so never synchronously): its JSON answer. */
async function pykmip(
  port: number,
  files: ClientFiles,
  version: string,
  scenario: string,
  ...rest: string[]
) {
  const { stdout } = await run(
    '/usr/bin/python3',
    [script, '127.0.0.1', String(port), files.cert, files.key, files.ca, version, scenario, ...rest],
    { encoding: 'utf8', timeout: 60_000 },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

const failed = (answer: unknown) => (answer as { message?: string } | undefined)?.message ?? '';

/** Sends raw bytes over a TLS connection with a client certificate; the bytes answered until the server closes or `ms` pass. */
function rawExchange(
  port: number,
  files: ClientFiles | { pfx: Buffer; passphrase: string } | null,
  bytes: Buffer,
  ms = 3000,
): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({
      host: '127.0.0.1',
      port,
      rejectUnauthorized: false,
      ...(files && 'pfx' in files
        ? files
        : files
          ? { cert: readFileSync(files.cert), key: readFileSync(files.key) }
          : {}),
    });
    const done = () => resolve(Buffer.concat(chunks));
    const timer = setTimeout(() => {
      socket.destroy();
      done();
    }, ms);
    socket.on('secureConnect', () => socket.write(bytes));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => {
      clearTimeout(timer);
      done();
    });
    socket.on('error', () => undefined);
  });
}

/** A Request Message of one Create item in KMIP 1.2 (AES-128). */
const createRequest = () =>
  requestMessage(
    [1, 2],
    [
      [
        0x01,
        [
          ttlv.enumeration(TAG.ObjectType, 2),
          ttlv.structure(TAG.TemplateAttribute, [
            ttlv.structure(TAG.Attribute, [
              ttlv.text(TAG.AttributeName, 'Cryptographic Algorithm'),
              ttlv.enumeration(TAG.AttributeValue, 3),
            ]),
            ttlv.structure(TAG.Attribute, [
              ttlv.text(TAG.AttributeName, 'Cryptographic Length'),
              ttlv.integer(TAG.AttributeValue, 128),
            ]),
          ]),
        ],
      ],
    ],
  );

/** The Result Status, Reason and Message of each batch item of an answer. */
function results(answer: Buffer) {
  const message = decodeTtlv(answer) as Ttlv & { type: 'Structure' };
  return message.value
    .filter((i) => i.tag === TAG.BatchItem)
    .map((item) => {
      const fields = (item as Ttlv & { type: 'Structure' }).value;
      const pick = (tag: number) => fields.find((f) => f.tag === tag)?.value;
      return {
        status: pick(TAG.ResultStatus),
        reason: pick(TAG.ResultReason),
        message: pick(TAG.ResultMessage),
      };
    });
}

describe('KMIP with PyKMIP (sqlite)', () => {
  let kmip: KmipServer;
  let server: TestServer;
  let token: string;
  let dir: string;
  let port: number;
  let admin: ClientFiles;
  const filesOf = (name: string) => kmip.files(name);
  const kmipClient = (as: string, name: string, role: string) => kmip.client(as, name, role);

  const keyDetail = async (id: string) =>
    ok(await call(server, api.key.detail, { token, query: { id } })).data;
  const auditOf = (action: string) =>
    server.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', action)
      .orderBy('at')
      .execute();

  beforeAll(async () => {
    kmip = await startKmipServer();
    ({ server, token, port, dir } = kmip);
    ({ files: admin } = await kmipClient(token, 'pykmip', 'Administrator'));
  }, 60_000);
  afterAll(async () => kmip?.close());

  for (const version of ['1.2', '2.0']) {
    it(`runs a symmetric key's life over KMIP ${version}, and the console sees it`, async () => {
      const out = await pykmip(port, admin, version, 'lifecycle');
      const uid = out.uid as string;
      expect(uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(out.activate).toBe('ok');
      const attrs = Object.fromEntries(out.get_attributes as [string, string][]);
      expect(attrs['Cryptographic Length']).toBe('256');
      expect(attrs.State).toMatch(/ACTIVE/);
      expect(out.attribute_list).toEqual(
        expect.arrayContaining(['Name', 'State', 'Cryptographic Usage Mask']),
      );
      // CBC with PKCS#5 padding: 25 bytes make two blocks; the plaintext comes back, and the key
      // Get answered is the one that encrypted (checked here with Node's own AES).
      const cbc = out.cbc as { ciphertext: string; plaintext: string };
      expect(cbc.plaintext).toBe('sixteen byte msg and more');
      const local = createCipheriv(
        'aes-256-cbc',
        Buffer.from(out.get as string, 'hex'),
        Buffer.from([...Array(16).keys()]),
      );
      expect(Buffer.concat([local.update('sixteen byte msg and more'), local.final()]).toString('hex')).toBe(
        cbc.ciphertext,
      );
      if (version === '2.0') expect((out.gcm as { iv: string }).iv).toMatch(/^[0-9a-f]{24}$/);
      else expect(failed(out.gcm)).toMatch(/FEATURE_NOT_SUPPORTED.*GCM needs KMIP 1.4/);
      expect(out.locate).toEqual([uid]);
      expect(out.revoke).toBe('ok');
      expect(out.destroy).toBe('ok');
      expect(failed(out.get_destroyed)).toMatch(/ILLEGAL_OPERATION/);

      // The same key through the REST API: destroyed, owned by the client, its KMIP use counted.
      await server.app.inject({ method: 'GET', url: '/v1/ksp/system/status' });
      await new Promise((r) => setTimeout(r, 1200));
      const row = await keyDetail(uid);
      expect(row.name).toBe(`pykmip-${version}`);
      expect(row.state).toBe('destroyed');
      expect(row.owner).toBe('KMIP pykmip');
      expect(row.kmip_total).toBeGreaterThanOrEqual(8);
      const records = await auditOf('crypto.encrypt');
      const mine = records.filter((r) => r.object_id === uid);
      expect(mine.length).toBeGreaterThan(0);
      expect(mine[0]!.source).toBe('kmip');
      expect(String(mine[0]!.details)).toContain('certificate');
    }, 90_000);
  }

  /** A self-signed EC certificate's DER file in the test's directory: a CA's, or a leaf's. */
  const certificateFile = (name: string, ca = true) => selfSignedDerFile(dir, name, ca);

  for (const version of ['1.2', '2.0']) {
    it(`keeps certificates (CA and leaf) and secret data over KMIP ${version}, as the console's external certificates and credentials`, async () => {
      const [a, b, leaf] = await Promise.all([
        certificateFile(`ca-a-${version}`),
        certificateFile(`ca-b-${version}`),
        certificateFile(`leaf-${version}`, false),
      ]);
      const out = await pykmip(port, admin, version, 'objects', a, b, leaf);

      // A CA certificate: registered, answered byte for byte, described, located, destroyed.
      const cert = out.cert as string;
      expect(cert).toMatch(/^cert-[0-9a-f-]{36}$/);
      const der = readFileSync(a);
      expect(out.get_cert).toBe(der.toString('hex'));
      const certAttrs = Object.fromEntries(out.cert_attributes as [string, string][]);
      expect(certAttrs).toMatchObject({
        'Unique Identifier': cert,
        Name: `ca-a-${version}`,
        'Certificate Length': String(der.length),
        Digest: createHash('sha256').update(der).digest('hex'),
      });
      expect(certAttrs['Object Type']).toMatch(/CERTIFICATE/);
      expect(certAttrs.State).toMatch(/ACTIVE/);
      if (version === '1.2') expect(certAttrs['Certificate Type']).toMatch(/X_509/);
      expect(out.cert_attribute_list).toEqual(
        expect.arrayContaining(['Certificate Type', 'Certificate Length', 'Digest', 'Name', 'State']),
      );
      expect(out.locate_certificates).toEqual(expect.arrayContaining([cert]));
      expect(out.locate_cert_by_name).toEqual([cert]);
      expect(failed(out.activate_cert)).toMatch(/ILLEGAL_OPERATION.*applies to keys only/);
      // A leaf (end-entity) certificate: kept as one (never a trust anchor), answered as a CA's is.
      const leafUid = out.register_leaf as string;
      expect(leafUid).toMatch(/^cert-[0-9a-f-]{36}$/);
      const leafDer = readFileSync(leaf);
      expect(out.get_leaf).toBe(leafDer.toString('hex'));
      const leafAttrs = Object.fromEntries(out.leaf_attributes as [string, string][]);
      expect(leafAttrs).toMatchObject({
        'Unique Identifier': leafUid,
        Name: `leaf-${version}`,
        'Certificate Length': String(leafDer.length),
        Digest: createHash('sha256').update(leafDer).digest('hex'),
      });
      expect(leafAttrs['Object Type']).toMatch(/CERTIFICATE/);
      expect(leafAttrs.State).toMatch(/ACTIVE/);
      if (version === '1.2') expect(leafAttrs['Certificate Type']).toMatch(/X_509/);
      expect(out.leaf_attribute_list).toEqual(out.cert_attribute_list);
      expect(out.locate_leaf_by_name).toEqual([leafUid]);
      expect(out.locate_certificates_with_leaf).toEqual(expect.arrayContaining([leafUid]));
      expect(out.destroy_leaf).toBe('ok');
      expect(failed(out.get_destroyed_leaf)).toMatch(/ITEM_NOT_FOUND/);
      const leafUpload = (await auditOf('cert.external.upload')).find(
        (r) => r.object_id === leafUid.slice('cert-'.length),
      );
      expect(leafUpload?.source).toBe('kmip');
      expect(JSON.parse(String(leafUpload?.details))).toMatchObject({ kind: 'certificate' });
      expect(failed(out.register_not_der)).toMatch(/INVALID_FIELD.*not one DER-encoded X.509 certificate/);
      expect(out.destroy_cert).toBe('ok');
      expect(failed(out.get_destroyed_cert)).toMatch(/ITEM_NOT_FOUND/);

      // Secret Data: a Password (UTF-8 text) and a Seed (bytes that are not text) round-trip.
      const password = out.password as string;
      const seed = out.seed as string;
      expect(password).toMatch(/^secret-[0-9a-f-]{36}$/);
      expect(out.get_password).toEqual({
        type: 'PASSWORD',
        value: Buffer.from(`correct horse \u2713 ${version}`).toString('hex'),
      });
      const seedBytes = Buffer.from(Array.from({ length: 48 }, (_, i) => 255 - i));
      expect(out.get_seed).toEqual({ type: 'SEED', value: seedBytes.toString('hex') });
      const pwAttrs = Object.fromEntries(out.password_attributes as [string, string][]);
      expect(pwAttrs).toMatchObject({ 'Unique Identifier': password, Name: `pw-${version}` });
      expect(pwAttrs['Object Type']).toMatch(/SECRET_DATA/);
      expect(pwAttrs.State).toMatch(/ACTIVE/);
      expect(failed(out.register_bad_password)).toMatch(/INVALID_FIELD.*UTF-8/);
      expect(out.locate_secrets).toEqual(expect.arrayContaining([password, seed]));
      expect(out.locate_seed_by_name).toEqual([seed]);
      expect(out.destroy_password).toBe('ok');
      expect(failed(out.get_destroyed_password)).toMatch(/ITEM_NOT_FOUND/);

      // The console: the kept certificate among the external CAs, the Seed among the credentials.
      const external = ok(
        await call(server, api.cert.externalList, { token, query: { page: 1, page_size: 100 } }),
      ).data.data.map((r) => r.name);
      expect(external).toContain(`ca-b-${version}`);
      expect(external).not.toContain(`ca-a-${version}`);
      expect(external).not.toContain(`leaf-${version}`);
      const credentials = ok(
        await call(server, api.credential.list, { token, query: { page: 1, page_size: 100 } }),
      ).data.data;
      expect(credentials.find((r) => r.name === `pw-${version}`)).toBeUndefined();
      const kept = credentials.find((r) => r.name === `seed-${version}`);
      expect(kept).toMatchObject({ type: 'api-key', tags: ['kmip-seed'], created_by: 'KMIP pykmip' });
      const revealed = ok(
        await call(server, api.credential.reveal, {
          token,
          body: { id: seed.slice('secret-'.length), password: ADMIN.password },
        }),
      ).data;
      expect(revealed.value).toBe(seedBytes.toString('base64'));
      // Audited as the REST twins are, with source kmip.
      for (const action of [
        'cert.external.upload',
        'cert.external.delete',
        'credential.create',
        'credential.read-value',
        'credential.delete',
      ])
        expect((await auditOf(action)).some((r) => r.source === 'kmip' && r.username === 'pykmip')).toBe(
          true,
        );
    }, 90_000);
  }

  it('makes an RSA key pair that signs and verifies (PSS), and registers a key made elsewhere', async () => {
    const pair = await pykmip(port, admin, '1.2', 'pair');
    expect(pair.sign).toMatch(/^[0-9a-f]{512}$/);
    expect(pair.verify).toMatch(/VALID/);
    expect(pair.verify_bad).toMatch(/INVALID/);
    expect(String(pair.get_public)).toMatch(/^30/);
    const priv = await keyDetail(pair.private as string);
    expect(priv.algorithm).toBe('RSA-2048');
    expect(priv.linked_key_id).toBe(pair.public);

    const reg = await pykmip(port, admin, '2.0', 'register');
    expect(reg.get).toBe('000102030405060708090a0b0c0d0e0f');
    // An AES key does not MAC: refused with the key's reason, not a crash.
    expect(failed(reg.mac_wrong_key)).toMatch(/ILLEGAL_OPERATION|INVALID_FIELD/);
    const row = await keyDetail(reg.uid as string);
    expect(row.algorithm).toBe('AES-128');
  }, 90_000);

  it('gets a key wrapped by another key of the domain (AES Key Wrap with Padding)', async () => {
    const make = async (name: string, usage: number) =>
      ok(
        await call(server, api.key.create, {
          token,
          body: { name, algorithm: 'AES-256', usage_mask: usage, exportable: true },
        }),
      ).data.id;
    const target = await make('to-wrap', 12);
    const kek = await make('kek', 0x10 | 0x20);
    const out = await pykmip(port, admin, '2.0', 'wrapped', target, kek);
    expect(out.get_wrapped).toMatch(/^[0-9a-f]{80}$/);
    // The kek unwraps it (the REST twin) to the key itself.
    const unwrapped = ok(
      await call(server, api.crypto.unwrap, {
        token,
        body: { key_id: kek, wrapped: Buffer.from(out.get_wrapped as string, 'hex').toString('base64') },
      }),
    ).data;
    const clear = await pykmip(port, admin, '2.0', 'get_other', target);
    expect(Buffer.from(unwrapped.key_material, 'base64').toString('hex')).toBe(clear.get);
    const exports = await auditOf('key.export');
    expect(exports.some((r) => r.object_id === target && r.details.includes(`kmip:${kek}`))).toBe(true);
  }, 60_000);

  it('refuses a client whose role lacks the permission, and audits it', async () => {
    const { files } = await kmipClient(token, 'reader', 'Auditor');
    const out = await pykmip(port, files, '1.2', 'denied');
    expect(failed(out.create)).toMatch(/PERMISSION_DENIED/);
    const denied = await auditOf('access.denied');
    expect(denied.some((r) => r.username === 'reader' && r.target === api.key.create.path)).toBe(true);
  }, 60_000);

  it("keeps another domain's client away from this domain's keys", async () => {
    const other = await domainWithAdmin(server, token, {
      domain: 'kmip-other',
      username: 'kmipadm',
      password: 'Other-Pass-1',
    });
    const { files } = await kmipClient(other.token, 'outsider', 'Administrator');
    const mine = ok(
      await call(server, api.key.create, {
        token,
        body: { name: 'root-only', algorithm: 'AES-256', usage_mask: 12, exportable: true },
      }),
    ).data;
    const out = await pykmip(port, files, '2.0', 'get_other', mine.id);
    expect(failed(out.get)).toMatch(/ITEM_NOT_FOUND/);
    expect(failed(out.destroy)).toMatch(/ITEM_NOT_FOUND/);
    expect((await keyDetail(mine.id)).state).toBe('active');
  }, 60_000);

  it('refuses a disabled client and a revoked certificate at the next request, audited', async () => {
    const { files, client } = await kmipClient(token, 'soon-off', 'Administrator');
    ok(await call(server, api.kmip.update, { token, body: { id: client.id, enabled: false } }));
    await new Promise((r) => setTimeout(r, 1100));
    const off = results(await rawExchange(port, files, createRequest()));
    expect(off).toEqual([{ status: 1, reason: 0x0c, message: 'the KMIP client is disabled' }]);
    ok(await call(server, api.kmip.update, { token, body: { id: client.id, enabled: true } }));
    // What KSP read of the certificate's client is kept for a second (docs/kmip.md#listener).
    await new Promise((r) => setTimeout(r, 1100));
    expect(results(await rawExchange(port, files, createRequest()))[0]!.status).toBe(0);
    ok(
      await call(server, api.cert.revoke, {
        token,
        body: { id: client.certificate.id, reason: 'keyCompromise' },
      }),
    );
    const revoked = results(await rawExchange(port, files, createRequest()));
    expect(revoked[0]).toMatchObject({ status: 1, reason: 0x0c });
    const refusals = await auditOf('kmip.connect');
    expect(refusals.map((r) => (JSON.parse(r.details) as { reason?: string }).reason)).toEqual(
      expect.arrayContaining(['disabled', 'revoked']),
    );
  }, 60_000);

  it('enrols a KMIP client with a registration token: refused until it is given a role', async () => {
    const reg = ok(
      await call(server, api.registrationToken.create, {
        token,
        body: { name: 'kmip-enrol', usage: 'kmip', capacity: 1 },
      }),
    ).data;
    openssl(
      ['req', '-new', ...newEcKey('enrolled.key'), '-out', 'enrolled.csr', '-subj', '/CN=enrolled'],
      dir,
    );
    const enrolled = ok(
      await call(server, api.client.enrol, {
        body: {
          token: reg.secret,
          name: 'enrolled',
          type: 'kmip',
          csr: readFileSync(join(dir, 'enrolled.csr'), 'utf8'),
        },
      }),
    ).data;
    writeFileSync(join(dir, 'enrolled.pem'), enrolled.certificate_pem + enrolled.chain_pem.join(''));
    const files = filesOf('enrolled');
    const before = results(await rawExchange(port, files, createRequest()));
    expect(before[0]).toMatchObject({ status: 1, reason: 0x0c });
    expect(before[0]!.message).toContain('no role');
    const listed = ok(
      await call(server, api.kmip.list, { token, query: { page: 1, page_size: 50, name: 'enrolled' } }),
    ).data;
    expect(listed.data[0]).toMatchObject({ name: 'enrolled', role_id: null, state: 'active' });
    const roles = ok(await call(server, api.role.list, { token, query: { page: 1, page_size: 50 } })).data
      .data;
    ok(
      await call(server, api.kmip.update, {
        token,
        body: { id: enrolled.client_id, role_id: roles.find((r) => r.name === 'Operator')!.id },
      }),
    );
    await new Promise((r) => setTimeout(r, 1100));
    expect(results(await rawExchange(port, files, createRequest()))[0]!.status).toBe(0);
  }, 60_000);

  it('makes a client its key when it has no CSR, answered once in a PKCS#12 file that connects', async () => {
    const roles = ok(await call(server, api.role.list, { token, query: { page: 1, page_size: 50 } })).data
      .data;
    const made = ok(
      await call(server, api.kmip.create, {
        token,
        body: {
          name: 'p12-client',
          role_id: roles.find((r) => r.name === 'Administrator')!.id,
          key_algorithm: 'RSA-2048',
          pkcs12_password: 'P12-Pass-word',
        },
      }),
    ).data;
    expect(made.pkcs12).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const pfx = Buffer.from(made.pkcs12!, 'base64');
    expect(
      results(await rawExchange(port, { pfx, passphrase: 'P12-Pass-word' }, createRequest()))[0]!.status,
    ).toBe(0);
    // Neither a CSR and a password together, nor neither of them.
    const both = await call(server, api.kmip.create, {
      token,
      body: { name: 'p12-both', role_id: made.client.role_id!, csr: 'x', pkcs12_password: 'P12-Pass-word' },
    });
    expect(both.code).toBe(4000);
    const none = await call(server, api.kmip.create, {
      token,
      body: { name: 'p12-none', role_id: made.client.role_id! },
    });
    expect(none.code).toBe(4000);
    // The password is not kept anywhere.
    const stored = await server.database.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'kmip.client.create')
      .execute();
    expect(stored.every((r) => !r.details.includes('P12-Pass-word'))).toBe(true);
  }, 60_000);

  it('answers hostile input with a KMIP error or closes, and keeps serving', async () => {
    // No client certificate.
    expect(results(await rawExchange(port, null, createRequest()))[0]).toMatchObject({
      status: 1,
      reason: 0x0c,
    });
    // A length that lies (more than the limit): Invalid Message, then closed.
    const liar = Buffer.from([0x42, 0x00, 0x78, 0x01, 0x7f, 0xff, 0xff, 0xf8]);
    expect(results(await rawExchange(port, admin, liar))[0]).toMatchObject({ status: 1, reason: 0x04 });
    // Truncated: the server waits for the rest, then the client gives up; nothing answered.
    expect((await rawExchange(port, admin, createRequest().subarray(0, 40), 500)).length).toBe(0);
    // Not a structure.
    expect(results(await rawExchange(port, admin, Buffer.from('GET / HTTP/1.1\r\n\r\n')))[0]).toMatchObject({
      status: 1,
      reason: 0x04,
    });
    // Still serving.
    expect(results(await rawExchange(port, admin, createRequest()))[0]!.status).toBe(0);
  }, 60_000);
});
