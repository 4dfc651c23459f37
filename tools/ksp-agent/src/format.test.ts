import {
  constants,
  createCipheriv,
  createECDH,
  createPublicKey,
  generateKeyPairSync,
  hkdfSync,
  publicEncrypt,
  randomBytes,
} from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AgentKey } from '@ksp/contracts';
import { decryptFile, encryptFile, isProtected, readHeader } from './format.js';
import { unwrapKey, WRAP_INFO } from './keys.js';

describe('protected file format', () => {
  const key = randomBytes(32);
  const plain = Buffer.from('quarterly figures\n');

  it('writes magic, version, key id, key version and IV before the ciphertext and tag', () => {
    const file = encryptFile(plain, key, 'k-1', 7);
    expect(file.subarray(0, 4).toString()).toBe('KSPE');
    expect(file[4]).toBe(1);
    expect(file.readUInt16BE(5)).toBe(3);
    expect(file.subarray(7, 10).toString()).toBe('k-1');
    expect(file.readUInt32BE(10)).toBe(7);
    const header = readHeader(file);
    expect(header).toMatchObject({ keyId: 'k-1', keyVersion: 7, length: 4 + 1 + 2 + 3 + 4 + 12 });
    expect(file.length).toBe(header.length + plain.length + 16);
    expect(file.includes(plain)).toBe(false);
    expect(isProtected(file)).toBe(true);
    expect(isProtected(plain)).toBe(false);
  });

  it('decrypts with the key version its header names, and refuses a changed header or body', () => {
    const file = encryptFile(plain, key, 'k-1', 7);
    expect(decryptFile(file, (id, v) => (id === 'k-1' && v === 7 ? key : undefined))).toEqual(plain);
    expect(() => decryptFile(file, () => undefined)).toThrow(/not available/);
    const tamperedVersion = Buffer.from(file);
    tamperedVersion.writeUInt32BE(8, 10);
    expect(() => decryptFile(tamperedVersion, () => key)).toThrow();
    const tamperedBody = Buffer.from(file);
    tamperedBody[tamperedBody.length - 20]! ^= 1;
    expect(() => decryptFile(tamperedBody, () => key)).toThrow();
  });

  it('an empty file round-trips', () => {
    expect(decryptFile(encryptFile(Buffer.alloc(0), key, 'e', 1), () => key).length).toBe(0);
  });
});

describe('key unwrap (contracts/agent.ts)', () => {
  const bytes = randomBytes(32);

  it('RSA-OAEP-256', () => {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const wrapped = publicEncrypt(
      { key: pair.publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      bytes,
    );
    const key: AgentKey = {
      id: 'k',
      name: 'k',
      version: 1,
      algorithm: 'AES-256',
      alg: 'RSA-OAEP-256',
      wrapped: wrapped.toString('base64'),
    };
    expect(unwrapKey(key, pair.privateKey)).toEqual(bytes);
  });

  it('ECDH-ES+A256GCM, bound to the key id and version', () => {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = pair.publicKey.export({ format: 'jwk' });
    const eph = createECDH('prime256v1');
    eph.generateKeys();
    const shared = eph.computeSecret(
      Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]),
    );
    const kek = Buffer.from(hkdfSync('sha256', shared, Buffer.alloc(0), WRAP_INFO, 32));
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', kek, iv);
    c.setAAD(Buffer.from('k:3'));
    const wrapped = Buffer.concat([c.update(bytes), c.final()]);
    const pub = eph.getPublicKey();
    const epk = createPublicKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: pub.subarray(1, 33).toString('base64url'),
        y: pub.subarray(33).toString('base64url'),
      },
      format: 'jwk',
    }).export({ type: 'spki', format: 'der' });
    const key: AgentKey = {
      id: 'k',
      name: 'k',
      version: 3,
      algorithm: 'AES-256',
      alg: 'ECDH-ES+A256GCM',
      wrapped: wrapped.toString('base64'),
      epk: epk.toString('base64'),
      iv: iv.toString('base64'),
      tag: c.getAuthTag().toString('base64'),
    };
    expect(unwrapKey(key, pair.privateKey)).toEqual(bytes);
    expect(() => unwrapKey({ ...key, version: 4 }, pair.privateKey)).toThrow();
  });
});
