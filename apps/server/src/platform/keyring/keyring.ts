import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { aeadOpen, aeadSeal } from './aead.js';

export function xorInto(target: Buffer, source: Buffer): void {
  for (let i = 0; i < target.length; i++) target[i] = (target[i] ?? 0) ^ (source[i] ?? 0);
}

const ROOT_AAD = 'ksp/root-key';
const domainAad = (domainId: string) => `ksp/domain-kek/${domainId}`;

/** The seal file holds the 32-byte key that wraps the root key at rest (mode 0600). */
export class SealFile {
  constructor(readonly path: string) {}

  exists(): boolean {
    return existsSync(this.path);
  }

  create(): Buffer {
    const key = randomBytes(32);
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    writeFileSync(this.path, `ksp-seal-v1:${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(this.path, 0o600);
    return key;
  }

  read(): Buffer | null {
    if (!this.exists()) return null;
    const text = readFileSync(this.path, 'utf8').trim();
    const match = /^ksp-seal-v1:([A-Za-z0-9+/=]{44})$/.exec(text);
    if (!match?.[1]) return null;
    return Buffer.from(match[1], 'base64');
  }
}

export function fingerprint(key: Buffer): string {
  return createHash('sha256').update('ksp/seal-fingerprint').update(key).digest('hex').slice(0, 32);
}

/**
 * Root key ▸ domain KEKs ▸ key material (docs/security-model.md#keys).
 * The root key lives only in this process's memory once unsealed.
 */
export class Keyring {
  private root: Buffer | null = null;
  private readonly kekCache = new Map<string, Buffer>();

  get isOpen(): boolean {
    return this.root !== null;
  }

  open(rootKey: Buffer): void {
    this.root = Buffer.from(rootKey);
    this.kekCache.clear();
  }

  close(): void {
    this.root?.fill(0);
    this.root = null;
    for (const k of this.kekCache.values()) k.fill(0);
    this.kekCache.clear();
  }

  /**
   * A copy of the root key, for re-wrapping it under another root of trust only (binding or
   * unbinding an HSM); the caller wipes it.
   */
  rootCopy(): Buffer {
    return Buffer.from(this.requireRoot());
  }

  static wrapRoot(sealKey: Buffer, rootKey: Buffer): string {
    return aeadSeal(sealKey, rootKey, ROOT_AAD);
  }

  static unwrapRoot(sealKey: Buffer, wrapped: string): Buffer {
    return aeadOpen(sealKey, wrapped, ROOT_AAD);
  }

  /** A fresh domain KEK, returned wrapped by the root key. */
  newDomainKek(domainId: string): string {
    const kek = randomBytes(32);
    try {
      return aeadSeal(this.requireRoot(), kek, domainAad(domainId));
    } finally {
      kek.fill(0);
    }
  }

  /** A given domain KEK (a restored backup's) wrapped by the root key, as `kek_wrapped` stores it. */
  wrapDomainKek(domainId: string, kek: Buffer): string {
    return aeadSeal(this.requireRoot(), kek, domainAad(domainId));
  }

  /** Forgets the unwrapped domain KEKs (a restore replaced domains): the next use unwraps again. */
  forgetKeks(): void {
    // Not zeroed: a call under way may still hold one; they go with the garbage collector.
    this.kekCache.clear();
  }

  /** The domain's KEK if it was unwrapped already (no database read needed). */
  cachedKek(domainId: string): Buffer | undefined {
    return this.root ? this.kekCache.get(domainId) : undefined;
  }

  domainKek(domainId: string, wrapped: string): Buffer {
    const cached = this.kekCache.get(domainId);
    if (cached) return cached;
    const kek = aeadOpen(this.requireRoot(), wrapped, domainAad(domainId));
    this.kekCache.set(domainId, kek);
    return kek;
  }

  /**
   * A key of its own for one purpose (`label`), derived from the root key with HKDF-SHA256:
   * the same for every node and restart, useless without the root key.
   */
  deriveKey(label: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.requireRoot(), Buffer.alloc(0), `ksp/${label}`, 32));
  }

  private requireRoot(): Buffer {
    if (!this.root) throw new Error('The keyring is sealed');
    return this.root;
  }
}
