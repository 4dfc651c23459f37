import { beforeAll, describe, expect, it } from 'vitest';
import { api, Code } from '@ksp/contracts';
import { call, engines, type TestServer } from '../../test/harness.js';
import { signedInServer } from '../../test/fixtures.js';
import { agentKeyAndCsr } from '../../test/agent.js';

/**
 * Which CSRs made by real openssl are certified: the key algorithms and signature digests
 * docs/api.md lists; a key of another curve answers cert.csrAlgorithm and a SHA-1 (or other
 * refused) signature cert.csrDigest, each naming what it is, never cert.csrSignature.
 */
describe.each(await engines())('CSR key algorithms and signature digests on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let caId: string;
  let n = 0;

  signedInServer(engine, (started) => ({ server, token } = started));
  beforeAll(async () => {
    const ca = await call(server, api.cert.caCreate, {
      token,
      body: { name: 'CSR Root', cn: 'CSR Root CA', algorithm: 'EC-P256' },
    });
    caId = ca.data.id;
    expect((await call(server, api.cert.caSelfSign, { token, body: { id: caId } })).code).toBe(0);
  });

  /** A CSR openssl makes with a new key (`req -newkey` arguments) and signing options. */
  const csr = (keyArgs: string[], signArgs: string[] = []) =>
    agentKeyAndCsr(`r${++n}`, [...keyArgs, ...signArgs]).csr;
  const ec = (curve: string) => ['-newkey', 'ec', '-pkeyopt', `ec_paramgen_curve:${curve}`];
  const issue = (pem: string, lang = 'en') =>
    call(server, api.cert.issue, { token, lang, body: { name: `csr ${n}`, ca_id: caId, csr: pem } });

  it('certifies the documented keys and digests (RSA PKCS#1 v1.5 and PSS, ECDSA with SHA-2, Ed25519)', async () => {
    const accepted: [string, string[], string[]][] = [
      ['RSA-2048', ['-newkey', 'rsa:2048'], ['-sha256']],
      ['RSA-3072', ['-newkey', 'rsa:3072'], ['-sha384']],
      ['RSA-2048', ['-newkey', 'rsa:2048'], ['-sha512']],
      ['RSA-2048', ['-newkey', 'rsa:2048'], ['-sha256', '-sigopt', 'rsa_padding_mode:pss']],
      ['EC-P256', ec('P-256'), ['-sha256']],
      ['EC-P384', ec('P-384'), ['-sha384']],
      ['EC-P521', ec('P-521'), ['-sha512']],
      ['EC-P256', ec('P-256'), ['-sha512']],
      ['ED25519', ['-newkey', 'ed25519'], []],
    ];
    for (const [algorithm, keyArgs, signArgs] of accepted) {
      const res = await issue(csr(keyArgs, signArgs));
      expect(res.code, `${algorithm} ${signArgs.join(' ')}: ${res.msg}`).toBe(0);
      expect(res.data.algorithm).toBe(algorithm);
    }
  });

  it('answers a secp256k1 (or brainpool) key cert.csrAlgorithm naming the curve', async () => {
    for (const [lang, msg] of [
      ['en', 'csr: the key algorithm secp256k1 cannot be certified here'],
      ['zh', 'csr：不支持为 secp256k1 密钥签发证书'],
    ] as const) {
      const res = await issue(csr(ec('secp256k1'), ['-sha256']), lang);
      expect(res).toMatchObject({ code: Code.INVALID, msg });
    }
    const brainpool = await issue(csr(ec('brainpoolP256r1'), ['-sha256']));
    expect(brainpool).toMatchObject({
      code: Code.INVALID,
      msg: 'csr: the key algorithm brainpoolP256r1 cannot be certified here',
    });
  });

  it('answers a SHA-1 signed CSR (RSA or ECDSA) cert.csrDigest naming the signature, not a mismatch', async () => {
    const rsa = await issue(csr(['-newkey', 'rsa:2048'], ['-sha1']));
    expect(rsa).toMatchObject({
      code: Code.INVALID,
      msg: 'csr: the request is signed with sha1WithRSAEncryption, which is not accepted for a RSA-2048 key (RSA and ECDSA: SHA-256, SHA-384 or SHA-512; SM2: SM3)',
    });
    const ecdsa = await issue(csr(ec('P-256'), ['-sha1']), 'zh');
    expect(ecdsa).toMatchObject({
      code: Code.INVALID,
      msg: 'csr：请求的签名算法 ecdsa-with-SHA1 不适用于 EC-P256 密钥（RSA 与 ECDSA：SHA-256、SHA-384 或 SHA-512；SM2：SM3）',
    });
    const pss = await issue(csr(['-newkey', 'rsa:2048'], ['-sha1', '-sigopt', 'rsa_padding_mode:pss']));
    expect(pss).toMatchObject({ code: Code.INVALID });
    expect(pss.msg).toMatch(/^csr: the request is signed with rsassaPss with SHA-1, /);
  });

  it('still answers a CSR whose signature is broken cert.csrSignature', async () => {
    const pem = csr(ec('P-256'), ['-sha256']);
    const der = Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    der.writeUInt8(der.readUInt8(der.length - 5) ^ 0x01, der.length - 5); // inside the signature
    const broken = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    const res = await issue(broken);
    expect(res).toMatchObject({
      code: Code.INVALID,
      msg: "csr: the request's signature does not match its public key",
    });
  });
});
