import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sm2PublicKeyFromPrivate } from '../../../platform/crypto/asymmetric.js';
import { derToPem, sm2PrivateKeyToPkcs8 } from '../../../platform/crypto/encoding.js';
import { generateKey } from '../../../platform/crypto/generate.js';
import { newEcKey, selfSignedEc } from '../../../test/openssl.js';
import { buildCertsOnlyP7b, orderChain, splitCertificateBundle } from './bundle.js';
import {
  buildCertificate,
  buildDescribedCertificate,
  finishCertificate,
  prepareCertificate,
  certificateParts,
  describeCertificate,
  newSerial,
  verifyCertificateSignature,
} from './certificate.js';
import { buildCrl } from './crl.js';
import { buildCsr, parseCsr } from './csr.js';
import { keyIdentifierOf } from './extensions.js';
import { formatName, parseName } from './name.js';
import { buildOcspResponse, issuerHashes, ocspErrorResponse, parseOcspRequest } from './ocsp.js';
import { fromPem, toPem } from './pem.js';
import { PkiError } from './pki-error.js';
import { ipToBytes, parseSanList } from './san.js';
import { CA_ALGORITHMS, type CaAlgorithm, signerFromMaterial, spkiOf } from './signer.js';
import { buildSm2EnvelopedKey, openSm2EnvelopedKey } from './sm2-enveloped-key.js';

function openssl(args: string[], cwd: string): string {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function pkiError(fn: () => unknown): PkiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof PkiError) return error;
    throw error;
  }
  throw new Error('expected a PkiError');
}

async function pkiErrorAsync(fn: () => Promise<unknown>): Promise<PkiError> {
  try {
    await fn();
  } catch (error) {
    if (error instanceof PkiError) return error;
    throw error;
  }
  throw new Error('expected a PkiError');
}

function party(algorithm: CaAlgorithm) {
  const key = generateKey(algorithm);
  if (!key.publicKey) throw new Error('no public key');
  return {
    ...key,
    publicKey: key.publicKey,
    signer: signerFromMaterial(algorithm, key.material, key.publicKey),
  };
}

const DAY = 86_400_000;

/** A certificate valid from now for a day, with a new serial. */
function dayCertificate(
  o: Omit<Parameters<typeof buildCertificate>[0], 'serial' | 'notBefore' | 'notAfter'>,
) {
  return buildCertificate({
    serial: newSerial(),
    notBefore: new Date(),
    notAfter: new Date(Date.now() + DAY),
    ...o,
  });
}

async function selfSigned(algorithm: CaAlgorithm, cn: string) {
  const p = party(algorithm);
  const name = parseName(`CN=${cn}`);
  const der = await dayCertificate({
    issuerName: name,
    subjectName: name,
    subjectSpki: p.signer.spki,
    signer: p.signer,
    profile: { kind: 'ca' },
  });
  return { ...p, der };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ksp-pki-unit-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('names', () => {
  it('round-trips RFC 4514 strings, escapes and multi-valued RDNs', () => {
    for (const dn of [
      'CN=web,O=Acme,C=CN',
      'CN=a\\,b,O=x\\+y\\=z,OU=\\#1,L=trailing\\ ',
      'CN=alice+UID=a1,O=Acme',
      'emailAddress=a@example.com,CN=张三,O=测试,C=CN',
      'DC=example,DC=com',
    ]) {
      expect(formatName(parseName(dn))).toBe(dn);
    }
    expect(formatName(parseName('cn = web , o=Acme'))).toBe('CN=web,O=Acme');
    expect(formatName(parseName('CN=\\e5\\bc\\a0'))).toBe('CN=张');
  });

  it('round-trips any value through formatName and parseName (property)', () => {
    const value = fc.string({ unit: 'binary', minLength: 1, maxLength: 64 }).filter(
      (v) =>
        v.trim() === v &&
        v !== '' &&
        Buffer.from(v, 'utf8').toString('utf8') === v &&
        // eslint-disable-next-line no-control-regex
        !/[\u0000-\u001f\u007f-\u009f]/.test(v),
    );
    fc.assert(
      fc.property(value, value, (cn, o) => {
        const der = parseName({ cn, o });
        expect(parseName(formatName(der)).equals(der)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a lone UTF-16 surrogate in any value and says which attribute', () => {
    for (const [field, attribute] of [
      ['cn', 'CN'],
      ['o', 'O'],
      ['ou', 'OU'],
      ['st', 'ST'],
      ['l', 'L'],
    ] as const) {
      for (const value of ['\uD800', 'a\uDC00', '\uDBFFb']) {
        let refusal: unknown;
        try {
          parseName({ cn: 'x', [field]: value });
        } catch (err) {
          refusal = err;
        }
        expect(refusal).toBeInstanceOf(PkiError);
        expect(refusal).toMatchObject({ code: 'invalid-name', details: { attribute } });
        expect((refusal as Error).message).toMatch(/not well-formed Unicode/);
      }
    }
    // A pair is one well-formed character.
    expect(formatName(parseName({ cn: 'key \u{1F511}' }))).toBe('CN=key \u{1F511}');
  });

  it('refuses control characters in any value', () => {
    for (const value of ['a\u0000b', 'tab\there', 'bell\u0007', 'c1\u0085'])
      expect(() => parseName({ cn: 'x', o: value })).toThrow(/control characters/);
    expect(() => parseName('CN=a\\0Ab')).toThrow(/control characters/);
  });

  it('builds from the console fields in OpenSSL order and matches openssl -subj', () => {
    const der = parseName({ cn: 'web', o: 'Acme', ou: 'Ops', c: 'CN', st: 'BJ', l: 'Beijing' });
    expect(formatName(der)).toBe('CN=web,OU=Ops,O=Acme,L=Beijing,ST=BJ,C=CN');
    openssl(
      [
        'req',
        '-new',
        ...newEcKey('n.key'),
        '-utf8',
        '-subj',
        '/C=CN/ST=BJ/L=Beijing/O=Acme/OU=Ops/CN=web',
        '-outform',
        'DER',
        '-out',
        'n.csr',
      ],
      dir,
    );
    expect(parseCsr(readFileSync(join(dir, 'n.csr'))).subjectName.equals(der)).toBe(true);
  });

  it('refuses bad names with invalid-name', () => {
    for (const bad of [
      '',
      'CN',
      'FOO=bar',
      'C=China',
      'CN=',
      'CN=x,',
      'CN=a;b',
      'CN=#0403',
      `CN=${'x'.repeat(65)}`,
      'CN=a\\zz',
    ]) {
      expect(pkiError(() => parseName(bad)).code, bad).toBe('invalid-name');
    }
    expect(pkiError(() => parseName({ cn: '  ' })).code).toBe('invalid-name');
    expect(pkiError(() => parseName({ cn: 'x', email: 'not-mail' })).code).toBe('invalid-name');
    expect(pkiError(() => formatName(Buffer.from('nonsense'))).code).toBe('invalid-name');
  });
});

describe('subject alternative names', () => {
  it('accepts DNS names with a wildcard label, IPv4/IPv6 and e-mail addresses', () => {
    expect(
      parseSanList({
        dns: 'a.example.com, *.b.example.com ,xn--fsq.example',
        ips: '10.0.0.1, ::1, 2001:db8::8:800:200c:417a, ::ffff:1.2.3.4',
        emails: 'a.b+c@example.com',
      }),
    ).toEqual({
      dns: ['a.example.com', '*.b.example.com', 'xn--fsq.example'],
      ips: ['10.0.0.1', '::1', '2001:db8::8:800:200c:417a', '::ffff:1.2.3.4'],
      emails: ['a.b+c@example.com'],
    });
    expect(ipToBytes('::ffff:1.2.3.4').toString('hex')).toBe('00000000000000000000ffff01020304');
    expect(ipToBytes('2001:db8::1').toString('hex')).toBe('20010db8000000000000000000000001');
  });

  it('names the bad entry', () => {
    const cases: [Parameters<typeof parseSanList>[0], string, string][] = [
      [{ dns: 'ok.example, bad..example' }, 'dns', 'bad..example'],
      [{ dns: 'a.*.example' }, 'dns', 'a.*.example'],
      [{ dns: '*.com' }, 'dns', '*.com'],
      [{ dns: '-x.example' }, 'dns', '-x.example'],
      [{ ips: '10.0.0.1,300.1.1.1' }, 'ips', '300.1.1.1'],
      [{ ips: '1::2::3' }, 'ips', '1::2::3'],
      [{ emails: 'a@' }, 'emails', 'a@'],
      [{ emails: 'a b@example.com' }, 'emails', 'a b@example.com'],
    ];
    for (const [input, field, value] of cases) {
      const error = pkiError(() => parseSanList(input));
      expect(error.code).toBe('invalid-san');
      expect(error.details).toEqual({ field, value });
    }
  });
});

describe('profiles', () => {
  it('refuses an encryption usage for keys that only sign', async () => {
    const ca = await selfSigned('EC-P256', 'CA');
    for (const algorithm of ['ED25519', 'ML-DSA-44'] as const) {
      const subject = party(algorithm);
      const error = await pkiErrorAsync(() =>
        dayCertificate({
          issuerName: certificateParts(ca.der).subject,
          subjectName: parseName('CN=x'),
          subjectSpki: subject.signer.spki,
          signer: ca.signer,
          profile: { kind: 'end-entity', purpose: 'client', usage: 'encryption' },
        }),
      );
      expect(error.code).toBe('unsupported');
    }
  });

  it('writes SM2 encryption key usage and a 16-byte positive serial', async () => {
    const ca = await selfSigned('SM2', 'SM2 CA');
    const subject = party('SM2');
    const der = await dayCertificate({
      issuerName: certificateParts(ca.der).subject,
      subjectName: parseName('CN=enc'),
      subjectSpki: subject.signer.spki,
      signer: ca.signer,
      profile: { kind: 'end-entity', purpose: 'client', usage: 'encryption' },
    });
    const description = describeCertificate(der);
    expect(description.key_usage).toEqual(['keyEncipherment', 'dataEncipherment', 'keyAgreement']);
    expect(description.serial).toMatch(/^[4-7][0-9A-F]{31}$/);
  });

  // A serial whose top bit is set carries a zero octet in DER; one with a leading zero digit does not.
  it.each([
    ['a serial openssl picks', undefined],
    ['a serial with its top bit set', '91DCA0A644D81BB626BC104CFC7B2256C42FEA'],
    ['a serial starting with a zero digit', '0A1B'],
  ])('describes a certificate openssl made, with %s, giving the serial openssl prints', (_, serial) => {
    selfSignedEc(dir, {
      key: 'o.key',
      cert: 'o.pem',
      cn: 'openssl-made',
      days: 2,
      ...(serial ? { serial } : {}),
    });
    const der = fromPem(readFileSync(join(dir, 'o.pem'), 'utf8'), ['CERTIFICATE']);
    const description = describeCertificate(der);
    expect(description.subject).toBe('CN=openssl-made');
    expect(description.algorithm).toBe('EC-P256');
    expect(description.is_ca).toBe(true);
    const printed = openssl(['x509', '-in', 'o.pem', '-noout', '-serial'], dir).trim().split('=')[1];
    if (serial) expect(printed).toBe(serial);
    expect(description.serial).toBe(printed);
  });
});

describe('the description a build gives', () => {
  it('is what describeCertificate reads from the DER, for every profile, key and extension', async () => {
    const ca = await selfSigned('EC-P256', 'Describing CA');
    const issuerName = certificateParts(ca.der).subject;
    const subjects = (['EC-P384', 'RSA-2048', 'ED25519', 'SM2', 'ML-DSA-44'] as const).map(party);
    const san = {
      dns: ['a.example', '*.b.example'],
      ips: ['10.0.0.1', '2001:db8::1'],
      emails: ['x@example.com'],
    };
    const profiles: Parameters<typeof buildDescribedCertificate>[0]['profile'][] = [
      { kind: 'ca' },
      { kind: 'ca', pathLen: 0 },
      { kind: 'ca', pathLen: 3 },
      { kind: 'end-entity', purpose: 'server', usage: 'signature', san },
      { kind: 'end-entity', purpose: 'client', usage: 'both' },
      { kind: 'end-entity', purpose: 'client', usage: 'encryption', san: { dns: [], ips: [], emails: [] } },
    ];
    let checked = 0;
    for (const subject of subjects) {
      for (const profile of profiles) {
        if (
          profile.kind === 'end-entity' &&
          profile.usage !== 'signature' &&
          /ED25519|ML-DSA/.test(subject.algorithm)
        )
          continue;
        for (const [subjectName, urls] of [
          [parseName('CN=described,O=KSP 测试,C=CN'), true],
          // No subject: the SAN carries the names (and is critical).
          [Buffer.from([0x30, 0x00]), false],
        ] as const) {
          if (subjectName.length <= 2 && !(profile.kind === 'end-entity' && profile.san?.dns.length))
            continue;
          const built = await buildDescribedCertificate({
            serial: newSerial(),
            issuerName,
            subjectName,
            notBefore: new Date(Date.UTC(2026, 0, 1, 10, 20, 30, 456)),
            notAfter: new Date(Date.UTC(2051, 5, 1)),
            subjectSpki: subject.signer.spki,
            signer: ca.signer,
            profile,
            ...(urls
              ? { crlUrl: 'http://ksp.example/pki/crl/x.crl', ocspUrl: 'http://ksp.example/pki/ocsp/x' }
              : {}),
          });
          expect(built.description, `${subject.algorithm} ${JSON.stringify(profile)}`).toEqual(
            describeCertificate(built.der),
          );
          // Issuing from a CSR hands over what reading it found: the same TBS and description.
          if (subjectName.length > 2) {
            const csr = parseCsr(await buildCsr({ subjectName, signer: subject.signer }));
            const input = {
              serial: newSerial(),
              issuerName,
              subjectName,
              notBefore: new Date(Date.UTC(2026, 0, 1)),
              notAfter: new Date(Date.UTC(2027, 0, 1)),
              subjectSpki: subject.signer.spki,
              signer: ca.signer,
              profile,
            };
            const read = prepareCertificate(input);
            const handed = prepareCertificate({
              ...input,
              subjectName: csr.subjectName,
              subjectSpki: csr.spki,
              known: {
                subject: csr.read.subject,
                subjectKey: csr.read.subjectKey,
                issuer: describeCertificate(ca.der).subject,
              },
            });
            expect(handed.tbs.equals(read.tbs)).toBe(true);
            expect(handed.description).toEqual(read.description);
            expect(handed.subjectCn).toBe('described');
            const finished = finishCertificate(handed, await ca.signer.sign(handed.tbs));
            expect(finished.description).toEqual(describeCertificate(finished.der));
          }
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(25);
  });
});

describe('every CA algorithm', () => {
  it('issues, describes and verifies a self-signed CA (openssl checks the classical ones)', async () => {
    const bits: Record<CaAlgorithm, number> = {
      'RSA-2048': 2048,
      'RSA-3072': 3072,
      'RSA-4096': 4096,
      'EC-P256': 256,
      'EC-P384': 384,
      'EC-P521': 521,
      ED25519: 256,
      SM2: 256,
      'ML-DSA-44': 128,
      'ML-DSA-65': 192,
      'ML-DSA-87': 256,
    };
    for (const algorithm of CA_ALGORITHMS) {
      const ca = await selfSigned(algorithm, `All ${algorithm}`);
      const description = describeCertificate(ca.der);
      expect(description, algorithm).toMatchObject({
        subject: `CN=All ${algorithm}`,
        algorithm,
        key_bits: bits[algorithm],
        is_ca: true,
        path_len: null,
        key_usage: ['digitalSignature', 'keyCertSign', 'cRLSign'],
      });
      expect(verifyCertificateSignature(ca.der, ca.signer.spki), algorithm).toBe(true);
      if (algorithm.startsWith('ML-DSA')) continue;
      writeFileSync(join(dir, 'all.pem'), toPem(ca.der, 'CERTIFICATE'));
      const vfy = algorithm === 'SM2' ? ['-vfyopt', 'distid:1234567812345678'] : [];
      expect(openssl(['verify', ...vfy, '-CAfile', 'all.pem', 'all.pem'], dir), algorithm).toContain(
        'all.pem: OK',
      );
    }
  });
});

describe('CSR', () => {
  it('reports a flipped signature byte as signatureValid false', async () => {
    for (const algorithm of ['RSA-2048', 'EC-P256', 'ED25519', 'SM2', 'ML-DSA-44'] as const) {
      const p = party(algorithm);
      const csr = await buildCsr({ subjectName: parseName('CN=flip'), signer: p.signer });
      expect(parseCsr(csr).signatureValid, algorithm).toBe(true);
      const flipped = Buffer.from(csr);
      flipped[flipped.length - 2] = (flipped[flipped.length - 2] ?? 0) ^ 0x01;
      expect(parseCsr(flipped).signatureValid, algorithm).toBe(false);
    }
  });

  it('reads openssl CSRs: RSA with SHA-384/512 and PSS, ECDSA P-521 with SHA-256, SM2 with the empty ID', () => {
    const make = (name: string, keyArgs: string[], signArgs: string[]) => {
      openssl(['req', '-new', ...keyArgs, ...signArgs, '-subj', `/CN=${name}`, '-out', `${name}.csr`], dir);
      return parseCsr(readFileSync(join(dir, `${name}.csr`), 'utf8'));
    };
    const rsa = ['-newkey', 'rsa:2048', '-nodes', '-keyout', 'r.key'];
    expect(make('rsa384', rsa, ['-sha384']).signatureValid).toBe(true);
    expect(make('rsa512', rsa, ['-sha512']).signatureValid).toBe(true);
    const pss = make('rsapss', rsa, [
      '-sha256',
      '-sigopt',
      'rsa_padding_mode:pss',
      '-sigopt',
      'rsa_pss_saltlen:32',
    ]);
    expect(pss).toMatchObject({ algorithm: 'RSA-2048', signatureValid: true });
    const p521 = make(
      'p521',
      ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-521', '-nodes', '-keyout', 'e.key'],
      ['-sha256'],
    );
    expect(p521).toMatchObject({ algorithm: 'EC-P521', keyBits: 521, signatureValid: true });
    openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:SM2', '-out', 's.key'], dir);
    expect(make('sm2empty', ['-key', 's.key'], ['-sm3']).signatureValid).toBe(true);
    expect(
      make('sm2default', ['-key', 's.key'], ['-sm3', '-sigopt', 'distid:1234567812345678']).signatureValid,
    ).toBe(true);
  });

  it('refuses what is not a CSR, and any private key', async () => {
    expect(pkiError(() => parseCsr('hello')).code).toBe('invalid-csr');
    expect(pkiError(() => parseCsr(Buffer.from('3003020101', 'hex'))).code).toBe('invalid-csr');
    const ca = await selfSigned('EC-P256', 'not a csr');
    expect(pkiError(() => parseCsr(toPem(ca.der, 'CERTIFICATE'))).code).toBe('invalid-csr');
    const p = party('EC-P256');
    const csr = toPem(
      await buildCsr({ subjectName: parseName('CN=k'), signer: p.signer }),
      'CERTIFICATE REQUEST',
    );
    const withKey = `${csr}${derToPem(p.material, 'PRIVATE KEY')}`;
    expect(pkiError(() => parseCsr(withKey)).code).toBe('private-key-refused');
    expect(parseCsr(csr.replace(/CERTIFICATE REQUEST/g, 'NEW CERTIFICATE REQUEST')).signatureValid).toBe(
      true,
    );
  });
});

describe('bundles and chains', () => {
  it('refuses private keys, non-PEM text and chains that do not link', async () => {
    const a = await selfSigned('EC-P256', 'Root A');
    const b = await selfSigned('EC-P256', 'Root B');
    const pemA = toPem(a.der, 'CERTIFICATE');
    expect(pkiError(() => splitCertificateBundle(`${pemA}${derToPem(a.material, 'PRIVATE KEY')}`)).code).toBe(
      'private-key-refused',
    );
    expect(
      pkiError(() =>
        splitCertificateBundle(`${pemA}-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n`),
      ).code,
    ).toBe('private-key-refused');
    expect(pkiError(() => splitCertificateBundle(a.material)).code).toBe('private-key-refused');
    expect(pkiError(() => splitCertificateBundle('just text')).code).toBe('invalid-pem');
    expect(pkiError(() => splitCertificateBundle(Buffer.from('just bytes'))).code).toBe('invalid-pem');
    expect(pkiError(() => splitCertificateBundle(pemA.replace('MI', 'M!'))).code).toBe('invalid-pem');
    const broken = pkiError(() => orderChain([a.der, b.der]));
    expect(broken.code).toBe('chain-broken');
    expect(broken.details.subject).toMatch(/^CN=Root [AB]$/);
    // A leaf whose issuer is missing from the set, next to an unrelated root.
    const leafKey = party('EC-P256');
    const leaf = await dayCertificate({
      issuerName: parseName('CN=Missing CA'),
      subjectName: parseName('CN=leaf'),
      subjectSpki: leafKey.signer.spki,
      signer: a.signer,
      profile: { kind: 'end-entity', purpose: 'server', usage: 'signature' },
    });
    expect(pkiError(() => orderChain([leaf, b.der])).details).toEqual({ subject: 'CN=Root B' });
    expect(orderChain([a.der])).toEqual([a.der]);
    expect(pkiError(() => fromPem(pemA, ['X509 CRL'])).code).toBe('invalid-pem');
  });
});

describe('SM2 chains made by OpenSSL 3.0 (empty distinguishing ID)', () => {
  it('order, and verify only with the empty-ID fallback', () => {
    const sm2Key = (file: string) =>
      openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:SM2', '-out', file], dir);
    sm2Key('osr.key');
    sm2Key('osl.key');
    openssl(
      [
        'req',
        '-x509',
        '-key',
        'osr.key',
        '-sm3',
        '-subj',
        '/CN=openssl SM2 root',
        '-days',
        '3',
        '-out',
        'osr.pem',
      ],
      dir,
    );
    openssl(
      ['req', '-new', '-key', 'osl.key', '-sm3', '-subj', '/CN=openssl SM2 leaf', '-out', 'osl.csr'],
      dir,
    );
    openssl(
      [
        'x509',
        '-req',
        '-in',
        'osl.csr',
        '-CA',
        'osr.pem',
        '-CAkey',
        'osr.key',
        '-sm3',
        '-days',
        '2',
        '-out',
        'osl.pem',
      ],
      dir,
    );
    const bundle = `${readFileSync(join(dir, 'osr.pem'), 'utf8')}${readFileSync(join(dir, 'osl.pem'), 'utf8')}`;
    const [rootDer, leafDer] = splitCertificateBundle(bundle);
    if (!rootDer || !leafDer) throw new Error('two certificates expected');
    expect(orderChain([rootDer, leafDer])).toEqual([leafDer, rootDer]);
    const rootSpki = certificateParts(rootDer).spki;
    expect(verifyCertificateSignature(leafDer, rootSpki)).toBe(false);
    expect(verifyCertificateSignature(leafDer, rootSpki, { sm2EmptyIdFallback: true })).toBe(true);
    expect(describeCertificate(leafDer)).toMatchObject({
      algorithm: 'SM2',
      signature_algorithm: 'SM2-with-SM3',
    });
  });
});

describe('CRL', () => {
  it('builds 100,000 entries (timing printed) and openssl verifies the list', async () => {
    const ca = await selfSigned('EC-P256', 'Big CRL CA');
    const now = Date.now();
    const reasons = ['keyCompromise', 'superseded', undefined, 'cessationOfOperation'] as const;
    const entries = Array.from({ length: 100_000 }, (_, i) => ({
      serial: newSerial(),
      revokedAt: new Date(now - i * 1000),
      ...(reasons[i % 4] ? { reason: reasons[i % 4] } : {}),
    }));
    const started = performance.now();
    const crl = await buildCrl({
      issuerName: certificateParts(ca.der).subject,
      issuerSki: keyIdentifierOf(ca.signer.spki),
      signer: ca.signer,
      number: 2n ** 100n,
      thisUpdate: new Date(now),
      nextUpdate: new Date(now + DAY),
      entries,
    });
    const elapsed = performance.now() - started;
    console.warn(`CRL with 100,000 entries: ${elapsed.toFixed(0)} ms, ${crl.length} bytes`);
    writeFileSync(join(dir, 'big.crl'), crl);
    writeFileSync(join(dir, 'big-ca.pem'), toPem(ca.der, 'CERTIFICATE'));
    const r = spawnSync(
      'openssl',
      ['crl', '-inform', 'DER', '-in', 'big.crl', '-CAfile', 'big-ca.pem', '-noout', '-crlnumber'],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
    expect(r.stdout + r.stderr).toContain('verify OK');
    expect(r.stdout).toContain(`crlNumber=0x${(2n ** 100n).toString(16).toUpperCase()}`);
    const text = openssl(['crl', '-inform', 'DER', '-in', 'big.crl', '-noout', '-text'], dir);
    expect(text.match(/Serial Number:/g)).toHaveLength(100_000);
    expect(text.match(/Key Compromise/g)).toHaveLength(25_000);
    expect(text).not.toContain('Unspecified');
  });

  it('writes GeneralizedTime from 2050 and refuses bad input', async () => {
    const ca = await selfSigned('EC-P256', 'Late CA');
    const base = {
      issuerName: certificateParts(ca.der).subject,
      issuerSki: keyIdentifierOf(ca.signer.spki),
      signer: ca.signer,
      number: 1n,
      thisUpdate: new Date('2049-12-31T23:59:59.900Z'),
      nextUpdate: new Date('2050-01-02T00:00:00Z'),
      entries: [{ serial: '01:02', revokedAt: new Date('2051-01-01T00:00:00Z') }],
    };
    writeFileSync(join(dir, 'late.crl'), await buildCrl(base));
    const text = openssl(['crl', '-inform', 'DER', '-in', 'late.crl', '-noout', '-text'], dir);
    expect(text).toContain('Last Update: Dec 31 23:59:59 2049 GMT');
    expect(text).toContain('Next Update: Jan  2 00:00:00 2050 GMT');
    expect(text).toContain('Serial Number: 0102');
    expect(
      (await pkiErrorAsync(() => buildCrl({ ...base, entries: [{ serial: 'zz', revokedAt: new Date() }] })))
        .code,
    ).toBe('invalid-input');
    expect((await pkiErrorAsync(() => buildCrl({ ...base, nextUpdate: base.thisUpdate }))).code).toBe(
      'invalid-input',
    );
  });
});

describe('OCSP', () => {
  it('matches a SHA-256 openssl request, answers errors, refuses garbage', async () => {
    const ca = await selfSigned('EC-P256', 'OCSP CA');
    writeFileSync(join(dir, 'ocsp-ca.pem'), toPem(ca.der, 'CERTIFICATE'));
    openssl(
      ['ocsp', '-sha256', '-issuer', 'ocsp-ca.pem', '-serial', '0x1234', '-reqout', 'o256.der', '-nonce'],
      dir,
    );
    const parsed = parseOcspRequest(readFileSync(join(dir, 'o256.der')));
    const [request] = parsed.requests;
    expect(request?.hashAlgorithm).toBe('sha256');
    expect(request?.serial).toBe('1234');
    const hashes = issuerHashes(ca.der, 'sha256');
    expect(request?.issuerNameHash.equals(hashes.issuerNameHash)).toBe(true);
    expect(request?.issuerKeyHash.equals(hashes.issuerKeyHash)).toBe(true);
    expect(parsed.nonce?.length).toBe(18);
    // A serial with its top bit set reads as openssl writes it, without DER's zero octet.
    openssl(['ocsp', '-issuer', 'ocsp-ca.pem', '-serial', '0x91DC', '-reqout', 'o91.der', '-no_nonce'], dir);
    expect(parseOcspRequest(readFileSync(join(dir, 'o91.der'))).requests[0]?.serial).toBe('91DC');
    expect(ocspErrorResponse('malformedRequest').toString('hex')).toBe('30030a0101');
    writeFileSync(join(dir, 'err.der'), ocspErrorResponse('unauthorized'));
    const error = spawnSync('openssl', ['ocsp', '-respin', 'err.der', '-resp_text', '-noverify'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(error.stdout + error.stderr).toContain('Responder Error: unauthorized (6)');
    expect(pkiError(() => parseOcspRequest(Buffer.from('300a0201', 'hex'))).code).toBe(
      'invalid-ocsp-request',
    );
    expect(pkiError(() => parseOcspRequest(Buffer.from('3000', 'hex'))).code).toBe('invalid-ocsp-request');
  });
});

describe('OCSP responder by key hash', () => {
  it('openssl finds the signer by key hash and reads an unknown status', async () => {
    const ca = await selfSigned('EC-P384', 'ByKey CA');
    writeFileSync(join(dir, 'bykey-ca.pem'), toPem(ca.der, 'CERTIFICATE'));
    openssl(
      ['ocsp', '-issuer', 'bykey-ca.pem', '-serial', '0x0BAD', '-reqout', 'bykey-req.der', '-no_nonce'],
      dir,
    );
    const [request] = parseOcspRequest(readFileSync(join(dir, 'bykey-req.der'))).requests;
    if (!request) throw new Error('no request');
    const response = await buildOcspResponse({
      signer: ca.signer,
      responderCertDer: ca.der,
      producedAt: new Date(),
      responses: [{ certId: request.certId, status: 'unknown', thisUpdate: new Date() }],
    });
    writeFileSync(join(dir, 'bykey-resp.der'), response);
    const r = spawnSync(
      'openssl',
      [
        'ocsp',
        '-respin',
        'bykey-resp.der',
        '-no_nonce',
        '-CAfile',
        'bykey-ca.pem',
        '-issuer',
        'bykey-ca.pem',
        '-serial',
        '0x0BAD',
        '-resp_text',
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(r.stdout + r.stderr).toContain('Responder Id: ');
    expect(r.stdout + r.stderr).toMatch(/Responder Id: [0-9A-F]{40}/);
    expect(r.stdout + r.stderr).toContain('Response verify OK');
    expect(r.stdout + r.stderr).toContain('0x0BAD: unknown');
  });
});

describe('parsers on hostile input', () => {
  it('throw only PkiErrors on random bytes and on mutated valid structures (property)', async () => {
    const ca = await selfSigned('EC-P256', 'Fuzz CA');
    const csr = await buildCsr({
      subjectName: parseName('CN=fuzz'),
      san: parseSanList({ dns: 'f.example' }),
      signer: ca.signer,
    });
    const p7b = buildCertsOnlyP7b([ca.der]);
    const seeds = [
      ca.der,
      csr,
      p7b,
      Buffer.from(
        '30440242304002010030273025300906052b0e03021a05000414' +
          '00'.repeat(20) +
          '0414' +
          '00'.repeat(20) +
          '020101',
        'hex',
      ),
    ];
    const parsers: ((input: Buffer) => unknown)[] = [
      (b) => parseCsr(b),
      (b) => splitCertificateBundle(b),
      (b) => parseOcspRequest(b),
      (b) => describeCertificate(b),
      (b) => orderChain([b, ca.der]),
      (b) => formatName(b),
    ];
    const mutated = fc
      .tuple(fc.constantFrom(...seeds), fc.nat(), fc.integer({ min: 1, max: 255 }))
      .map(([seed, position, xor]) => {
        const copy = Buffer.from(seed);
        const index = position % copy.length;
        copy[index] = (copy[index] ?? 0) ^ xor;
        return copy;
      });
    const input = fc.oneof(
      fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
      mutated,
    );
    fc.assert(
      fc.property(input, (bytes) => {
        for (const parse of parsers) {
          try {
            parse(bytes);
          } catch (error) {
            if (!(error instanceof PkiError)) throw error;
          }
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('signer seam', () => {
  it('wraps raw ML-DSA and SM2 point public keys as SPKI and refuses mismatches', () => {
    const ml = generateKey('ML-DSA-65');
    if (!ml.publicKey) throw new Error('no public key');
    const spki = spkiOf('ML-DSA-65', ml.publicKey);
    expect(spki.subarray(spki.length - ml.publicKey.length).equals(ml.publicKey)).toBe(true);
    const sm2 = generateKey('SM2');
    expect(
      spkiOf('SM2', sm2PublicKeyFromPrivate(sm2.material)).equals(sm2.publicKey ?? Buffer.alloc(0)),
    ).toBe(true);
    const ec = generateKey('EC-P256');
    expect(pkiError(() => spkiOf('EC-P384', ec.publicKey ?? Buffer.alloc(0))).code).toBe('invalid-input');
    expect(pkiError(() => spkiOf('AES-256', Buffer.alloc(0))).code).toBe('unsupported');
  });
});

describe('SM2EnvelopedKey (GM/T 0009 §7.4)', () => {
  it('openssl decrypts the SM4 key with the token key and the private key with SM4-ECB', () => {
    const token = generateKey('SM2');
    const enc = generateKey('SM2');
    if (!token.publicKey || !enc.publicKey) throw new Error('no public key');
    const envelope = buildSm2EnvelopedKey({
      encPrivateKey: enc.material,
      encPublicKey: enc.publicKey,
      wrappingPublicKey: token.publicKey,
    });
    const opened = openSm2EnvelopedKey(envelope, token.material);
    expect(opened.privateKey.equals(enc.material)).toBe(true);
    expect(opened.publicKey.equals(sm2PublicKeyFromPrivate(enc.material))).toBe(true);
    expect(() => openSm2EnvelopedKey(envelope, generateKey('SM2').material)).toThrow();

    // Independently: the structure with openssl asn1parse, the SM2Cipher with pkeyutl, the d with enc.
    writeFileSync(join(dir, 'env.der'), envelope);
    const parsed = openssl(['asn1parse', '-inform', 'DER', '-in', 'env.der', '-i'], dir);
    expect(parsed).toMatch(/OBJECT\s+:sm4-ecb/);
    const lines = parsed.trim().split('\n');
    // SEQUENCE { AlgorithmIdentifier, SM2Cipher { x, y, hash, cipherText }, BIT STRING, BIT STRING }
    expect(
      lines.filter((l) => /d=1 /.test(l)).map((l) => l.replace(/.*(SEQUENCE|BIT STRING).*/, '$1')),
    ).toEqual(['SEQUENCE', 'SEQUENCE', 'BIT STRING', 'BIT STRING']);
    const offset = (index: number) =>
      Number(/^\s*(\d+):/.exec(lines.filter((l) => /d=1 /.test(l))[index] ?? '')?.[1]);
    writeFileSync(join(dir, 'sm2cipher.der'), envelope.subarray(offset(1), offset(2)));
    writeFileSync(
      join(dir, 'token.key'),
      derToPem(sm2PrivateKeyToPkcs8(token.material, sm2PublicKeyFromPrivate(token.material)), 'PRIVATE KEY'),
    );
    openssl(['pkeyutl', '-decrypt', '-inkey', 'token.key', '-in', 'sm2cipher.der', '-out', 'sm4.key'], dir);
    const sm4Key = readFileSync(join(dir, 'sm4.key'));
    expect(sm4Key).toHaveLength(16);
    const encryptedD = envelope.subarray(envelope.length - 32);
    writeFileSync(join(dir, 'd.enc'), encryptedD);
    openssl(
      ['enc', '-d', '-sm4-ecb', '-nopad', '-K', sm4Key.toString('hex'), '-in', 'd.enc', '-out', 'd.bin'],
      dir,
    );
    expect(readFileSync(join(dir, 'd.bin')).equals(enc.material)).toBe(true);
    const point = envelope.subarray(offset(2), offset(3));
    expect(point.subarray(3).equals(sm2PublicKeyFromPrivate(enc.material))).toBe(true);
  });
});
