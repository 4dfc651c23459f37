import { execFile, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { connect, createServer, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code, type CaAlgorithm } from '@ksp/contracts';
import {
  ADMIN,
  call,
  encodeUsername,
  hashForLogin,
  callUnchecked,
  engines,
  login,
  roleIdByName,
  type TestServer,
} from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';
import { makeSelfSignedEc, newEcKey, openssl } from '../../test/openssl.js';
import { sign as cryptoSign, sm2Sign } from '../../platform/crypto/asymmetric.js';
import { sm2PublicKeyFromSpki } from '../../platform/crypto/encoding.js';
import { generateKey } from '../../platform/crypto/generate.js';
import { certificateSpki, verifyCertificateSignature } from './pki/certificate.js';
import { buildCsr } from './pki/csr.js';
import { parseName } from './pki/name.js';
import { toPem } from './pki/pem.js';
import { signerFromMaterial } from './pki/signer.js';
import { openSm2EnvelopedKey } from './pki/sm2-enveloped-key.js';
import { mlDsaSignedBy } from '../../test/ml-dsa.js';

/** Runs openssl and answers its exit status and output (for checks that are meant to fail). */
function tryOpenssl(args: string[], cwd: string) {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/**
 * openssl without blocking the event loop: for commands that call this very server (OCSP
 * over HTTP), which could not answer while a synchronous child runs.
 */
function opensslAsync(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve) => {
    execFile('openssl', args, { cwd, encoding: 'utf8' }, (_err, stdout, stderr) =>
      resolve(`${stdout}${stderr}`),
    );
  });
}

const pemOf = (file: { content: string }) => Buffer.from(file.content, 'base64').toString('utf8');

describe.each(await engines())('certificates on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let dir: string;
  let base: string;
  let root: { id: string; pem: string };
  let inter: { id: string; pem: string };

  signedInServer(engine, (started) => ({ server, token } = started));
  beforeAll(async () => {
    base = await server.app.listen({ host: '127.0.0.1', port: 0 });
    dir = mkdtempSync(join(tmpdir(), 'ksp-cert-'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const write = (name: string, text: string | Buffer) => {
    writeFileSync(join(dir, name), text);
    return name;
  };
  const ok = <T extends { code: number; msg: string }>(answer: T, what = ''): T => {
    expect(answer.code, `${what} ${answer.msg}`).toBe(0);
    return answer;
  };

  async function newCa(name: string, algorithm: CaAlgorithm, extra: Record<string, unknown> = {}) {
    return ok(
      await call(server, api.cert.caCreate, {
        token,
        body: { name, cn: `${name} CA`, o: 'KSP Test', c: 'CN', algorithm, ...extra },
      }),
      name,
    ).data;
  }

  /** A CSR made by openssl with its own key (EC P-256 by default). */
  function opensslCsr(name: string, subject: string, keyArgs = newEcKey(`${name}.key`)) {
    openssl(['req', '-new', ...keyArgs, '-subj', subject, '-out', `${name}.csr`], dir);
    return readFileSync(join(dir, `${name}.csr`), 'utf8');
  }

  it('creates a root CA (pending, with a CSR openssl accepts), self-signs it and makes it the default', async () => {
    const pending = await newCa('Root', 'EC-P256');
    expect(pending).toMatchObject({ state: 'pending', type: null, is_default: false, certificate_pem: null });
    expect(pending.csr_pem).toContain('BEGIN CERTIFICATE REQUEST');
    write('root.csr', pending.csr_pem!);
    expect(tryOpenssl(['req', '-in', 'root.csr', '-verify', '-noout'], dir).out).toMatch(/verify OK/i);
    // Its private key is a key object of the key store, which refuses to delete it.
    const key = await call(server, api.key.detail, { token, query: { id: pending.key_id } });
    expect(key.data).toMatchObject({ algorithm: 'EC-P256', object_type: 'private', exportable: false });
    expect((await call(server, api.key.delete, { token, body: { ids: [pending.key_id] } })).code).toBe(
      Code.STATE_FORBIDS,
    );

    const signed = ok(
      await call(server, api.cert.caSelfSign, { token, body: { id: pending.id, validity_days: 3650 } }),
    );
    expect(signed.data).toMatchObject({ state: 'active', type: 'root', is_default: true, path_len: null });
    // Its first (empty) CRL is published at once.
    expect(signed.data.crl).toMatchObject({ number: '1', entries: 0 });
    root = { id: pending.id, pem: signed.data.certificate_pem! };
    write('root.pem', root.pem);
    const text = tryOpenssl(['x509', '-in', 'root.pem', '-noout', '-text'], dir).out;
    expect(text).toMatch(/CA:TRUE/);
    expect(text).toMatch(/Certificate Sign, CRL Sign/);
    expect(tryOpenssl(['verify', '-CAfile', 'root.pem', 'root.pem'], dir).out).toMatch(/OK/);

    // Signing it again is refused: it is not pending any more.
    const again = await call(server, api.cert.caSelfSign, { token, body: { id: pending.id } });
    expect(again.code).toBe(Code.STATE_FORBIDS);
  });

  it('signs an intermediate CA (RSA-2048, path length 0) with the root', async () => {
    const pending = await newCa('Issuing', 'RSA-2048');
    const signed = ok(
      await call(server, api.cert.caSign, {
        token,
        body: { id: pending.id, parent_id: root.id, validity_days: 1825, path_len: 0 },
      }),
    );
    expect(signed.data).toMatchObject({
      state: 'active',
      type: 'intermediate',
      parent_id: root.id,
      path_len: 0,
    });
    expect(signed.data.chain_pem).toHaveLength(2);
    inter = { id: pending.id, pem: signed.data.certificate_pem! };
    write('inter.pem', inter.pem);
    expect(tryOpenssl(['verify', '-CAfile', 'root.pem', 'inter.pem'], dir).out).toMatch(/inter.pem: OK/);
    // Path length 0: it may not sign another CA.
    const sub = await newCa('Too Deep', 'EC-P256');
    const refused = await call(server, api.cert.caSign, { token, body: { id: sub.id, parent_id: inter.id } });
    expect(refused.code).toBe(Code.STATE_FORBIDS);
    expect(refused.msg).toMatch(/path length is 0/);
  });

  it('issues a server certificate from an openssl CSR that openssl verifies with its chain', async () => {
    const csr = opensslCsr('web', '/CN=web.example.test/O=Acme');
    const issued = ok(
      await call(server, api.cert.issue, {
        token,
        body: {
          name: 'web server',
          ca_id: inter.id,
          csr,
          dns_names: 'web.example.test, *.web.example.test',
          ip_addresses: '10.0.0.5,::1',
          purpose: 'server',
          usage: 'both',
          validity_days: 90,
        },
      }),
    ).data;
    expect(issued).toMatchObject({
      name: 'web server',
      cn: 'web.example.test',
      ca_id: inter.id,
      ca_name: 'Issuing',
      purpose: 'server',
      usage: 'both',
      algorithm: 'EC-P256',
      key_bits: 256,
      status: 'normal',
      source: 'csr',
      has_private_key: false,
      dns_names: ['web.example.test', '*.web.example.test'],
      ip_addresses: ['10.0.0.5', '::1'],
    });
    expect(issued.serial.replace(/:/g, '').length).toBeGreaterThanOrEqual(16);
    expect(Date.parse(issued.not_after) - Date.parse(issued.not_before)).toBe(90 * 86_400_000);
    expect(issued.ext_key_usage).toContain('serverAuth');
    write('web.pem', issued.certificate_pem);
    write('chain.pem', issued.chain_pem.join(''));
    expect(issued.chain_pem).toHaveLength(2);
    const verified = tryOpenssl(
      ['verify', '-CAfile', 'root.pem', '-untrusted', 'inter.pem', '-purpose', 'sslserver', 'web.pem'],
      dir,
    );
    expect(verified.out).toMatch(/web.pem: OK/);
    const text = tryOpenssl(['x509', '-in', 'web.pem', '-noout', '-text'], dir).out;
    expect(text).toMatch(
      /DNS:web.example.test, DNS:\*.web.example.test, IP Address:10.0.0.5, IP Address:0:0:0:0:0:0:0:1/,
    );
    expect(text).toContain(`${base}/pki/crl/${inter.id}.crl`);
    expect(text).toContain(`OCSP - URI:${base}/pki/ocsp/${inter.id}`);

    // The chain as .p7b: openssl reads three certificates from it.
    const p7b = ok(
      await call(server, api.cert.download, { token, query: { id: issued.id, kind: 'chain-p7b' } }),
    ).data;
    expect(p7b.filename).toBe('web_server.p7b');
    write('web.p7b', Buffer.from(p7b.content, 'base64'));
    const printed = tryOpenssl(
      ['pkcs7', '-inform', 'DER', '-in', 'web.p7b', '-print_certs', '-noout'],
      dir,
    ).out;
    expect(printed.match(/subject=/g)).toHaveLength(3);

    // Listed, filtered, counted.
    const list = ok(
      await call(server, api.cert.list, { token, query: { ca_id: inter.id, purpose: 'server' } }),
    ).data;
    expect(list.data.map((c) => c.id)).toContain(issued.id);
    const none = ok(await call(server, api.cert.list, { token, query: { status: 'revoked' } })).data;
    expect(none.total).toBe(0);
    const expiring = ok(await call(server, api.cert.list, { token, query: { expiring: 'true' } })).data;
    expect(expiring.total).toBe(0);
  });

  it('revokes a certificate: the CRL, openssl -crl_check and the OCSP responder all see it', async () => {
    const csr = opensslCsr('victim', '/CN=victim.example.test');
    const victim = ok(
      await call(server, api.cert.issue, {
        token,
        body: { name: 'victim', ca_id: inter.id, csr, purpose: 'server', dns_names: 'victim.example.test' },
      }),
    ).data;
    write('victim.pem', victim.certificate_pem);
    const crlBefore = ok(
      await call(server, api.cert.caDownload, { token, query: { id: inter.id, kind: 'crl-pem' } }),
    ).data;
    write('crl-before.pem', pemOf(crlBefore));
    write(
      'root-crl.pem',
      pemOf(
        ok(await call(server, api.cert.caDownload, { token, query: { id: root.id, kind: 'crl-pem' } })).data,
      ),
    );
    expect(tryOpenssl(['crl', '-in', 'crl-before.pem', '-CAfile', 'inter.pem', '-noout'], dir).out).toMatch(
      /verify OK/,
    );
    write('crls-before.pem', `${pemOf(crlBefore)}${readFileSync(join(dir, 'root-crl.pem'), 'utf8')}`);
    const goodCheck = tryOpenssl(
      [
        'verify',
        '-crl_check_all',
        '-CAfile',
        'root.pem',
        '-untrusted',
        'inter.pem',
        '-CRLfile',
        'crls-before.pem',
        'victim.pem',
      ],
      dir,
    );
    expect(goodCheck.out).toMatch(/victim.pem: OK/);

    const before = await fetch(`${base}/pki/crl/${inter.id}.crl`);
    const etagBefore = before.headers.get('etag');
    expect(etagBefore).toMatch(/^"[\w-]{27}"$/);
    const revoked = ok(
      await call(server, api.cert.revoke, { token, body: { id: victim.id, reason: 'keyCompromise' } }),
    );
    expect(revoked.data).toMatchObject({ status: 'revoked', revocation_reason: 'keyCompromise' });

    // The published CRL (the URL in the certificate, over HTTP) now lists it.
    const fetched = await fetch(`${base}/pki/crl/${inter.id}.crl`);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toBe('application/pkix-crl');
    // A relying party asking with its old ETag gets the new CRL; with the new one, 304 and no body.
    const etag = fetched.headers.get('etag')!;
    expect(etag).not.toBe(etagBefore);
    const stale = await fetch(`${base}/pki/crl/${inter.id}.crl`, {
      headers: { 'if-none-match': etagBefore! },
    });
    expect(stale.status).toBe(200);
    expect(stale.headers.get('etag')).toBe(etag);
    const unchanged = await fetch(`${base}/pki/crl/${inter.id}.crl`, { headers: { 'if-none-match': etag } });
    expect(unchanged.status).toBe(304);
    expect((await unchanged.arrayBuffer()).byteLength).toBe(0);
    expect(unchanged.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    write('crl-after.der', Buffer.from(await fetched.arrayBuffer()));
    const crlText = tryOpenssl(
      ['crl', '-inform', 'DER', '-in', 'crl-after.der', '-CAfile', 'inter.pem', '-noout', '-text'],
      dir,
    ).out;
    expect(crlText).toMatch(/verify OK/);
    expect(crlText.replace(/:/g, '')).toContain(victim.serial.replace(/:/g, ''));
    expect(crlText).toMatch(/Key Compromise/);
    expect(crlText).toMatch(/X509v3 CRL Number:\s+2/);
    openssl(['crl', '-inform', 'DER', '-in', 'crl-after.der', '-out', 'crl-after.pem'], dir);
    write(
      'crls-after.pem',
      `${readFileSync(join(dir, 'crl-after.pem'), 'utf8')}${readFileSync(join(dir, 'root-crl.pem'), 'utf8')}`,
    );
    const badCheck = tryOpenssl(
      [
        'verify',
        '-crl_check_all',
        '-CAfile',
        'root.pem',
        '-untrusted',
        'inter.pem',
        '-CRLfile',
        'crls-after.pem',
        'victim.pem',
      ],
      dir,
    );
    expect(badCheck.status).not.toBe(0);
    expect(badCheck.out).toMatch(/error 23 .*certificate revoked/);
    const detail = ok(await call(server, api.cert.caDetail, { token, query: { id: inter.id } })).data;
    expect(detail.crl).toMatchObject({ number: '2', entries: 1 });

    // OCSP, POST and GET, through openssl against the responder the certificate names.
    const ocsp = (cert: string) =>
      opensslAsync(
        [
          'ocsp',
          '-issuer',
          'inter.pem',
          '-cert',
          cert,
          '-url',
          `${base}/pki/ocsp/${inter.id}`,
          '-CAfile',
          'root.pem',
          '-resp_text',
        ],
        dir,
      );
    const revokedAnswer = await ocsp('victim.pem');
    expect(revokedAnswer).toMatch(/Response verify OK/);
    expect(revokedAnswer).toMatch(/victim.pem: revoked/);
    expect(revokedAnswer).toMatch(/Reason: keyCompromise/);
    const goodAnswer = await ocsp('web.pem');
    expect(goodAnswer).toMatch(/web.pem: good/);
    expect(goodAnswer).not.toMatch(/WARNING: no nonce/);
    openssl(['ocsp', '-issuer', 'inter.pem', '-cert', 'web.pem', '-reqout', 'req.der'], dir);
    const getUrl = `${base}/pki/ocsp/${inter.id}/${encodeURIComponent(readFileSync(join(dir, 'req.der')).toString('base64'))}`;
    const viaGet = await fetch(getUrl);
    expect(viaGet.headers.get('content-type')).toBe('application/ocsp-response');
    write('resp.der', Buffer.from(await viaGet.arrayBuffer()));
    /** What openssl reads in the OCSP answer `file` about web.pem, checked against the root. */
    const answerOf = (file: string) =>
      tryOpenssl(
        [
          'ocsp',
          '-respin',
          file,
          '-issuer',
          'inter.pem',
          '-cert',
          'web.pem',
          '-CAfile',
          'root.pem',
          '-no_nonce',
        ],
        dir,
      ).out;
    const parsed = answerOf('resp.der');
    expect(parsed).toMatch(/Response verify OK/);
    expect(parsed).toMatch(/web.pem: good/);
    // A tampered answer fails verification.
    // One digit of producedAt (the first GeneralizedTime, tag 0x18 length 15) changes.
    const tampered = readFileSync(join(dir, 'resp.der'));
    const producedAt = tampered.indexOf(Buffer.from([0x18, 0x0f]));
    expect(producedAt).toBeGreaterThan(0);
    tampered.writeUInt8(tampered.readUInt8(producedAt + 15) ^ 0x01, producedAt + 15);
    write('tampered.der', tampered);
    const broken = answerOf('tampered.der');
    expect(broken).toMatch(/Response Verify Failure|verify error/i);
    // Garbage is a malformedRequest answer, not a crash.
    const garbage = await fetch(`${base}/pki/ocsp/${inter.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/ocsp-request' },
      body: Buffer.from('not an ocsp request'),
    });
    expect(Buffer.from(await garbage.arrayBuffer()).toString('hex')).toBe('30030a0101');

    // Revoking twice is refused; a revoked certificate may be deleted and stays on the CRL.
    expect((await call(server, api.cert.revoke, { token, body: { id: victim.id } })).code).toBe(
      Code.STATE_FORBIDS,
    );
    expect(ok(await call(server, api.cert.delete, { token, body: { ids: [victim.id] } })).data.deleted).toBe(
      1,
    );
    expect((await call(server, api.cert.detail, { token, query: { id: victim.id } })).code).toBe(
      Code.NOT_FOUND,
    );
    expect(await ocsp('victim.pem')).toMatch(/victim.pem: revoked/);
  });

  it('puts a certificate on hold and resumes it', async () => {
    const held = ok(
      await call(server, api.cert.issue, {
        token,
        body: {
          name: 'held',
          ca_id: inter.id,
          cn: 'held.example.test',
          purpose: 'client',
          key_algorithm: 'EC-P256',
        },
      }),
    ).data;
    expect(
      ok(await call(server, api.cert.revoke, { token, body: { id: held.id, reason: 'certificateHold' } }))
        .data.status,
    ).toBe('hold');
    expect((await call(server, api.cert.delete, { token, body: { ids: [held.id] } })).code).toBe(
      Code.STATE_FORBIDS,
    );
    const onHold = ok(await call(server, api.cert.list, { token, query: { status: 'hold' } })).data;
    expect(onHold.data.map((c) => c.id)).toEqual([held.id]);
    const resumed = ok(await call(server, api.cert.resume, { token, body: { id: held.id } })).data;
    expect(resumed).toMatchObject({ status: 'normal', revocation_reason: null, revoked_at: null });
    expect((await call(server, api.cert.resume, { token, body: { id: held.id } })).code).toBe(
      Code.STATE_FORBIDS,
    );
    const crl = ok(await call(server, api.cert.caDetail, { token, query: { id: inter.id } })).data.crl;
    expect(crl?.entries).toBe(1); // the revoked victim only
  });

  it('generates key pairs in the key store and hands the private key out only encrypted, when allowed', async () => {
    const issued = ok(
      await call(server, api.cert.issue, {
        token,
        body: {
          name: 'tls server',
          ca_id: inter.id,
          cn: 'localhost',
          dns_names: 'localhost',
          ip_addresses: '127.0.0.1',
          purpose: 'server',
          key_algorithm: 'RSA-2048',
          exportable: true,
        },
      }),
    ).data;
    expect(issued).toMatchObject({
      source: 'generated',
      has_private_key: true,
      exportable: true,
      algorithm: 'RSA-2048',
    });
    const key = await call(server, api.key.detail, { token, query: { id: issued.key_id! } });
    expect(key.data).toMatchObject({ algorithm: 'RSA-2048', exportable: true });

    const noPassword = await callUnchecked(server, api.cert.downloadKey, {
      token,
      body: { id: issued.id, kind: 'key-pkcs8' },
    });
    expect(noPassword.code).toBe(Code.INVALID);
    expect(noPassword.msg).toMatch(/password/);
    const short = await callUnchecked(server, api.cert.downloadKey, {
      token,
      body: { id: issued.id, kind: 'key-pkcs8', password: 'short' },
    });
    expect(short.code).toBe(Code.INVALID);
    expect(short.msg).toMatch(/password/);

    const pkcs8 = ok(
      await call(server, api.cert.downloadKey, {
        token,
        body: { id: issued.id, kind: 'key-pkcs8', password: 'download-pass-1' },
      }),
    ).data;
    const pem = pemOf(pkcs8);
    expect(pem).toContain('BEGIN ENCRYPTED PRIVATE KEY');
    write('tls.key.pem', pem);
    expect(
      tryOpenssl(['pkey', '-in', 'tls.key.pem', '-passin', 'pass:download-pass-1', '-noout'], dir).status,
    ).toBe(0);
    expect(
      tryOpenssl(['pkey', '-in', 'tls.key.pem', '-passin', 'pass:wrong-pass-1', '-noout'], dir).status,
    ).not.toBe(0);

    const p12 = ok(
      await call(server, api.cert.downloadKey, {
        token,
        body: { id: issued.id, kind: 'key-pkcs12', password: 'download-pass-1' },
      }),
    ).data;
    write('tls.p12', Buffer.from(p12.content, 'base64'));
    const info = tryOpenssl(
      ['pkcs12', '-in', 'tls.p12', '-info', '-noout', '-passin', 'pass:download-pass-1'],
      dir,
    );
    expect(info.status, info.out).toBe(0);
    expect(info.out).toMatch(/MAC: sha256/);

    // Reading certificates is not enough to take their keys: an Auditor is refused.
    const auditor = ok(
      await call(server, api.user.create, {
        token,
        body: {
          username: 'cert-auditor',
          password: 'Audit-Pass-1',
          email: 'cert-auditor@example.test',
          role_ids: [await roleIdByName(server.database.db, 'Auditor')],
          must_change_password: false,
        },
      }),
    );
    expect(auditor.data.id).toBeTruthy();
    const auditorToken = await login(server, 'cert-auditor', 'Audit-Pass-1');
    expect(
      ok(await call(server, api.cert.detail, { token: auditorToken, query: { id: issued.id } })).data.id,
    ).toBe(issued.id);
    const taken = await call(server, api.cert.downloadKey, {
      token: auditorToken,
      body: { id: issued.id, kind: 'key-pkcs8', password: 'download-pass-1' },
    });
    expect(taken.code).toBe(Code.FORBIDDEN);

    // A TLS handshake: the server presents the issued certificate and its intermediate; the
    // client trusts only the root.
    const tlsServer = createServer({
      key: pem,
      passphrase: 'download-pass-1',
      cert: `${issued.certificate_pem}${inter.pem}`,
    });
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    const port = (tlsServer.address() as { port: number }).port;
    try {
      const socket: TLSSocket = connect({ host: '127.0.0.1', port, servername: 'localhost', ca: root.pem });
      const authorized = await new Promise<boolean>((resolve, reject) => {
        socket.once('secureConnect', () => resolve(socket.authorized));
        socket.once('error', reject);
      });
      socket.destroy();
      expect(authorized).toBe(true);
      // Trusting another root, the handshake is refused.
      const other = await newCa('Other Root', 'EC-P256');
      const otherRoot = ok(await call(server, api.cert.caSelfSign, { token, body: { id: other.id } })).data
        .certificate_pem!;
      const stranger = connect({ host: '127.0.0.1', port, servername: 'localhost', ca: otherRoot });
      const failure = await new Promise<string>((resolve) => {
        stranger.once('secureConnect', () => resolve('connected'));
        stranger.once('error', (err: Error) => resolve(err.message));
      });
      stranger.destroy();
      expect(failure).toMatch(/unable to get local issuer certificate|self.signed/i);
    } finally {
      tlsServer.close();
    }

    // A key that may not leave: refused, and the refusal is audited.
    const locked = ok(
      await call(server, api.cert.issue, {
        token,
        body: { name: 'locked', ca_id: inter.id, cn: 'locked.example.test', key_algorithm: 'EC-P256' },
      }),
    ).data;
    const refused = await call(server, api.cert.downloadKey, {
      token,
      body: { id: locked.id, kind: 'key-pkcs12', password: 'download-pass-1' },
    });
    expect(refused.code).toBe(Code.STATE_FORBIDS);
    expect(refused.msg).toMatch(/may not be exported/);
    const records = await server.database.db
      .selectFrom('audit_log')
      .select(['action', 'result'])
      .where('object_id', '=', locked.id)
      .execute();
    expect(records).toContainEqual({ action: 'cert.download-key', result: 'failure' });
    // The CSR download of a generated key pair has nothing to give.
    expect(
      (await call(server, api.cert.download, { token, query: { id: locked.id, kind: 'csr' } })).code,
    ).toBe(Code.STATE_FORBIDS);
  });

  it('runs Ed25519, SM2 and ML-DSA-65 CAs', async () => {
    for (const algorithm of ['ED25519', 'SM2', 'ML-DSA-65'] as const) {
      const ca = await newCa(`CA ${algorithm}`, algorithm);
      const active = ok(
        await call(server, api.cert.caSelfSign, { token, body: { id: ca.id } }),
        algorithm,
      ).data;
      const leaf = ok(
        await call(server, api.cert.issue, {
          token,
          body: {
            name: `leaf ${algorithm}`,
            ca_id: ca.id,
            cn: `leaf-${algorithm}.example.test`,
            key_algorithm: algorithm,
            purpose: 'client',
          },
        }),
        algorithm,
      ).data;
      expect(leaf.algorithm).toBe(algorithm);
      const caDer = new X509Certificate(active.certificate_pem!).raw;
      const leafDer = Buffer.from(leaf.certificate_pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
      expect(verifyCertificateSignature(leafDer, certificateSpki(Buffer.from(caDer))), algorithm).toBe(true);
      if (algorithm === 'ML-DSA-65') {
        // Debian's OpenSSL has no ML-DSA: liboqs checks the CA's own signature and the leaf's.
        expect(await mlDsaSignedBy(caDer, caDer, algorithm)).toBe(true);
        expect(await mlDsaSignedBy(leafDer, caDer, algorithm)).toBe(true);
        expect(await mlDsaSignedBy(caDer, leafDer, algorithm)).toBe(false);
      } else {
        write(`${algorithm}-ca.pem`, active.certificate_pem!);
        write(`${algorithm}-leaf.pem`, leaf.certificate_pem);
        const args = [
          'verify',
          ...(algorithm === 'SM2' ? ['-vfyopt', 'distid:1234567812345678'] : []),
          '-CAfile',
          `${algorithm}-ca.pem`,
          `${algorithm}-leaf.pem`,
        ];
        expect(tryOpenssl(args, dir).out, algorithm).toMatch(/: OK/);
      }
      // Sign-only algorithms refuse an encryption usage.
      if (algorithm !== 'SM2') {
        const refused = await call(server, api.cert.issue, {
          token,
          body: {
            name: 'enc',
            ca_id: ca.id,
            cn: 'enc.example.test',
            key_algorithm: algorithm,
            usage: 'encryption',
          },
        });
        expect(refused.code).toBe(Code.INVALID);
        expect(refused.msg).toMatch(/cannot be used for encryption/);
      }
    }
  });

  it("answers bad input with the field and the rule, in the caller's language", async () => {
    const badName = await call(server, api.cert.issue, {
      token,
      body: { name: 'bad', ca_id: inter.id, cn: 'x', o: 'a\u0000b', key_algorithm: 'EC-P256' },
    });
    expect(badName.code).toBe(Code.INVALID);
    expect(badName.msg).toBe('o: Invalid name data format');
    const badNameZh = await call(server, api.cert.caCreate, {
      token,
      lang: 'zh',
      body: { name: 'bad-zh', cn: 'x', o: 'a\u0000b' },
    });
    expect(badNameZh.msg).toBe('o：名称数据格式无效');
    const badIp = await call(server, api.cert.issue, {
      token,
      body: {
        name: 'bad',
        ca_id: inter.id,
        cn: 'x',
        ip_addresses: '10.0.0.1, 300.1.1.1',
        key_algorithm: 'EC-P256',
      },
    });
    expect(badIp.code).toBe(Code.INVALID);
    expect(badIp.msg).toMatch(/300\.1\.1\.1/);
    const badEmail = await call(server, api.cert.issue, {
      token,
      body: { name: 'bad', ca_id: inter.id, cn: 'x', emails: 'not-an-address', key_algorithm: 'EC-P256' },
    });
    expect(badEmail.msg).toMatch(/not-an-address/);
    const noCn = await call(server, api.cert.issue, { token, body: { name: 'bad', ca_id: inter.id } });
    expect(noCn.msg).toMatch(/cn: required/);
    const junkCsr = await call(server, api.cert.issue, {
      token,
      body: { name: 'bad', ca_id: inter.id, csr: 'hello' },
    });
    expect(junkCsr.msg).toMatch(/csr: not a PKCS#10/);
    const key = readFileSync(join(dir, 'web.key'), 'utf8');
    const withKey = await call(server, api.cert.issue, {
      token,
      body: { name: 'bad', ca_id: inter.id, csr: `${readFileSync(join(dir, 'web.csr'), 'utf8')}${key}` },
    });
    expect(withKey.msg).toMatch(/contains a private key/);
    // A CSR whose signature does not match: refused and audited as a failure.
    const csrDer = Buffer.from(
      readFileSync(join(dir, 'web.csr'), 'utf8').replace(/-----[^-]+-----|\s/g, ''),
      'base64',
    );
    csrDer.writeUInt8(csrDer.readUInt8(csrDer.length - 3) ^ 0x01, csrDer.length - 3);
    const forged = `-----BEGIN CERTIFICATE REQUEST-----\n${csrDer.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    const refused = await call(server, api.cert.issue, {
      token,
      body: { name: 'forged', ca_id: inter.id, csr: forged },
    });
    expect(refused.code).toBe(Code.INVALID);
    expect(refused.msg).toMatch(/signature does not match/);
    const audited = await server.database.db
      .selectFrom('audit_log')
      .select(['action', 'result'])
      .where('action', '=', 'cert.issue')
      .where('result', '=', 'failure')
      .execute();
    expect(audited.length).toBeGreaterThan(0);
    // Nothing half-written: the failed issues left no certificate.
    const all = ok(await call(server, api.cert.list, { token, query: { name: 'bad' } })).data;
    expect(all.total).toBe(0);
    // A pending CA cannot issue; an unknown one is 4040.
    const pending = await newCa('Pending', 'EC-P256');
    const fromPending = await call(server, api.cert.issue, {
      token,
      body: { name: 'p', ca_id: pending.id, cn: 'p', key_algorithm: 'EC-P256' },
    });
    expect(fromPending.code).toBe(Code.STATE_FORBIDS);
    expect(fromPending.msg).toMatch(/pending/);
    const unknown = await call(server, api.cert.issue, {
      token,
      body: { name: 'p', ca_id: '00000000-0000-4000-8000-000000000000', cn: 'p' },
    });
    expect(unknown.code).toBe(Code.NOT_FOUND);
    // Validity never passes the issuer's end.
    const long = ok(
      await call(server, api.cert.issue, {
        token,
        body: {
          name: 'long',
          ca_id: inter.id,
          cn: 'long.example.test',
          key_algorithm: 'EC-P256',
          validity_days: 36500,
        },
      }),
    ).data;
    const interEnd = ok(await call(server, api.cert.caDetail, { token, query: { id: inter.id } })).data
      .not_after;
    expect(long.not_after).toBe(interEnd);
    // Duplicate CA names conflict.
    expect((await call(server, api.cert.caCreate, { token, body: { name: 'Root', cn: 'again' } })).code).toBe(
      Code.CONFLICT,
    );
  });

  it('installs an externally signed CA certificate, checked against the pending key', async () => {
    const pending = await newCa('External Sub', 'EC-P256');
    write('ext-sub.csr', pending.csr_pem!);
    // An "external" CA made by openssl signs the CSR.
    openssl(
      [
        'req',
        '-x509',
        ...newEcKey('ext-root.key'),
        '-subj',
        '/CN=External Root',
        '-days',
        '30',
        '-out',
        'ext-root.pem',
      ],
      dir,
    );
    write('ext.cnf', 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n');
    openssl(
      [
        'x509',
        '-req',
        '-in',
        'ext-sub.csr',
        '-CA',
        'ext-root.pem',
        '-CAkey',
        'ext-root.key',
        '-CAcreateserial',
        '-days',
        '20',
        '-extfile',
        'ext.cnf',
        '-out',
        'ext-sub.pem',
      ],
      dir,
    );
    // The server's clock is the test's: past the moment openssl signed.
    server.clock.now = new Date(Date.now() + 1000);
    // Another key's certificate is refused (and audited).
    const wrong = await call(server, api.cert.caInstall, {
      token,
      body: { id: pending.id, certificate: readFileSync(join(dir, 'ext-root.pem'), 'utf8') },
    });
    expect(wrong.code).toBe(Code.INVALID);
    expect(wrong.msg).toMatch(/not the key of local CA 'External Sub'/);
    const installed = ok(
      await call(server, api.cert.caInstall, {
        token,
        body: {
          id: pending.id,
          certificate: `${readFileSync(join(dir, 'ext-sub.pem'), 'utf8')}${readFileSync(join(dir, 'ext-root.pem'), 'utf8')}`,
        },
      }),
    ).data;
    expect(installed).toMatchObject({ state: 'active', type: 'intermediate', parent_id: null });
    expect(installed.chain_pem).toHaveLength(2);
    const leaf = ok(
      await call(server, api.cert.issue, {
        token,
        body: {
          name: 'under external',
          ca_id: pending.id,
          cn: 'ext-leaf.example.test',
          key_algorithm: 'EC-P256',
        },
      }),
    ).data;
    write('ext-leaf.pem', leaf.certificate_pem);
    write('ext-sub-issued.pem', installed.certificate_pem!);
    expect(
      tryOpenssl(
        [
          'verify',
          '-attime',
          String(Math.floor(server.clock.now.getTime() / 1000) + 5),
          '-CAfile',
          'ext-root.pem',
          '-untrusted',
          'ext-sub-issued.pem',
          'ext-leaf.pem',
        ],
        dir,
      ).out,
    ).toMatch(/ext-leaf.pem: OK/);
    // The leaf's validity is cut at the externally signed CA's end (20 days).
    expect(Date.parse(leaf.not_after)).toBeLessThanOrEqual(Date.parse(installed.not_after!));
    // Later tests check with openssl at the real time: the server's clock goes back behind it.
    server.clock.now = new Date(Date.now() - 1000);
  });

  it('keeps external CA certificates from PEM or .p7b, refusing what is not a CA chain', async () => {
    openssl(
      ['crl2pkcs7', '-nocrl', '-certfile', 'inter.pem', '-certfile', 'root.pem', '-out', 'bundle.p7b'],
      dir,
    );
    const p7b = readFileSync(join(dir, 'bundle.p7b'), 'utf8');
    const added = ok(await call(server, api.cert.externalUpload, { token, body: { content: p7b } })).data;
    expect(added.added.map((c) => c.name).sort()).toEqual(['Issuing CA', 'Root CA']);
    expect(added.added.find((c) => c.name === 'Root CA')?.self_signed).toBe(true);
    const again = ok(await call(server, api.cert.externalUpload, { token, body: { content: p7b } })).data;
    expect(again).toMatchObject({ added: [], skipped: 2 });
    // DER .p7b as Base64, named when it holds one certificate.
    openssl(['crl2pkcs7', '-nocrl', '-certfile', 'ext-root.pem', '-outform', 'DER', '-out', 'one.p7b'], dir);
    const one = ok(
      await call(server, api.cert.externalUpload, {
        token,
        body: { name: 'Partner root', content: readFileSync(join(dir, 'one.p7b')).toString('base64') },
      }),
    ).data;
    expect(one.added.map((c) => c.name)).toEqual(['Partner root']);
    const list = ok(await call(server, api.cert.externalList, { token, query: { name: 'Partner' } })).data;
    expect(list.total).toBe(1);
    const detail = ok(
      await call(server, api.cert.externalDetail, { token, query: { id: one.added[0]!.id } }),
    ).data;
    expect(detail.certificate_pem).toContain('BEGIN CERTIFICATE');

    const leafOnly = await call(server, api.cert.externalUpload, {
      token,
      body: { content: readFileSync(join(dir, 'web.pem'), 'utf8') },
    });
    expect(leafOnly.code).toBe(Code.INVALID);
    expect(leafOnly.msg).toMatch(/is not a CA certificate/);
    const withKey = await call(server, api.cert.externalUpload, {
      token,
      body: { content: `${root.pem}${readFileSync(join(dir, 'ext-root.key'), 'utf8')}` },
    });
    expect(withKey.msg).toMatch(/contains a private key/);
    const junk = await call(server, api.cert.externalUpload, { token, body: { content: 'just text' } });
    expect(junk.msg).toMatch(/content: not a PEM certificate/);
    const broken = await call(server, api.cert.externalUpload, {
      token,
      body: { content: `${inter.pem}${readFileSync(join(dir, 'ext-root.pem'), 'utf8')}` },
    });
    expect(broken.code).toBe(Code.INVALID);
    expect(broken.msg).toMatch(/is not issued by any other certificate/);
    expect(
      ok(await call(server, api.cert.externalDelete, { token, body: { ids: [one.added[0]!.id] } })).data
        .deleted,
    ).toBe(1);
  });

  it('issues online (/sign-cert) with a registration token, counting its uses', async () => {
    const created = ok(
      await call(server, api.registrationToken.create, {
        token,
        body: { name: 'enrol', usage: 'cte', capacity: 2, cert_validity_days: 30 },
      }),
    ).data;
    const csr = opensslCsr('agent', '/CN=agent-01');
    const first = ok(await call(server, api.cert.sign, { body: { token: created.secret, csr } })).data;
    expect(first.remaining).toBe(1);
    expect(first.chain_pem).toHaveLength(1); // the default CA is the root
    write('agent.pem', first.certificate_pem);
    expect(
      tryOpenssl(['verify', '-CAfile', 'root.pem', '-purpose', 'sslclient', 'agent.pem'], dir).out,
    ).toMatch(/agent.pem: OK/);
    const agent = new X509Certificate(first.certificate_pem);
    expect(Date.parse(agent.validTo) - Date.parse(agent.validFrom)).toBe(30 * 86_400_000);
    write('agent.p7b', Buffer.from(first.p7b, 'base64'));
    expect(
      tryOpenssl(['pkcs7', '-inform', 'DER', '-in', 'agent.p7b', '-print_certs', '-noout'], dir).out.match(
        /subject=/g,
      ),
    ).toHaveLength(2);
    const listed = ok(await call(server, api.cert.list, { token, query: { name: 'agent-01' } })).data;
    expect(listed.data[0]).toMatchObject({ source: 'sign-cert', purpose: 'client' });

    expect(
      ok(await call(server, api.cert.sign, { body: { token: created.secret, csr } })).data.remaining,
    ).toBe(0);
    const exhausted = await call(server, api.cert.sign, { body: { token: created.secret, csr } });
    expect(exhausted.code).toBe(Code.STATE_FORBIDS);
    expect(exhausted.msg).toMatch(/no registrations left/);
    const unknown = await call(server, api.cert.sign, { body: { token: 'ksprt_nope', csr } });
    expect(unknown.code).toBe(Code.BAD_CREDENTIALS);
    const withKey = await call(server, api.cert.sign, {
      body: { token: created.secret, csr: `${csr}${readFileSync(join(dir, 'agent.key'), 'utf8')}` },
    });
    expect(withKey.msg).toMatch(/contains a private key/);
    const failures = await server.database.db
      .selectFrom('audit_log')
      .select('result')
      .where('action', '=', 'cert.sign')
      .execute();
    expect(failures.filter((r) => r.result === 'failure').length).toBeGreaterThanOrEqual(2);
    expect(failures.filter((r) => r.result === 'success')).toHaveLength(2);
  });

  it('never issues more online certificates than a token allows, however many arrive at once', async () => {
    const created = ok(
      await call(server, api.registrationToken.create, {
        token,
        body: { name: 'burst', usage: 'kadp', capacity: 3 },
      }),
    ).data;
    const csr = opensslCsr('burst', '/CN=burst-agent');
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => call(server, api.cert.sign, { body: { token: created.secret, csr } })),
    );
    expect(answers.filter((a) => a.code === 0)).toHaveLength(3);
    expect(answers.filter((a) => a.code === Code.STATE_FORBIDS)).toHaveLength(7);
    const stored = ok(await call(server, api.cert.list, { token, query: { name: 'burst-agent' } })).data;
    expect(stored.total).toBe(3);
    const tokens = ok(
      await call(server, api.registrationToken.list, { token, query: { name: 'burst' } }),
    ).data;
    expect(tokens.data[0]).toMatchObject({ used: 3, remaining: 0, status: 'exhausted' });
  });

  it('issues certificates that arrive together, each stored and audited with its own serial', async () => {
    const csr = opensslCsr('together', '/CN=together.example.test');
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call(server, api.cert.issue, {
          token,
          body: { name: `together ${i}`, ca_id: inter.id, csr, purpose: 'client', usage: 'signature' },
        }),
      ),
    );
    const issued = answers.map((a) => ok(a).data);
    expect(new Set(issued.map((c) => c.serial)).size).toBe(12);
    const stored = ok(
      await call(server, api.cert.list, { token, query: { name: 'together', page_size: 50 } }),
    ).data;
    expect(stored.data.map((c) => c.serial).sort()).toEqual(issued.map((c) => c.serial).sort());
    const trail = ok(
      await call(server, api.log.list, { token, query: { page: 1, page_size: 100, action: 'cert.issue' } }),
    ).data.data.filter((r) => r.target.startsWith('together '));
    expect(trail.map((r) => (r.details as { serial: string }).serial).sort()).toEqual(
      issued.map((c) => c.serial).sort(),
    );
  });

  it('gives a domain without any CA its root CA on demand, once', async () => {
    const fresh = ok(await call(server, api.domain.create, { token, body: { name: 'fresh-pki' } })).data;
    const [a, b] = await Promise.all([
      server.services.certs.ensureDefaultCa(fresh.id),
      server.services.certs.ensureDefaultCa(fresh.id),
    ]);
    expect(a?.id).toBeTruthy();
    expect(b?.id).toBe(a?.id);
    expect(a).toMatchObject({
      name: 'Root CA',
      state: 'active',
      type: 'root',
      is_default: 1,
      algorithm: 'EC-P256',
    });
    const cas = await server.database.db
      .selectFrom('cert_ca')
      .select('id')
      .where('domain_id', '=', fresh.id)
      .execute();
    expect(cas).toHaveLength(1);
    const key = await server.database.db
      .selectFrom('kms_key')
      .select(['owner_name', 'owner_id', 'domain_id', 'exportable', 'deletable'])
      .where('id', '=', a!.key_id)
      .executeTakeFirstOrThrow();
    expect(key).toMatchObject({
      owner_name: 'system',
      owner_id: null,
      domain_id: fresh.id,
      exportable: 0,
      deletable: 0,
    });
    // A domain whose administrators made CAs gets none on demand.
    expect((await server.services.certs.ensureDefaultCa(fresh.id))?.id).toBe(a?.id);
  });

  it('deletes CAs only when nothing depends on them, and counts figures for the dashboard', async () => {
    const inUse = await call(server, api.cert.caDelete, { token, body: { ids: [root.id] } });
    expect(inUse.code).toBe(Code.STATE_FORBIDS);
    expect(inUse.msg).toMatch(/still signs other CAs or has valid certificates/);
    const spare = await newCa('Spare', 'EC-P256');
    expect(ok(await call(server, api.cert.caDelete, { token, body: { ids: [spare.id] } })).data.deleted).toBe(
      1,
    );
    const before = ok(await call(server, api.cert.summary, { token })).data;
    const revoked = ok(
      await call(server, api.cert.issue, {
        token,
        body: { name: 'to revoke', ca_id: inter.id, cn: 'r.example.test', key_algorithm: 'EC-P256' },
      }),
    ).data;
    ok(await call(server, api.cert.revoke, { token, body: { id: revoked.id, reason: 'superseded' } }));
    const summary = ok(await call(server, api.cert.summary, { token })).data;
    expect(summary).toMatchObject({
      revoked: before.revoked + 1,
      valid: before.valid,
      total: before.total + 1,
    });
    expect(summary.valid).toBeGreaterThan(3);
    expect(summary.total).toBe(summary.valid + summary.revoked + summary.expired);
    // A month on, the agent certificate (30 days) has expired, and the 90-day one is expiring.
    server.clock.advance(65 * 86_400);
    token = await login(server, ADMIN.username, ADMIN.password);
    const later = ok(await call(server, api.cert.summary, { token })).data;
    expect(later.expired).toBeGreaterThanOrEqual(2);
    const expiring = ok(await call(server, api.cert.list, { token, query: { expiring: 'true' } })).data;
    expect(expiring.data.map((c) => c.name)).toContain('web server');
    const dashboard = ok(await call(server, api.dashboard.summary, { token })).data;
    expect(dashboard.certificates.expiring).toBe(expiring.total);
    expect(dashboard.certificates.valid).toBe(later.valid);
    server.clock.advance(-65 * 86_400);
  });
  it('issues UKEY certificates (single RSA, dual SM2 with the GM/T 0009 envelope) that the UKEY login accepts', async () => {
    const alice = ok(
      await call(server, api.user.create, {
        token,
        body: {
          username: 'ukey-alice',
          password: 'Ukey-Pass-1',
          email: 'ukey-alice@example.test',
          role_ids: [await roleIdByName(server.database.db, 'Operator')],
          must_change_password: false,
        },
      }),
    ).data;
    const tokenCsr = async (algorithm: 'RSA-2048' | 'SM2') => {
      const pair = generateKey(algorithm);
      const signer = signerFromMaterial(algorithm, pair.material, pair.publicKey!);
      const csr = await buildCsr({ subjectName: parseName({ cn: 'ukey-alice' }), signer });
      return { pair, csr: toPem(csr, 'CERTIFICATE REQUEST') };
    };
    const mfa = async (value: '0' | '1') => {
      const list = await call(server, api.config.list, { token, query: { page: 1, page_size: 100 } });
      const entry = list.data.data.find((e) => e.key === 'MFA')!;
      ok(await call(server, api.config.edit, { token, body: { id: entry.id, value } }));
    };
    const ukeyLogin = async (signChallenge: (challenge: Buffer) => Buffer) => {
      const step1 = await call(server, api.user.login, {
        body: { username: encodeUsername('ukey-alice'), password: await hashForLogin('Ukey-Pass-1') },
      });
      expect(step1.code).toBe(Code.UKEY_REQUIRED);
      const challenge = ok(await call(server, api.user.random, { query: { name: 'ukey-alice' } })).data
        .random;
      const sign = signChallenge(Buffer.from(challenge, 'utf8')).toString('base64');
      return call(server, api.user.verify, { body: { name: 'ukey-alice', sign } });
    };

    // Single RSA-2048: the signing certificate is issued and bound.
    const rsa = await tokenCsr('RSA-2048');
    const single = ok(
      await call(server, api.cert.ukeyIssue, {
        token,
        body: { user_id: alice.id, ukey_type: 'SKF', algorithm: 'RSA-2048', serial: 'UK-0001', csr: rsa.csr },
      }),
    ).data;
    expect(single.signing).toMatchObject({
      source: 'ukey',
      purpose: 'client',
      usage: 'signature',
      cn: 'ukey-alice',
    });
    expect(single.encryption).toBeNull();
    expect(single.enveloped_key).toBeNull();
    const bound = ok(await call(server, api.user.detailGroups, { token, body: { id: alice.id } })).data;
    expect(JSON.stringify(bound)).toContain('UK-0001');
    await mfa('1');
    try {
      const rsaLogin = await ukeyLogin((data) =>
        cryptoSign('RSA-2048', rsa.pair.material, data, { rsaScheme: 'PKCS1-v1_5' }),
      );
      expect(rsaLogin.code, rsaLogin.msg).toBe(0);

      // Dual SM2: a signing and an encryption certificate, the encryption key only enveloped.
      const sm2 = await tokenCsr('SM2');
      const dual = ok(
        await call(server, api.cert.ukeyIssue, {
          token,
          body: {
            user_id: alice.id,
            ukey_type: 'SKF',
            algorithm: 'SM2',
            spec: 'dual',
            serial: 'UK-0002',
            csr: sm2.csr,
          },
        }),
      ).data;
      expect(dual.signing).toMatchObject({ algorithm: 'SM2', usage: 'signature' });
      expect(dual.encryption).toMatchObject({
        algorithm: 'SM2',
        usage: 'encryption',
        has_private_key: false,
      });
      const opened = openSm2EnvelopedKey(Buffer.from(dual.enveloped_key!, 'base64'), sm2.pair.material);
      const encryptionSpki = certificateSpki(
        Buffer.from(dual.encryption!.certificate_pem.replace(/-----[^-]+-----|\s/g, ''), 'base64'),
      );
      expect(opened.publicKey.equals(sm2PublicKeyFromSpki(encryptionSpki))).toBe(true);
      expect(dual.encryption!.key_usage).toContain('keyAgreement');
      // The domain's default CA (EC P-256) signed it: plain openssl verify.
      write('ukey-sign.pem', dual.signing.certificate_pem);
      write('ukey-root.pem', dual.chain_pem.at(-1)!);
      expect(tryOpenssl(['verify', '-CAfile', 'ukey-root.pem', 'ukey-sign.pem'], dir).out).toMatch(
        /ukey-sign.pem: OK/,
      );
      // The SM2 signing certificate replaced the RSA one: the UKEY login now takes SM2 signatures only.
      const sm2Login = await ukeyLogin((data) => sm2Sign(sm2.pair.material, data));
      expect(sm2Login.code, sm2Login.msg).toBe(0);
      const oldKey = await ukeyLogin((data) =>
        cryptoSign('RSA-2048', rsa.pair.material, data, { rsaScheme: 'PKCS1-v1_5' }),
      );
      expect(oldKey.code).toBe(Code.BAD_CREDENTIALS);
    } finally {
      await mfa('0');
    }

    const rsaDual = await call(server, api.cert.ukeyIssue, {
      token,
      body: {
        user_id: alice.id,
        ukey_type: 'SKF',
        algorithm: 'RSA-2048',
        spec: 'dual',
        serial: 'UK-3',
        csr: rsa.csr,
      },
    });
    expect(rsaDual.msg).toBe('Dual certificates (signing and encryption) are for SM2 tokens only');
    const mismatch = await call(server, api.cert.ukeyIssue, {
      token,
      body: { user_id: alice.id, ukey_type: 'SKF', algorithm: 'SM2', serial: 'UK-4', csr: rsa.csr },
    });
    expect(mismatch.msg).toBe('csr: the token key is RSA-2048, not SM2');
  });

  it('keeps end-entity certificates beside the external CAs, never trusting them as issuers', async () => {
    const run = promisify(execFile);
    const here = mkdtempSync(join(tmpdir(), 'ksp-leaf-'));
    const ssl = (args: string[]) => run('openssl', args, { cwd: here });
    /** A certificate for `/CN=cn` with a new key, signed by `by` (its .pem and .key). */
    const signed = async (name: string, cn: string, by: string, ext: string) => {
      await ssl(['req', ...newEcKey(`${name}.key`), '-out', `${name}.csr`, '-subj', `/CN=${cn}`]);
      writeFileSync(join(here, `${name}.ext`), `${ext}\n`);
      await ssl([
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        `${by}.pem`,
        '-CAkey',
        `${by}.key`,
        '-set_serial',
        String(Date.now()),
        '-days',
        '30',
        '-extfile',
        `${name}.ext`,
        '-out',
        `${name}.pem`,
      ]);
      return readFileSync(join(here, `${name}.pem`), 'utf8');
    };
    try {
      await makeSelfSignedEc({
        key: 'anchor.key',
        cert: 'anchor.pem',
        cn: 'Leaf Test Anchor',
        days: 30,
        cwd: here,
      });
      const leafPem = await signed('array', 'storage-array-7', 'anchor', 'basicConstraints=CA:FALSE');
      // What a client of the leaf's key could present, and what one of the anchor's would.
      const byLeaf = await signed('by-leaf', 'client-of-leaf', 'array', 'basicConstraints=CA:FALSE');
      const byAnchor = await signed('by-anchor', 'client-of-anchor', 'anchor', 'basicConstraints=CA:FALSE');
      const anchorPem = readFileSync(join(here, 'anchor.pem'), 'utf8');
      // The server's clock (held still, and set back by an earlier test) reads the real time: the
      // certificates start now.
      server.clock.now = new Date();

      const anchor = ok(await call(server, api.cert.externalUpload, { token, body: { content: anchorPem } }))
        .data.added[0]!;
      expect(anchor.kind).toBe('ca');
      // Without a kind the upload stays what it was: CA certificates only.
      const asCa = await call(server, api.cert.externalUpload, { token, body: { content: leafPem } });
      expect(asCa.code).toBe(Code.INVALID);
      expect(asCa.msg).toBe("'CN=storage-array-7' is not a CA certificate (basicConstraints CA is not set)");
      const leaf = ok(
        await call(server, api.cert.externalUpload, {
          token,
          body: { content: leafPem, kind: 'certificate', name: 'Array 7' },
        }),
      ).data.added[0]!;
      expect(leaf).toMatchObject({ name: 'Array 7', kind: 'certificate', self_signed: false });
      const caAsLeaf = await call(server, api.cert.externalUpload, {
        token,
        body: { content: anchorPem, kind: 'certificate' },
      });
      expect(caAsLeaf.code).toBe(Code.INVALID);
      expect(caAsLeaf.msg).toBe(
        "'CN=Leaf Test Anchor' is a CA certificate (basicConstraints CA is set), not an end-entity certificate: upload it as a CA",
      );
      const detail = ok(await call(server, api.cert.externalDetail, { token, query: { id: leaf.id } })).data;
      expect(detail.kind).toBe('certificate');
      expect(new X509Certificate(detail.certificate_pem).raw.equals(new X509Certificate(leafPem).raw)).toBe(
        true,
      );
      const ofKind = async (kind: 'ca' | 'certificate') =>
        ok(
          await call(server, api.cert.externalList, { token, query: { kind, page_size: 1000 } }),
        ).data.data.map((r) => r.id);
      expect(await ofKind('certificate')).toEqual([leaf.id]);
      expect(await ofKind('ca')).toContain(anchor.id);
      expect(await ofKind('ca')).not.toContain(leaf.id);

      // The trust anchors hold the CA, never the leaf; a certificate the leaf's key signed is
      // issued by no trust anchor, where the anchor's is.
      const { domain_id: domainId } = await server.database.db
        .selectFrom('cert_external')
        .select('domain_id')
        .where('id', '=', leaf.id)
        .executeTakeFirstOrThrow();
      const certs = server.services.certs;
      const anchors = (await certs.trustAnchors(domainId)).map((der) => new X509Certificate(der).subject);
      expect(anchors).toContain('CN=Leaf Test Anchor');
      expect(anchors).not.toContain('CN=storage-array-7');
      const der = (pem: string) => Buffer.from(new X509Certificate(pem).raw);
      expect(await certs.externalIssuerOf(domainId, der(byAnchor))).toEqual({
        id: anchor.id,
        name: 'Leaf Test Anchor',
      });
      expect(new X509Certificate(byLeaf).verify(new X509Certificate(leafPem).publicKey)).toBe(true);
      expect(await certs.externalIssuerOf(domainId, der(byLeaf))).toBeNull();

      ok(await call(server, api.cert.externalDelete, { token, body: { ids: [leaf.id, anchor.id] } }));
      expect(await certs.externalIssuerOf(domainId, der(byAnchor))).toBeNull();
      // A deleted end-entity certificate is named as what it was, not as a CA's.
      const gone = await call(server, api.cert.externalDelete, { token, body: { ids: [leaf.id] } });
      expect([gone.code, gone.msg]).toEqual([4040, `External certificate ${leaf.id} not found`]);
    } finally {
      rmSync(here, { recursive: true, force: true });
    }
  });
});
