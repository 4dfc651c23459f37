import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyCheckValue } from '../crypto/symmetric.js';
import type { Db } from '../db/database.js';
import { aeadOpen, aeadSeal } from './aead.js';
import { createDomainSealer } from './domain-sealer.js';
import { Keyring, xorInto } from './keyring.js';
import { createSecretBox } from './secret-box.js';

describe('key check values', () => {
  it('match the published AES zero-key, zero-block vectors', () => {
    // FIPS-197 style vectors: AES-k(0^k, 0^128) first three bytes.
    expect(keyCheckValue('AES-128', Buffer.alloc(16))).toBe('66E94B');
    expect(keyCheckValue('AES-192', Buffer.alloc(24))).toBe('AAE069');
    expect(keyCheckValue('AES-256', Buffer.alloc(32))).toBe('DC95C0');
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

describe('sealing under a domain KEK', () => {
  // A KEK unwrapped once is cached: these calls never read the (absent) database.
  const noDb = {} as Db;
  const ring = new Keyring();
  ring.open(randomBytes(32));
  const kek = ring.domainKek('d1', ring.newDomainKek('d1'));

  it('opens blobs in the at-rest format of key material and directory secrets', async () => {
    const sealer = createDomainSealer({ keyring: ring });
    const material = randomBytes(32);
    const stored = aeadSeal(kek, material, 'ksp/key/k1/2');
    expect(await sealer.open(noDb, 'd1', 'ksp/key/k1/2', stored)).toEqual(material);
    await expect(sealer.open(noDb, 'd1', 'ksp/key/k1/1', stored)).rejects.toThrow();
    const box = createSecretBox({ db: noDb, keyring: ring });
    expect(await box.open('d1', 'ldap-1', aeadSeal(kek, Buffer.from('bind pw'), 'ksp/secret/ldap-1'))).toBe(
      'bind pw',
    );
    expect(aeadOpen(kek, await box.seal('d1', 'ldap-1', 'bind pw'), 'ksp/secret/ldap-1').toString()).toBe(
      'bind pw',
    );
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
