import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { aeadOpen, aeadSeal } from './aead.js';
import { Keyring, kcv, xorInto } from './keyring.js';

describe('key check values', () => {
  it('match the published AES zero-key, zero-block vectors', () => {
    // FIPS-197 style vectors: AES-k(0^k, 0^128) first three bytes.
    expect(kcv(Buffer.alloc(16))).toBe('66E94B');
    expect(kcv(Buffer.alloc(24))).toBe('AAE069');
    expect(kcv(Buffer.alloc(32))).toBe('DC95C0');
  });
});

describe('AES-256-GCM sealing', () => {
  it('round-trips and refuses another owner, a flipped bit or another key', () => {
    const key = randomBytes(32);
    const sealed = aeadSeal(key, Buffer.from('secret material'), 'domain/a');
    expect(aeadOpen(key, sealed, 'domain/a').toString()).toBe('secret material');
    expect(() => aeadOpen(key, sealed, 'domain/b')).toThrow();
    const raw = Buffer.from(sealed, 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    expect(() => aeadOpen(key, raw.toString('base64'), 'domain/a')).toThrow();
    expect(() => aeadOpen(randomBytes(32), sealed, 'domain/a')).toThrow();
  });
});

describe('keyring', () => {
  it('wraps domain KEKs under the root key only while open', () => {
    const ring = new Keyring();
    expect(() => ring.newDomainKek('d1')).toThrow(/sealed/);
    const root = randomBytes(32);
    ring.open(root);
    const wrapped = ring.newDomainKek('d1');
    const kek = ring.domainKek('d1', wrapped);
    expect(kek).toHaveLength(32);
    const other = new Keyring();
    other.open(randomBytes(32));
    expect(() => other.domainKek('d1', wrapped)).toThrow();
    ring.close();
    expect(ring.isOpen).toBe(false);
  });

  it('XORs components into the root key', () => {
    const a = Buffer.from('0f0f', 'hex');
    xorInto(a, Buffer.from('ff00', 'hex'));
    expect(a.toString('hex')).toBe('f00f');
  });
});
