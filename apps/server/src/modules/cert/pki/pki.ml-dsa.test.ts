import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMLDSA44, createMLDSA65, createMLDSA87 } from '@oqs/liboqs-js/sig';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate, CertificateList } from '@peculiar/asn1-x509';
import { CertificationRequest } from '@peculiar/asn1-csr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../../platform/crypto/generate.js';
import { buildCertificate, certificateParts, describeCertificate, newSerial } from './certificate.js';
import { buildCrl } from './crl.js';
import { buildCsr, parseCsr } from './csr.js';
import { children, readTlv } from './der.js';
import { keyIdentifierOf } from './extensions.js';
import { parseName } from './name.js';
import { encryptPkcs8 } from './private-key.js';
import { parseSanList } from './san.js';
import { signerFromMaterial } from './signer.js';

/**
 * ML-DSA certificates, CSRs, CRLs and PKCS#8. Debian's OpenSSL 3.0 has no ML-DSA, so the
 * signatures are checked on an independent path: the structures are parsed with the
 * @peculiar asn1 classes (not the engine) and verified by liboqs (the Open Quantum Safe
 * project's C implementation, as WebAssembly: @oqs/liboqs-js), not by @noble/post-quantum,
 * which is what KSP signs with (platform/crypto/post-quantum.ts). The encrypted PKCS#8 is decrypted by the openssl CLI
 * (`kdf PBKDF2` + `enc -d -aes-256-cbc`).
 */

const LIBOQS = {
  'ML-DSA-44': createMLDSA44,
  'ML-DSA-65': createMLDSA65,
  'ML-DSA-87': createMLDSA87,
} as const;
const OIDS = {
  'ML-DSA-44': '2.16.840.1.101.3.4.3.17',
  'ML-DSA-65': '2.16.840.1.101.3.4.3.18',
  'ML-DSA-87': '2.16.840.1.101.3.4.3.19',
} as const;

function openssl(args: string[], cwd: string): Buffer {
  const r = spawnSync('openssl', args, { cwd });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr.toString()}`);
  return r.stdout;
}

describe.each(['ML-DSA-44', 'ML-DSA-65', 'ML-DSA-87'] as const)('%s', (algorithm) => {
  let liboqs: Awaited<ReturnType<(typeof LIBOQS)[typeof algorithm]>>;
  beforeAll(async () => {
    liboqs = await LIBOQS[algorithm]();
  });
  afterAll(() => liboqs.destroy());

  it('root CA, client leaf from the engine CSR and a CRL verify with liboqs', async () => {
    const rootKey = generateKey(algorithm);
    const leafKey = generateKey(algorithm);
    if (!rootKey.publicKey || !leafKey.publicKey) throw new Error('no public key');
    const root = signerFromMaterial(algorithm, rootKey.material, rootKey.publicKey);
    const leaf = signerFromMaterial(algorithm, leafKey.material, leafKey.publicKey);
    const rootName = parseName(`CN=PQ Root ${algorithm},O=KSP Test`);
    const now = new Date();
    const rootDer = await buildCertificate({
      serial: newSerial(),
      issuerName: rootName,
      subjectName: rootName,
      notBefore: now,
      notAfter: new Date(now.getTime() + 86_400_000 * 365),
      subjectSpki: root.spki,
      signer: root,
      profile: { kind: 'ca', pathLen: 1 },
    });
    const csr = await buildCsr({
      subjectName: parseName('CN=pq-client,O=KSP Test'),
      san: parseSanList({ dns: 'pq.example' }),
      signer: leaf,
    });
    const parsed = parseCsr(csr);
    expect(parsed.signatureValid).toBe(true);
    expect(parsed.algorithm).toBe(algorithm);
    const leafDer = await buildCertificate({
      serial: newSerial(),
      issuerName: certificateParts(rootDer).subject,
      subjectName: parsed.subjectName,
      notBefore: now,
      notAfter: new Date(now.getTime() + 86_400_000 * 30),
      subjectSpki: parsed.spki,
      signer: root,
      profile: { kind: 'end-entity', purpose: 'client', usage: 'signature', san: parsed.san },
    });
    const crl = await buildCrl({
      issuerName: certificateParts(rootDer).subject,
      issuerSki: keyIdentifierOf(root.spki),
      signer: root,
      number: 7n,
      thisUpdate: now,
      nextUpdate: new Date(now.getTime() + 86_400_000),
      entries: [{ serial: certificateParts(leafDer).serial, revokedAt: now, reason: 'superseded' }],
    });

    // Independent path: @peculiar/asn1-* structures and liboqs's ML-DSA.
    const rootCert = AsnConvert.parse(rootDer, Certificate);
    const leafCert = AsnConvert.parse(leafDer, Certificate);
    const rootPk = new Uint8Array(rootCert.tbsCertificate.subjectPublicKeyInfo.subjectPublicKey);
    expect(Buffer.from(rootPk).equals(rootKey.publicKey)).toBe(true);
    expect(rootCert.signatureAlgorithm.algorithm).toBe(OIDS[algorithm]);
    expect(rootCert.signatureAlgorithm.parameters).toBeUndefined();
    expect(rootCert.tbsCertificate.subjectPublicKeyInfo.algorithm.algorithm).toBe(OIDS[algorithm]);
    const verifies = (tbs: ArrayBuffer, signature: ArrayBuffer, pk: Uint8Array) =>
      liboqs.verify(new Uint8Array(tbs), new Uint8Array(signature), pk);
    expect(verifies(AsnConvert.serialize(rootCert.tbsCertificate), rootCert.signatureValue, rootPk)).toBe(
      true,
    );
    expect(verifies(AsnConvert.serialize(leafCert.tbsCertificate), leafCert.signatureValue, rootPk)).toBe(
      true,
    );
    const leafPk = new Uint8Array(leafCert.tbsCertificate.subjectPublicKeyInfo.subjectPublicKey);
    expect(verifies(AsnConvert.serialize(leafCert.tbsCertificate), leafCert.signatureValue, leafPk)).toBe(
      false,
    );
    const request = AsnConvert.parse(csr, CertificationRequest);
    expect(verifies(AsnConvert.serialize(request.certificationRequestInfo), request.signature, leafPk)).toBe(
      true,
    );
    const list = AsnConvert.parse(crl, CertificateList);
    expect(verifies(AsnConvert.serialize(list.tbsCertList), list.signature, rootPk)).toBe(true);
    const tampered = Buffer.from(crl);
    tampered[tampered.length - 10] = (tampered[tampered.length - 10] ?? 0) ^ 0x01;
    const tamperedList = AsnConvert.parse(tampered, CertificateList);
    expect(verifies(AsnConvert.serialize(tamperedList.tbsCertList), tamperedList.signature, rootPk)).toBe(
      false,
    );

    const description = describeCertificate(leafDer);
    expect(description.algorithm).toBe(algorithm);
    expect(description.signature_algorithm).toBe(algorithm);
    expect(description.ext_key_usage).toEqual(['clientAuth']);
    expect(description.san.dns).toEqual(['pq.example']);
    expect(description.aki).toBe(describeCertificate(rootDer).ski);
    expect(describeCertificate(rootDer)).toMatchObject({ is_ca: true, path_len: 1 });
  });

  it('the encrypted PKCS#8 decrypts with the openssl CLI to the expandedKey form', () => {
    const key = generateKey(algorithm);
    if (!key.publicKey) throw new Error('no public key');
    const pem = encryptPkcs8(algorithm, key.material, key.publicKey, 'pq-secret');
    const der = Buffer.from(pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
    // EncryptedPrivateKeyInfo { { pbes2, { { pbkdf2, { salt, iterations, prf } }, { aes256-cbc, iv } } }, data }
    const node = (parent: ReturnType<typeof readTlv>, index: number) => {
      const child = children(der, parent)[index];
      if (!child) throw new Error('short DER');
      return child;
    };
    const outer = readTlv(der, 0);
    const pbes2 = node(node(outer, 0), 1);
    const kdfParams = node(node(pbes2, 0), 1);
    const salt = node(kdfParams, 0);
    const iterations = node(kdfParams, 1);
    const iv = node(node(pbes2, 1), 1);
    const data = node(outer, 1);
    const hex = (n: { start: number; end: number }) => der.subarray(n.start, n.end).toString('hex');
    const dir = mkdtempSync(join(tmpdir(), 'ksp-pki-pq-'));
    try {
      const derived = openssl(
        [
          'kdf',
          '-keylen',
          '32',
          '-kdfopt',
          'digest:SHA256',
          '-kdfopt',
          'pass:pq-secret',
          '-kdfopt',
          `hexsalt:${hex(salt)}`,
          '-kdfopt',
          `iter:${parseInt(hex(iterations), 16)}`,
          'PBKDF2',
        ],
        dir,
      )
        .toString()
        .trim()
        .replace(/:/g, '');
      expect(parseInt(hex(iterations), 16)).toBeGreaterThanOrEqual(100_000);
      writeFileSync(join(dir, 'data.bin'), der.subarray(data.start, data.end));
      openssl(
        ['enc', '-d', '-aes-256-cbc', '-K', derived, '-iv', hex(iv), '-in', 'data.bin', '-out', 'p8.der'],
        dir,
      );
      const pkcs8 = readFileSync(join(dir, 'p8.der'));
      const text = openssl(['asn1parse', '-inform', 'DER', '-in', 'p8.der'], dir).toString();
      expect(text).toContain(OIDS[algorithm]);
      // OneAsymmetricKey.privateKey = OCTET STRING { OCTET STRING expandedKey }.
      expect(pkcs8.subarray(pkcs8.length - key.material.length).equals(key.material)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
