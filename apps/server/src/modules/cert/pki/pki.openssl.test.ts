import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../../platform/crypto/generate.js';
import { buildCertsOnlyP7b, orderChain, splitCertificateBundle } from './bundle.js';
import {
  buildCertificate,
  certificateParts,
  describeCertificate,
  newSerial,
  verifyCertificateSignature,
  type CertificateProfile,
} from './certificate.js';
import { buildCrl } from './crl.js';
import { buildCsr, parseCsr } from './csr.js';
import { children, readTlv, signedParts } from './der.js';
import { keyIdentifierOf } from './extensions.js';
import { parseName } from './name.js';
import { buildOcspResponse, issuerHashes, parseOcspRequest } from './ocsp.js';
import { toPem } from './pem.js';
import { buildPkcs12, encryptPkcs8 } from './private-key.js';
import { parseSanList } from './san.js';
import { type CaAlgorithm, type Signer, signerFromMaterial } from './signer.js';

/**
 * Interoperability with Debian's OpenSSL 3.0 CLI, per algorithm: root CA → intermediate
 * (pathLen 0) → a server leaf from an `openssl req` CSR and a client leaf from the engine's
 * own CSR; CRLs, OCSP, PKCS#7, PKCS#12 and encrypted PKCS#8 read back by openssl.
 */

interface Run {
  status: number | null;
  out: string;
}
function run(args: string[], cwd: string): Run {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}
function ok(args: string[], cwd: string): string {
  const r = run(args, cwd);
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${r.out}`);
  return r.out;
}

const SM2_ID = ['-vfyopt', 'distid:1234567812345678'];

/**
 * OpenSSL 3.0 checks SM2 signatures on CRLs and OCSP responses with the empty ID only
 * (neither command takes -vfyopt): the GM/T 0009 signature over the signed bytes is
 * checked with `openssl pkeyutl -verify -rawin -digest sm3 -pkeyopt distid:…` instead.
 */
function sm2PkeyutlVerify(dir: string, signed: Buffer, spki: Buffer): boolean {
  const parts = signedParts(signed, 'signed structure');
  writeFileSync(join(dir, 'tbs.bin'), parts.tbs);
  writeFileSync(join(dir, 'sig.bin'), parts.signature);
  writeFileSync(join(dir, 'signer.pub.der'), spki);
  const r = run(
    [
      'pkeyutl',
      '-verify',
      '-pubin',
      '-keyform',
      'DER',
      '-inkey',
      'signer.pub.der',
      '-rawin',
      '-in',
      'tbs.bin',
      '-sigfile',
      'sig.bin',
      '-digest',
      'sm3',
      '-pkeyopt',
      'distid:1234567812345678',
    ],
    dir,
  );
  return r.status === 0 && r.out.includes('Signature Verified Successfully');
}

/** The BasicOCSPResponse inside an OCSPResponse (responseBytes.response). */
function basicResponse(der: Buffer): Buffer {
  const outer = readTlv(der, 0);
  const bytes = children(der, outer)[1];
  if (!bytes) throw new Error('no responseBytes');
  const responseBytes = children(der, bytes)[0];
  if (!responseBytes) throw new Error('no ResponseBytes');
  const octets = children(der, responseBytes)[1];
  if (!octets) throw new Error('no response');
  return der.subarray(octets.start, octets.end);
}

/** openssl req arguments that make a new key of the algorithm. */
function opensslKeyArgs(algorithm: CaAlgorithm, dir: string): string[] {
  switch (algorithm) {
    case 'RSA-2048':
      return ['-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key'];
    case 'EC-P256':
      return ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'server.key'];
    case 'EC-P384':
      return ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384', '-nodes', '-keyout', 'server.key'];
    case 'ED25519':
      return ['-newkey', 'ed25519', '-nodes', '-keyout', 'server.key'];
    case 'SM2':
      ok(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:SM2', '-out', 'server.key'], dir);
      return ['-key', 'server.key', '-sm3', '-sigopt', 'distid:1234567812345678'];
    default:
      throw new Error(`no openssl key for ${algorithm}`);
  }
}

interface Party {
  material: Buffer;
  publicKey: Buffer;
  signer: Signer;
}
function party(algorithm: CaAlgorithm): Party {
  const key = generateKey(algorithm);
  if (!key.publicKey) throw new Error('no public key');
  return {
    material: key.material,
    publicKey: key.publicKey,
    signer: signerFromMaterial(algorithm, key.material, key.publicKey),
  };
}

const DAY = 86_400_000;
const CRL_URL = 'http://ca.example/crl/inter.crl';
const OCSP_URL = 'http://ca.example/ocsp';
/** `openssl verify`'s trust: the root trusted, the intermediate offered. */
const CHAIN = ['-CAfile', 'root.pem', '-untrusted', 'inter.pem'];
/** `openssl ocsp`'s question: the server certificate's status from its issuer, under the root. */
const OCSP_OF_SERVER = ['-issuer', 'inter.pem', '-CAfile', 'root.pem', '-cert', 'server.pem'];

describe.each(['RSA-2048', 'EC-P256', 'EC-P384', 'ED25519', 'SM2'] as const)(
  '%s with openssl',
  (algorithm) => {
    const sm2 = algorithm === 'SM2';
    const vfy = sm2 ? SM2_ID : [];
    let dir: string;
    let root: Party;
    let inter: Party;
    let client: Party;
    let rootDer: Buffer;
    let interDer: Buffer;
    let serverDer: Buffer;
    let clientDer: Buffer;
    let clientCsr: Buffer;
    const write = (name: string, data: Buffer | string) => writeFileSync(join(dir, name), data);

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'ksp-pki-'));
      root = party(algorithm);
      inter = party(algorithm);
      client = party(algorithm);
      const now = new Date(Date.now() - 60_000);
      const rootName = parseName(`CN=KSP Root ${algorithm},O=KSP Test,C=CN`);
      rootDer = await buildCertificate({
        serial: newSerial(),
        issuerName: rootName,
        subjectName: rootName,
        notBefore: now,
        notAfter: new Date(now.getTime() + 3650 * DAY),
        subjectSpki: root.signer.spki,
        signer: root.signer,
        profile: { kind: 'ca' },
      });
      const interName = parseName({ cn: `KSP Intermediate ${algorithm}`, o: 'KSP Test', c: 'CN' });
      interDer = await buildCertificate({
        serial: newSerial(),
        issuerName: certificateParts(rootDer).subject,
        subjectName: interName,
        notBefore: now,
        notAfter: new Date(now.getTime() + 1825 * DAY),
        subjectSpki: inter.signer.spki,
        signer: root.signer,
        profile: { kind: 'ca', pathLen: 0 },
      });
      // The server leaf: key and CSR from openssl.
      ok(
        [
          'req',
          '-new',
          ...opensslKeyArgs(algorithm, dir),
          '-subj',
          '/C=CN/O=KSP Test/CN=server.example',
          '-addext',
          'subjectAltName=DNS:server.example,DNS:*.server.example,IP:10.0.0.1',
          '-out',
          'server.csr',
        ],
        dir,
      );
      const serverCsr = parseCsr(readFileSync(join(dir, 'server.csr'), 'utf8'));
      expect(serverCsr.signatureValid).toBe(true);
      expect(serverCsr.algorithm).toBe(algorithm);
      expect(serverCsr.subject).toBe('CN=server.example,O=KSP Test,C=CN');
      // A leaf the intermediate issues for a year from a parsed CSR.
      const leaf = (
        csr: typeof serverCsr,
        profile: CertificateProfile,
        urls: { crlUrl: string; ocspUrl?: string },
      ) =>
        buildCertificate({
          serial: newSerial(),
          issuerName: certificateParts(interDer).subject,
          subjectName: csr.subjectName,
          notBefore: now,
          notAfter: new Date(now.getTime() + 365 * DAY),
          subjectSpki: csr.spki,
          signer: inter.signer,
          profile,
          ...urls,
        });
      serverDer = await leaf(
        serverCsr,
        {
          kind: 'end-entity',
          purpose: 'server',
          usage: algorithm === 'ED25519' ? 'signature' : 'both',
          san: serverCsr.san,
        },
        { crlUrl: CRL_URL, ocspUrl: OCSP_URL },
      );
      // The client leaf: key from the key store, CSR from the engine.
      clientCsr = await buildCsr({
        subjectName: parseName('CN=alice,OU=People,O=KSP Test,C=CN'),
        san: parseSanList({ emails: 'alice@example.com' }),
        signer: client.signer,
      });
      const parsedClient = parseCsr(clientCsr);
      expect(parsedClient.signatureValid).toBe(true);
      clientDer = await leaf(
        parsedClient,
        { kind: 'end-entity', purpose: 'client', usage: 'signature', san: parsedClient.san },
        { crlUrl: CRL_URL },
      );
      write('root.pem', toPem(rootDer, 'CERTIFICATE'));
      write('inter.pem', toPem(interDer, 'CERTIFICATE'));
      write('server.pem', toPem(serverDer, 'CERTIFICATE'));
      write('client.pem', toPem(clientDer, 'CERTIFICATE'));
      write('client.csr', toPem(clientCsr, 'CERTIFICATE REQUEST'));
    });

    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('openssl verifies both leaves through the intermediate to the root', () => {
      if (sm2) {
        // OpenSSL 3.0 applies -vfyopt distid only to the certificate being verified, not to
        // the intermediates of its chain: each link is checked as the target of its own run.
        expect(ok(['verify', ...vfy, '-CAfile', 'root.pem', 'inter.pem'], dir)).toContain('inter.pem: OK');
        for (const leaf of ['server.pem', 'client.pem']) {
          const out = ok(['verify', ...vfy, '-partial_chain', '-CAfile', 'inter.pem', leaf], dir);
          expect(out).toContain(`${leaf}: OK`);
        }
        // Without the GM/T 0009 ID the signatures do not verify.
        expect(run(['verify', '-CAfile', 'root.pem', 'inter.pem'], dir).status).not.toBe(0);
      } else {
        for (const leaf of ['server.pem', 'client.pem', 'inter.pem']) {
          const out = ok(['verify', '-CAfile', 'root.pem', '-untrusted', 'inter.pem', leaf], dir);
          expect(out).toContain(`${leaf}: OK`);
        }
      }
      if (!sm2) {
        expect(ok(['verify', '-purpose', 'sslserver', ...CHAIN, 'server.pem'], dir)).toContain('OK');
        expect(
          ok(
            [
              'verify',
              '-purpose',
              'sslclient',
              '-CAfile',
              'root.pem',
              '-untrusted',
              'inter.pem',
              'client.pem',
            ],
            dir,
          ),
        ).toContain('OK');
      }
      // The engine agrees, and a leaf does not verify under the root's key.
      expect(verifyCertificateSignature(serverDer, inter.signer.spki)).toBe(true);
      expect(verifyCertificateSignature(interDer, root.signer.spki)).toBe(true);
      expect(verifyCertificateSignature(serverDer, root.signer.spki)).toBe(false);
    });

    it('openssl verifies the engine CSR', () => {
      expect(ok(['req', '-verify', ...vfy, '-in', 'client.csr', '-noout'], dir)).toContain('verify OK');
    });

    it('openssl x509 -text shows the extensions that were set', () => {
      const server = ok(['x509', '-in', 'server.pem', '-noout', '-text'], dir);
      expect(server).toContain('TLS Web Server Authentication');
      expect(server).toMatch(/Key Usage: critical\n\s+Digital Signature, Non Repudiation/);
      if (algorithm === 'RSA-2048') expect(server).toContain('Key Encipherment, Data Encipherment');
      if (algorithm.startsWith('EC-')) expect(server).toContain('Key Agreement');
      expect(server).toContain('DNS:server.example, DNS:*.server.example, IP Address:10.0.0.1');
      expect(server).toContain(`URI:${CRL_URL}`);
      expect(server).toContain(`OCSP - URI:${OCSP_URL}`);
      expect(server).toMatch(/Basic Constraints: critical\n\s+CA:FALSE/);
      expect(server).toContain('X509v3 Subject Key Identifier');
      const client = ok(['x509', '-in', 'client.pem', '-noout', '-text'], dir);
      expect(client).toContain('TLS Web Client Authentication');
      expect(client).toContain('email:alice@example.com');
      const intermediate = ok(['x509', '-in', 'inter.pem', '-noout', '-text'], dir);
      expect(intermediate).toMatch(/CA:TRUE, pathlen:0/);
      expect(intermediate).toContain('Certificate Sign, CRL Sign');
      const description = describeCertificate(serverDer);
      expect(description.algorithm).toBe(algorithm);
      expect(description.ext_key_usage).toEqual(['serverAuth']);
      expect(description.san.dns).toEqual(['server.example', '*.server.example']);
      expect(description.aki).toBe(describeCertificate(interDer).ski);
      expect(description.fingerprint_sha256).toBe(
        ok(['x509', '-in', 'server.pem', '-noout', '-fingerprint', '-sha256'], dir).trim().split('=')[1],
      );
      expect(description.serial).toBe(
        ok(['x509', '-in', 'server.pem', '-noout', '-serial'], dir).trim().split('=')[1],
      );
    });

    it('a CRL revoking the server leaf: openssl crl verifies it and verify -crl_check gives error 23', async () => {
      const crl = async (entries: Parameters<typeof buildCrl>[0]['entries'], number: bigint) =>
        buildCrl({
          issuerName: certificateParts(interDer).subject,
          issuerSki: keyIdentifierOf(inter.signer.spki),
          signer: inter.signer,
          number,
          thisUpdate: new Date(Date.now() - 60_000),
          nextUpdate: new Date(Date.now() + 7 * DAY),
          entries,
        });
      write('empty.crl', toPem(await crl([{ serial: newSerial(), revokedAt: new Date() }], 1n), 'X509 CRL'));
      const serverSerial = certificateParts(serverDer).serial;
      const revoked = await crl(
        [{ serial: serverSerial, revokedAt: new Date(), reason: 'keyCompromise' }],
        2n,
      );
      write('revoked.crl', toPem(revoked, 'X509 CRL'));
      write('revoked.der.crl', revoked);
      const text = ok(['crl', '-in', 'revoked.crl', '-noout', '-text'], dir);
      expect(text).toContain('Key Compromise');
      expect(text).toContain('X509v3 CRL Number');
      expect(text).toContain(serverSerial.toString('hex').toUpperCase());
      ok(['crl', '-inform', 'DER', '-in', 'revoked.der.crl', '-noout'], dir);
      const crlCheck = (file: string) =>
        run(['verify', ...vfy, '-crl_check', '-CRLfile', file, ...CHAIN, 'server.pem'], dir);
      if (sm2) {
        expect(sm2PkeyutlVerify(dir, revoked, inter.signer.spki)).toBe(true);
        const tampered = Buffer.from(revoked);
        tampered[tampered.length - 3] = (tampered[tampered.length - 3] ?? 0) ^ 0x01;
        expect(sm2PkeyutlVerify(dir, tampered, inter.signer.spki)).toBe(false);
        // What OpenSSL 3.0 itself says (empty ID): a signature failure, not a revocation.
        expect(crlCheck('revoked.crl').out).toContain('CRL signature failure');
        return;
      }
      expect(ok(['crl', '-in', 'revoked.crl', '-CAfile', 'inter.pem', '-noout'], dir)).toContain('verify OK');
      const before = crlCheck('empty.crl');
      expect(before.out).toContain('server.pem: OK');
      const after = crlCheck('revoked.crl');
      expect(after.status).not.toBe(0);
      expect(after.out).toMatch(/error 23 at 0 depth lookup: certificate revoked/);
    });

    it('OCSP: openssl requests (with and without nonce) are answered good and revoked', async () => {
      const hashes = issuerHashes(interDer, 'sha1');
      for (const nonce of [false, true]) {
        const req = `req-${nonce}.der`;
        ok(
          [
            'ocsp',
            '-issuer',
            'inter.pem',
            '-cert',
            'server.pem',
            '-reqout',
            req,
            ...(nonce ? ['-nonce'] : ['-no_nonce']),
          ],
          dir,
        );
        const parsed = parseOcspRequest(readFileSync(join(dir, req)));
        expect(parsed.requests).toHaveLength(1);
        const [request] = parsed.requests;
        if (!request) throw new Error('no request');
        expect(request.hashAlgorithm).toBe('sha1');
        expect(request.issuerNameHash.equals(hashes.issuerNameHash)).toBe(true);
        expect(request.issuerKeyHash.equals(hashes.issuerKeyHash)).toBe(true);
        expect(request.serial).toBe(describeCertificate(serverDer).serial);
        expect(parsed.nonce !== undefined).toBe(nonce);
        for (const status of ['good', 'revoked'] as const) {
          const response = await buildOcspResponse({
            responderName: certificateParts(interDer).subject,
            signer: inter.signer,
            producedAt: new Date(),
            ...(parsed.nonce ? { nonce: parsed.nonce } : {}),
            responses: [
              {
                certId: request.certId,
                status,
                ...(status === 'revoked'
                  ? { revokedAt: new Date(Date.now() - 1000), reason: 'keyCompromise' as const }
                  : {}),
                thisUpdate: new Date(Date.now() - 1000),
                nextUpdate: new Date(Date.now() + DAY),
              },
            ],
          });
          const file = `resp-${nonce}-${status}.der`;
          write(file, response);
          // -no_nonce keeps openssl from adding a nonce of its own to the -reqin request it checks against.
          const args = ['ocsp', '-respin', file, '-reqin', req, '-no_nonce', ...OCSP_OF_SERVER, '-resp_text'];
          const result = run(args, dir);
          expect(result.out).toContain(`server.pem: ${status}`);
          if (status === 'revoked') expect(result.out).toContain('Reason: keyCompromise');
          if (sm2) {
            expect(sm2PkeyutlVerify(dir, basicResponse(response), inter.signer.spki)).toBe(true);
            expect(result.out).not.toContain('Nonce Verify error');
            continue;
          }
          expect(result.out).toContain('Response verify OK');
          expect(result.out).not.toContain('WARNING: no nonce');
          // One flipped byte of the signature: the verification fails.
          const tampered = Buffer.from(response);
          tampered[tampered.length - 5] = (tampered[tampered.length - 5] ?? 0) ^ 0x01;
          write(`bad-${file}`, tampered);
          const bad = run(['ocsp', '-respin', `bad-${file}`, '-no_nonce', ...OCSP_OF_SERVER], dir);
          expect(bad.out).toMatch(/Response Verify Failure/);
        }
      }
    });

    it('PKCS#7: openssl prints the certificates of the engine .p7b (PEM and DER); bundles split and order', () => {
      const p7b = buildCertsOnlyP7b([serverDer, interDer, rootDer]);
      write('chain.p7b', p7b);
      write('chain.p7b.pem', toPem(p7b, 'PKCS7'));
      for (const args of [
        ['-inform', 'DER', '-in', 'chain.p7b'],
        ['-in', 'chain.p7b.pem'],
      ]) {
        const out = ok(['pkcs7', ...args, '-print_certs', '-noout'], dir);
        expect(out.match(/subject=/g)).toHaveLength(3);
        expect(out).toContain('server.example');
      }
      ok(
        [
          'crl2pkcs7',
          '-nocrl',
          '-certfile',
          'root.pem',
          '-certfile',
          'server.pem',
          '-certfile',
          'inter.pem',
          '-out',
          'openssl.p7b',
        ],
        dir,
      );
      const fromOpenssl = splitCertificateBundle(readFileSync(join(dir, 'openssl.p7b')));
      expect(fromOpenssl).toHaveLength(3);
      expect(
        orderChain(fromOpenssl).map(
          (der) => der.equals(serverDer) || der.equals(interDer) || der.equals(rootDer),
        ),
      ).toEqual([true, true, true]);
      expect(orderChain(fromOpenssl)).toEqual([serverDer, interDer, rootDer]);
      expect(splitCertificateBundle(p7b)).toEqual([serverDer, interDer, rootDer]);
      expect(splitCertificateBundle(toPem(p7b, 'PKCS7'))).toEqual([serverDer, interDer, rootDer]);
      const pem = [rootDer, serverDer, interDer].map((der) => toPem(der, 'CERTIFICATE')).join('');
      expect(orderChain(splitCertificateBundle(pem))).toEqual([serverDer, interDer, rootDer]);
      expect(splitCertificateBundle(rootDer)).toEqual([rootDer]);
    });

    it('encrypted PKCS#8 and PKCS#12 downloads open with openssl', async () => {
      const pem = encryptPkcs8(algorithm, client.material, client.publicKey, 'pkcs8-secret');
      write('client.key.pem', pem);
      const info = ok(['asn1parse', '-in', 'client.key.pem'], dir);
      expect(info).toContain('PBES2');
      expect(info).toContain('hmacWithSHA256');
      expect(info).toContain('aes-256-cbc');
      ok(
        [
          'pkey',
          '-in',
          'client.key.pem',
          '-passin',
          'pass:pkcs8-secret',
          '-pubout',
          '-outform',
          'DER',
          '-out',
          'client.pub.der',
        ],
        dir,
      );
      expect(readFileSync(join(dir, 'client.pub.der')).equals(client.signer.spki)).toBe(true);
      expect(run(['pkey', '-in', 'client.key.pem', '-passin', 'pass:wrong', '-noout'], dir).status).not.toBe(
        0,
      );
      const p12 = await buildPkcs12({
        algorithm,
        material: client.material,
        storedPublicKey: client.publicKey,
        certDer: clientDer,
        chainDers: [interDer, rootDer],
        password: 'p12-secret',
        friendlyName: 'alice',
      });
      write('client.p12', p12);
      const out = ok(
        [
          'pkcs12',
          '-info',
          '-in',
          'client.p12',
          '-passin',
          'pass:p12-secret',
          '-passout',
          'pass:x',
          '-nodes',
        ],
        dir,
      );
      expect(out).toContain('MAC: sha256');
      expect(out).toContain('PBES2, PBKDF2, AES-256-CBC');
      expect(out).toContain('friendlyName: alice');
      expect(out.match(/BEGIN CERTIFICATE/g)).toHaveLength(3);
      expect(out).toContain('BEGIN PRIVATE KEY');
      expect(
        run(['pkcs12', '-info', '-noout', '-in', 'client.p12', '-passin', 'pass:wrong'], dir).status,
      ).not.toBe(0);
    });
  },
);
