import { randomBytes } from 'node:crypto';
import * as graphene from 'graphene-pk11';
import { allowedLibrary } from './pkcs11-library.js';
import { RootUnavailable, type RootFailure, type RootOfTrust, type RootWrapping } from './root-of-trust.js';

/** Where the root of trust lives on a PKCS#11 token, and how to log in. */
export interface Pkcs11Settings {
  /** Path of the vendor's PKCS#11 library (`.so`). */
  library: string;
  /** Directories the library must lie in (KSP_PKCS11_DIRS): checked before every load. */
  allowedDirs: readonly string[];
  /** The token, by serial number (preferred) or by label; neither: the first initialized token. */
  serial?: string | null;
  label?: string | null;
  /** The user PIN: only ever in memory here; kept sealed at rest by the caller. */
  pin: string;
  /** Label of the AES-256 key on the token that wraps the root key. */
  keyLabel: string;
}

/** The token and key a round trip went through, as the HSM page shows them. */
export interface TokenFacts {
  serial: string;
  label: string;
  manufacturer: string;
  model: string;
  key_label: string;
  /** What the token answers for the wrapping key (must be true / false). */
  key_sensitive: boolean;
  key_extractable: boolean;
  /** True when this call made the key (none with its label was on the token). */
  key_created: boolean;
}

const ROOT_AAD = Buffer.from('ksp/root-key', 'utf8');
const TEST_AAD = Buffer.from('ksp/hsm-test', 'utf8');
const FORMAT = 'p11gcm1:';
const TAG_BITS = 128;

/** The PKCS#11 return value named in a graphene/pkcs11js error ("CKR_PIN_INCORRECT:160"). */
const ckr = (err: unknown) => /CKR_[A-Z_]+/.exec(err instanceof Error ? err.message : String(err))?.[0] ?? '';

const fail = (reason: RootFailure, params: Record<string, string> = {}) =>
  new RootUnavailable(reason, params);

/**
 * The root key wrapped by a non-extractable, sensitive AES-256 key on a PKCS#11 token
 * (AES-GCM, 12-byte IV, additional data `ksp/root-key`). Each operation loads the library,
 * initializes it, logs in, works and finalizes again: binding, unsealing and testing are rare,
 * and a token removed and plugged back in (or a changed library configuration) is seen afresh.
 * Everything runs synchronously, so two operations never interleave on one library.
 */
export class Pkcs11Root implements RootOfTrust {
  readonly kind = 'pkcs11' as const;
  constructor(private readonly settings: Pkcs11Settings) {}

  private session<T>(
    work: (
      session: graphene.Session,
      facts: Pick<TokenFacts, 'serial' | 'label' | 'manufacturer' | 'model'>,
    ) => T,
  ): T {
    const { library, allowedDirs } = this.settings;
    const path = allowedLibrary(library, allowedDirs);
    let mod: graphene.Module;
    try {
      mod = graphene.Module.load(path, 'ksp-hsm');
    } catch {
      throw fail('hsm.library', { library });
    }
    const wanted = this.settings.serial?.trim() || this.settings.label?.trim() || '*';
    try {
      try {
        mod.initialize();
      } catch {
        // SoftHSM2 refuses to start without its token directory: the token is gone.
        throw fail('hsm.tokenAbsent', { token: wanted });
      }
      let chosen: { slot: graphene.Slot; token: graphene.Token } | undefined;
      const slots = mod.getSlots(true);
      for (let i = 0; i < slots.length && !chosen; i++) {
        const slot = slots.items(i);
        const token = slot.getToken();
        if ((token.flags & graphene.TokenFlag.TOKEN_INITIALIZED) === 0) continue;
        const serial = token.serialNumber.trim();
        const label = token.label.trim();
        const matches = this.settings.serial?.trim()
          ? serial === this.settings.serial.trim()
          : this.settings.label?.trim()
            ? label === this.settings.label.trim()
            : true;
        if (matches) chosen = { slot, token };
      }
      if (!chosen) throw fail('hsm.tokenAbsent', { token: wanted });
      const facts = {
        serial: chosen.token.serialNumber.trim(),
        label: chosen.token.label.trim(),
        manufacturer: chosen.token.manufacturerID.trim(),
        model: chosen.token.model.trim(),
      };
      const session = chosen.slot.open(graphene.SessionFlag.SERIAL_SESSION | graphene.SessionFlag.RW_SESSION);
      try {
        try {
          session.login(this.settings.pin, graphene.UserType.USER);
        } catch (err) {
          const code = ckr(err);
          if (code === 'CKR_USER_ALREADY_LOGGED_IN') {
            // another session of this process is logged in: the token accepts this one too
          } else if (/PIN/.test(code)) throw fail('hsm.pinRefused', { token: facts.serial, detail: code });
          else throw fail('hsm.failed', { detail: code || 'C_Login' });
        }
        try {
          return work(session, facts);
        } catch (err) {
          if (err instanceof RootUnavailable) throw err;
          throw fail('hsm.failed', { detail: ckr(err) || 'PKCS#11' });
        } finally {
          try {
            session.logout();
          } catch {
            // already logged out
          }
        }
      } finally {
        session.close();
      }
    } catch (err) {
      if (err instanceof RootUnavailable) throw err;
      throw fail('hsm.failed', { detail: ckr(err) || 'PKCS#11' });
    } finally {
      try {
        mod.finalize();
      } catch {
        // not initialized
      }
      mod.close();
    }
  }

  private findKey(session: graphene.Session): graphene.SecretKey | null {
    const found = session.find({
      class: graphene.ObjectClass.SECRET_KEY,
      keyType: graphene.KeyType.AES,
      label: this.settings.keyLabel,
      token: true,
    });
    return found.length > 0 ? found.items(0).toType<graphene.SecretKey>() : null;
  }

  /** The wrapping key: found by label, or made on the token (never leaves it). */
  private wrappingKey(
    session: graphene.Session,
    create: boolean,
  ): { key: graphene.SecretKey; created: boolean } {
    const existing = this.findKey(session);
    if (existing) return { key: existing, created: false };
    if (!create) throw fail('hsm.keyMissing', { key: this.settings.keyLabel });
    const key = session.generateKey(graphene.KeyGenMechanism.AES, {
      class: graphene.ObjectClass.SECRET_KEY,
      keyType: graphene.KeyType.AES,
      label: this.settings.keyLabel,
      valueLen: 32,
      token: true,
      private: true,
      sensitive: true,
      extractable: false,
      modifiable: false,
      encrypt: true,
      decrypt: true,
      wrap: true,
      unwrap: true,
    });
    return { key, created: true };
  }

  private static seal(
    session: graphene.Session,
    key: graphene.SecretKey,
    plain: Buffer,
    aad: Buffer,
  ): string {
    const iv = randomBytes(12);
    const cipher = session.createCipher(
      { name: 'AES_GCM', params: new graphene.AesGcm240Params(iv, aad, TAG_BITS) },
      key,
    );
    const ct = cipher.once(plain, Buffer.alloc(plain.length + 32));
    return FORMAT + Buffer.concat([iv, ct]).toString('base64');
  }

  private static open(
    session: graphene.Session,
    key: graphene.SecretKey,
    sealed: string,
    aad: Buffer,
  ): Buffer {
    if (!sealed.startsWith(FORMAT)) throw fail('hsm.unwrapFailed');
    const raw = Buffer.from(sealed.slice(FORMAT.length), 'base64');
    if (raw.length < 12 + 16) throw fail('hsm.unwrapFailed');
    const decipher = session.createDecipher(
      { name: 'AES_GCM', params: new graphene.AesGcm240Params(raw.subarray(0, 12), aad, TAG_BITS) },
      key,
    );
    try {
      return decipher.once(raw.subarray(12), Buffer.alloc(raw.length));
    } catch {
      throw fail('hsm.unwrapFailed');
    }
  }

  /** Wraps the root key, making the token key when it is not there yet. */
  wrap(root: Buffer): RootWrapping {
    return this.session((session) => {
      const { key } = this.wrappingKey(session, true);
      return { wrapped: Pkcs11Root.seal(session, key, root, ROOT_AAD), fingerprint: null };
    });
  }

  unwrap(wrapping: RootWrapping): Buffer {
    return this.session((session) => {
      const { key } = this.wrappingKey(session, false);
      return Pkcs11Root.open(session, key, wrapping.wrapped, ROOT_AAD);
    });
  }

  /**
   * Seals a secret of another purpose (an HSM-bound backup's) under the same token key, with
   * its own additional data: only a server reaching this token key opens it again.
   */
  sealSecret(plain: Buffer, aad: string): { wrapped: string; token: string } {
    return this.session((session, facts) => {
      const { key } = this.wrappingKey(session, false);
      return { wrapped: Pkcs11Root.seal(session, key, plain, Buffer.from(aad)), token: facts.serial };
    });
  }

  openSecret(wrapped: string, aad: string): Buffer {
    return this.session((session) => {
      const { key } = this.wrappingKey(session, false);
      return Pkcs11Root.open(session, key, wrapped, Buffer.from(aad));
    });
  }

  /** The token key stays: other servers and HSM-bound backups may rely on it. */
  retire(): void {}

  /**
   * The "test" action: encrypts 32 random bytes under the token key and decrypts them again
   * (`create`: make the key when missing, as binding would).
   */
  roundTrip(create: boolean): TokenFacts {
    return this.session((session, token) => {
      const { key, created } = this.wrappingKey(session, create);
      const probe = randomBytes(32);
      const back = Pkcs11Root.open(session, key, Pkcs11Root.seal(session, key, probe, TEST_AAD), TEST_AAD);
      if (!back.equals(probe)) throw fail('hsm.unwrapFailed');
      return {
        ...token,
        key_label: this.settings.keyLabel,
        key_sensitive: key.getAttribute('sensitive') === true,
        key_extractable: key.getAttribute('extractable') === true,
        key_created: created,
      };
    });
  }
}
