import { unlinkSync } from 'node:fs';
import { Keyring, fingerprint, type SealFile } from './keyring.js';

/**
 * Why a root of trust cannot unwrap (or wrap) the root key: the key of a message
 * (`system.sealed` for the seal file, `hsm.*` for a PKCS#11 token) and its parameters.
 */
export type RootFailure =
  | 'system.sealed'
  | 'hsm.library'
  | 'hsm.libraryNotAllowed'
  | 'hsm.tokenAbsent'
  | 'hsm.pinRefused'
  | 'hsm.keyMissing'
  | 'hsm.unwrapFailed'
  | 'hsm.failed'
  | 'hsm.pinFile';

export class RootUnavailable extends Error {
  constructor(
    readonly reason: RootFailure,
    readonly params: Record<string, string> = {},
  ) {
    super(reason);
    this.name = 'RootUnavailable';
  }
}

/** What `system_state` keeps of a wrapping: the blob, and the seal key's fingerprint (seal file only). */
export interface RootWrapping {
  wrapped: string;
  fingerprint: string | null;
}

/**
 * What seals the root key at rest (docs/security-model.md#keys): the local seal file, or
 * a non-extractable key inside a PKCS#11 token. Another kind (a GM/T 0018 SDF device) plugs in
 * by implementing this. Every method is synchronous and throws `RootUnavailable`.
 */
export interface RootOfTrust {
  readonly kind: 'seal-file' | 'pkcs11';
  wrap(root: Buffer): RootWrapping;
  unwrap(wrapping: RootWrapping): Buffer;
  /** Removes what only this root of trust holds, once another one has taken over. */
  retire(): void;
}

/** The embedded default: the 32-byte key of `seal.key` (mode 0600) wraps the root key. */
export class SealFileRoot implements RootOfTrust {
  readonly kind = 'seal-file' as const;
  constructor(readonly file: SealFile) {}

  /** Makes a new seal file (a leftover one, matching nothing in the database, is replaced). */
  wrap(root: Buffer): RootWrapping {
    if (this.file.exists()) unlinkSync(this.file.path);
    const key = this.file.create();
    try {
      return { wrapped: Keyring.wrapRoot(key, root), fingerprint: fingerprint(key) };
    } finally {
      key.fill(0);
    }
  }

  unwrap(wrapping: RootWrapping): Buffer {
    const key = this.file.read();
    try {
      if (!key || fingerprint(key) !== wrapping.fingerprint)
        throw new RootUnavailable('system.sealed', { file: this.file.path });
      return Keyring.unwrapRoot(key, wrapping.wrapped);
    } finally {
      key?.fill(0);
    }
  }

  retire(): void {
    if (this.file.exists()) unlinkSync(this.file.path);
  }
}
