import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SM2_DEFAULT_USER_ID,
  ecdsaSign,
  ecdsaVerify,
  ed25519Sign,
  ed25519Verify,
  rsaOaepDecrypt,
  rsaOaepEncrypt,
  rsaSign,
  rsaVerify,
  sm2Decrypt,
  sm2Encrypt,
  sm2PublicKeyFromPrivate,
  sm2Sign,
  sm2Verify,
} from './asymmetric.js';
import { digest } from './digest.js';
import {
  derToPem,
  pemToDer,
  sm2CiphertextFromDer,
  sm2CiphertextToDer,
  sm2PrivateKeyToPkcs8,
} from './encoding.js';
import { type GeneratedKey, generateKey } from './generate.js';
import {
  aesGcmEncrypt,
  aesKeyUnwrap,
  aesKeyUnwrapPadded,
  aesKeyWrap,
  aesKeyWrapPadded,
  keyCheckValue,
  sm4CbcDecrypt,
  sm4CbcEncrypt,
} from './symmetric.js';

/*
 * Cross-checks against the OpenSSL command line (OpenSSL 3.0 on the project's
 * machines): what we produce, OpenSSL accepts, and the other way round. Files go to
 * a fresh directory under the OS temp dir, removed afterwards.
 */

let dir = '';
let fileCount = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ksp-crypto-openssl-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, data: Buffer | string): string {
  const path = join(dir, `${fileCount++}-${name}`);
  writeFileSync(path, data);
  return path;
}

function openssl(args: string[], input?: Buffer): { ok: boolean; stdout: Buffer; output: string } {
  const result = spawnSync('openssl', args, { input: input ?? Buffer.alloc(0), maxBuffer: 1 << 24 });
  if (result.error) throw result.error;
  return {
    ok: result.status === 0,
    stdout: result.stdout,
    output: `${result.stdout.toString('latin1')}${result.stderr.toString('latin1')}`,
  };
}

const publicKeyOf = (key: GeneratedKey): Buffer => {
  if (!key.publicKey) throw new Error(`${key.algorithm} key without a public key`);
  return key.publicKey;
};
const publicPem = (key: GeneratedKey) => file('public.pem', derToPem(publicKeyOf(key), 'PUBLIC KEY'));
const privatePem = (der: Buffer) => file('private.pem', derToPem(der, 'PRIVATE KEY'));
const message = Buffer.from('KSP cross-check message \u00e9\u4e2d');

it('runs OpenSSL 3', () => {
  expect(openssl(['version']).output).toMatch(/^OpenSSL 3\./);
});

describe('AES', () => {
  it.each([
    ['AES-128', 16],
    ['AES-192', 24],
    ['AES-256', 32],
  ] as const)(
    '%s key check value equals `openssl enc -aes-*-ecb -nopad` of a zero block',
    (algorithm, length) => {
      const key = randomBytes(length);
      const ecb = openssl(
        ['enc', `-aes-${length * 8}-ecb`, '-nopad', '-K', key.toString('hex')],
        Buffer.alloc(16),
      );
      expect(ecb.ok).toBe(true);
      expect(keyCheckValue(algorithm, key)).toBe(ecb.stdout.subarray(0, 3).toString('hex').toUpperCase());
    },
  );

  it('AES-256-GCM ciphertext equals `openssl enc -aes-256-ctr` from counter block IV || 00000002', () => {
    // The CLI cannot run GCM; GCM's ciphertext is CTR from inc32(J0), so compare that part.
    const key = randomBytes(32);
    const iv = randomBytes(12);
    const plaintext = randomBytes(100);
    const sealed = aesGcmEncrypt(key, plaintext, { iv, aad: Buffer.from('aad') });
    const counter = Buffer.concat([iv, Buffer.from('00000002', 'hex')]).toString('hex');
    const ctr = openssl(['enc', '-aes-256-ctr', '-K', key.toString('hex'), '-iv', counter], plaintext);
    expect(ctr.ok).toBe(true);
    expect(sealed.ciphertext).toEqual(ctr.stdout);
  });

  it('RFC 3394 key wrap agrees with `openssl enc -id-aes256-wrap` both ways', () => {
    const kek = randomBytes(32);
    const keyData = randomBytes(32);
    const args = ['-id-aes256-wrap', '-K', kek.toString('hex'), '-iv', 'A6A6A6A6A6A6A6A6'];
    const unwrapped = openssl(['enc', '-d', ...args], aesKeyWrap(kek, keyData));
    expect(unwrapped.ok).toBe(true);
    expect(unwrapped.stdout).toEqual(keyData);
    const wrapped = openssl(['enc', ...args], keyData);
    expect(aesKeyUnwrap(kek, wrapped.stdout)).toEqual(keyData);
  });

  it('RFC 5649 padded key wrap agrees with `openssl enc -id-aes256-wrap-pad` both ways', () => {
    const kek = randomBytes(32);
    const keyData = randomBytes(21);
    const args = ['-id-aes256-wrap-pad', '-K', kek.toString('hex'), '-iv', 'A65959A6'];
    const unwrapped = openssl(['enc', '-d', ...args], aesKeyWrapPadded(kek, keyData));
    expect(unwrapped.ok).toBe(true);
    expect(unwrapped.stdout).toEqual(keyData);
    expect(aesKeyUnwrapPadded(kek, openssl(['enc', ...args], keyData).stdout)).toEqual(keyData);
  });
});

describe('RSA-2048', () => {
  let key: GeneratedKey;
  let pub = '';
  let priv = '';
  beforeAll(() => {
    key = generateKey('RSA-2048');
    pub = publicPem(key);
    priv = privatePem(key.material);
  });
  const pss = ['-sigopt', 'rsa_padding_mode:pss', '-sigopt', 'rsa_mgf1_md:sha256'];
  const oaep = [
    '-pkeyopt',
    'rsa_padding_mode:oaep',
    '-pkeyopt',
    'rsa_oaep_md:sha256',
    '-pkeyopt',
    'rsa_mgf1_md:sha256',
  ];

  it('PSS-SHA256 signed here verifies with `openssl dgst -verify` (salt 32); a changed message does not', () => {
    const signature = file('pss.sig', rsaSign('RSA-2048', key.material, message));
    const args = [
      'dgst',
      '-sha256',
      ...pss,
      '-sigopt',
      'rsa_pss_saltlen:32',
      '-verify',
      pub,
      '-signature',
      signature,
    ];
    const good = openssl([...args, file('msg', message)]);
    expect(good.ok).toBe(true);
    expect(good.output).toContain('Verified OK');
    expect(openssl([...args, file('other', Buffer.from('other'))]).ok).toBe(false);
  });

  it('PSS signed by OpenSSL with a 32-byte salt verifies here; its default maximum salt does not', () => {
    const signedWith = (saltlen: string) =>
      openssl([
        'dgst',
        '-sha256',
        ...pss,
        '-sigopt',
        `rsa_pss_saltlen:${saltlen}`,
        '-sign',
        priv,
        file('msg', message),
      ]);
    for (const saltlen of ['digest', '32']) {
      const signed = signedWith(saltlen);
      expect(signed.ok).toBe(true);
      expect(rsaVerify('RSA-2048', publicKeyOf(key), message, signed.stdout), saltlen).toBe(true);
      expect(rsaVerify('RSA-2048', publicKeyOf(key), Buffer.from('other'), signed.stdout)).toBe(false);
    }
    // The salt length is a parameter of the scheme (RFC 8017 §9.1; Wycheproof's "s_len changed"
    // vectors are invalid): a signature made with another one is not accepted.
    const max = signedWith('max');
    expect(max.ok).toBe(true);
    expect(rsaVerify('RSA-2048', publicKeyOf(key), message, max.stdout)).toBe(false);
  });

  it('PKCS#1 v1.5 signatures are byte-identical to OpenSSL and verify there', () => {
    const ours = rsaSign('RSA-2048', key.material, message, 'PKCS1-v1_5');
    const theirs = openssl(['dgst', '-sha256', '-sign', priv, file('msg', message)]);
    expect(theirs.stdout).toEqual(ours);
    const verified = openssl([
      'dgst',
      '-sha256',
      '-verify',
      pub,
      '-signature',
      file('v15.sig', ours),
      file('msg', message),
    ]);
    expect(verified.output).toContain('Verified OK');
  });

  it('OAEP-SHA256: OpenSSL encrypts, we decrypt; we encrypt, OpenSSL decrypts', () => {
    const secret = randomBytes(48);
    const encrypted = openssl(['pkeyutl', '-encrypt', '-pubin', '-inkey', pub, ...oaep], secret);
    expect(encrypted.ok).toBe(true);
    expect(rsaOaepDecrypt('RSA-2048', key.material, encrypted.stdout)).toEqual(secret);
    const decrypted = openssl(
      ['pkeyutl', '-decrypt', '-inkey', priv, ...oaep],
      rsaOaepEncrypt('RSA-2048', publicKeyOf(key), secret),
    );
    expect(decrypted.ok).toBe(true);
    expect(decrypted.stdout).toEqual(secret);
  });
});

describe('ECDSA', () => {
  it.each([
    ['EC-P256', 'sha256'],
    ['EC-P384', 'sha384'],
    ['EC-P521', 'sha512'],
    ['EC-SECP256K1', 'sha256'],
  ] as const)(
    '%s: signed here verifies with `openssl dgst -%s -verify`, and the reverse',
    (algorithm, hash) => {
      const key = generateKey(algorithm);
      const pub = publicPem(key);
      const messageFile = file('msg', message);
      const signature = file('ecdsa.sig', ecdsaSign(algorithm, key.material, message));
      const verified = openssl(['dgst', `-${hash}`, '-verify', pub, '-signature', signature, messageFile]);
      expect(verified.output).toContain('Verified OK');
      expect(openssl(['dgst', `-${hash}`, '-verify', pub, '-signature', signature, file('x', 'x')]).ok).toBe(
        false,
      );

      const signed = openssl(['dgst', `-${hash}`, '-sign', privatePem(key.material), messageFile]);
      expect(signed.ok).toBe(true);
      expect(ecdsaVerify(algorithm, publicKeyOf(key), message, signed.stdout)).toBe(true);
      expect(ecdsaVerify(algorithm, publicKeyOf(key), Buffer.from('x'), signed.stdout)).toBe(false);
    },
  );
});

describe('Ed25519', () => {
  it('signatures are byte-identical to `openssl pkeyutl -sign -rawin` and verify there', () => {
    const key = generateKey('ED25519');
    const messageFile = file('msg', message);
    const ours = ed25519Sign(key.material, message);
    const verified = openssl([
      'pkeyutl',
      '-verify',
      '-rawin',
      '-pubin',
      '-inkey',
      publicPem(key),
      '-in',
      messageFile,
      '-sigfile',
      file('ed.sig', ours),
    ]);
    expect(verified.output).toContain('Signature Verified Successfully');
    const theirs = openssl([
      'pkeyutl',
      '-sign',
      '-rawin',
      '-inkey',
      privatePem(key.material),
      '-in',
      messageFile,
    ]);
    expect(theirs.stdout).toEqual(ours);
    expect(ed25519Verify(publicKeyOf(key), message, theirs.stdout)).toBe(true);
  });
});

describe('SM3 and SM4', () => {
  it('SM3 equals `openssl dgst -sm3`', () => {
    for (const data of [Buffer.alloc(0), Buffer.from('abc'), randomBytes(1000)]) {
      expect(openssl(['dgst', '-sm3', '-binary'], data).stdout).toEqual(digest('SM3', data));
    }
  });

  it('SM4 key check value equals `openssl enc -sm4-ecb -nopad` of a zero block', () => {
    const key = randomBytes(16);
    const ecb = openssl(['enc', '-sm4-ecb', '-nopad', '-K', key.toString('hex')], Buffer.alloc(16));
    expect(keyCheckValue('SM4', key)).toBe(ecb.stdout.subarray(0, 3).toString('hex').toUpperCase());
  });

  it('SM4-CBC ciphertext equals `openssl enc -sm4-cbc` and OpenSSL decrypts ours', () => {
    const key = randomBytes(16);
    const iv = randomBytes(16);
    const plaintext = randomBytes(53);
    const ours = sm4CbcEncrypt(key, iv, plaintext);
    const args = ['-sm4-cbc', '-K', key.toString('hex'), '-iv', iv.toString('hex')];
    expect(openssl(['enc', ...args], plaintext).stdout).toEqual(ours);
    expect(openssl(['enc', '-d', ...args], ours).stdout).toEqual(plaintext);
    expect(sm4CbcDecrypt(key, iv, ours)).toEqual(plaintext);
  });
});

describe('SM2', () => {
  let key: GeneratedKey;
  let pub = '';
  let priv = '';
  beforeAll(() => {
    key = generateKey('SM2');
    pub = publicPem(key);
    priv = privatePem(sm2PrivateKeyToPkcs8(key.material, sm2PublicKeyFromPrivate(key.material)));
  });
  const verifyArgs = (publicKeyFile: string, messageFile: string, signatureFile: string, distid: boolean) => [
    'pkeyutl',
    '-verify',
    '-rawin',
    '-digest',
    'sm3',
    ...(distid ? ['-pkeyopt', `distid:${SM2_DEFAULT_USER_ID}`] : []),
    '-pubin',
    '-inkey',
    publicKeyFile,
    '-in',
    messageFile,
    '-sigfile',
    signatureFile,
  ];

  it('signed here verifies with `openssl pkeyutl -verify -digest sm3 -pkeyopt distid:1234567812345678`', () => {
    const messageFile = file('msg', message);
    const signature = file('sm2.sig', sm2Sign(key.material, message));
    const verified = openssl(verifyArgs(pub, messageFile, signature, true));
    expect(verified.output).toContain('Signature Verified Successfully');
    // OpenSSL 3.0's default (empty) ID does not match: the trap docs/dependencies.md#server describes.
    expect(openssl(verifyArgs(pub, messageFile, signature, false)).ok).toBe(false);
  });

  it('signed by OpenSSL with that distid (its own key, and ours as PKCS#8) verifies here', () => {
    const generated = openssl(['genpkey', '-algorithm', 'SM2']);
    expect(generated.ok).toBe(true);
    const theirKey = file('sm2-openssl.pem', generated.stdout);
    const theirPublic = pemToDer(
      openssl(['pkey', '-in', theirKey, '-pubout']).stdout.toString(),
      'PUBLIC KEY',
    );
    const messageFile = file('msg', message);
    for (const [signer, publicKey] of [
      [theirKey, theirPublic],
      [priv, publicKeyOf(key)],
    ] as const) {
      const signed = openssl([
        'pkeyutl',
        '-sign',
        '-rawin',
        '-digest',
        'sm3',
        '-pkeyopt',
        `distid:${SM2_DEFAULT_USER_ID}`,
        '-inkey',
        signer,
        '-in',
        messageFile,
      ]);
      expect(signed.ok).toBe(true);
      expect(sm2Verify(publicKey, message, signed.stdout)).toBe(true);
      expect(sm2Verify(publicKey, message, signed.stdout, { userId: '' })).toBe(false);
      expect(sm2Verify(publicKey, Buffer.from('x'), signed.stdout)).toBe(false);
    }
  });

  it('encryption interoperates with `openssl pkeyutl` through the GM/T 0009 DER form', () => {
    const secret = randomBytes(40);
    const encrypted = openssl(['pkeyutl', '-encrypt', '-pubin', '-inkey', pub], secret);
    expect(encrypted.ok).toBe(true);
    expect(sm2Decrypt(key.material, sm2CiphertextFromDer(encrypted.stdout))).toEqual(secret);
    const decrypted = openssl(
      ['pkeyutl', '-decrypt', '-inkey', priv],
      sm2CiphertextToDer(sm2Encrypt(publicKeyOf(key), secret)),
    );
    expect(decrypted.ok).toBe(true);
    expect(decrypted.stdout).toEqual(secret);
  });
});
