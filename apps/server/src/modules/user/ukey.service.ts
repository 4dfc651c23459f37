import { randomBytes, verify as verifySignature, X509Certificate } from 'node:crypto';
import { Code, type api, type Input } from '@ksp/contracts';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import { forbidden, invalid, KspError, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import { sm2Verify } from '../../platform/crypto/asymmetric.js';
import { type SignedIn, type UserService } from './user.service.js';
import {
  deleteMfaPending,
  findMfaPending,
  findUserById,
  findUserByName,
  setMfaChallenge,
  updateUser,
} from './user.store.js';

/** A right password opens a window for the UKEY step; the challenge itself lives shorter. */
const PASSWORD_WINDOW_MS = 120_000;
const CHALLENGE_MS = 60_000;

/**
 * UKEY second factor (docs/modules.md#decisions): the token holds the user's signing key and
 * certificate. Login = the token signs the server's one-time random (its hex text, as
 * UTF-8, SHA-256) and the server verifies with the bound certificate. ECDSA signatures
 * may be DER or raw r||s (PKCS#11 CKM_ECDSA); RSA signatures are PKCS#1 v1.5.
 */
export function createUkeyService(deps: {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  users: UserService;
  domains: ModuleServices['domains'];
}) {
  const { db, clock, audit } = deps;
  const { assertManageable } = deps.domains;

  function parseCertificate(pem: string): X509Certificate {
    try {
      return new X509Certificate(pem);
    } catch {
      throw invalid('ukey.badCertificate');
    }
  }

  /** The SM2 curve's OID as it sits in a SubjectPublicKeyInfo (1.2.156.10197.1.301). */
  const SM2_CURVE = Buffer.from('06082a811ccf5501822d', 'hex');
  const sm2Spki = (cert: X509Certificate): Buffer | null => {
    const spki = cert.publicKey.export({ type: 'spki', format: 'der' });
    return spki.includes(SM2_CURVE) ? spki : null;
  };

  function signatureValid(cert: X509Certificate, data: Buffer, signature: Buffer): boolean {
    // SM2 (a GM/T 0016 token): SM3 with the GM/T 0009 default ID, DER (r, s).
    const sm2 = sm2Spki(cert);
    if (sm2) {
      try {
        return sm2Verify(sm2, data, signature);
      } catch {
        return false;
      }
    }
    const key = cert.publicKey;
    const tries: { dsaEncoding?: 'der' | 'ieee-p1363' }[] =
      key.asymmetricKeyType === 'ec' ? [{ dsaEncoding: 'der' }, { dsaEncoding: 'ieee-p1363' }] : [{}];
    return tries.some((options) => {
      try {
        return verifySignature('sha256', data, { key, ...options }, signature);
      } catch {
        return false;
      }
    });
  }

  /** The user whose UKEY the caller binds: itself, or a user it manages (user:write). */
  async function bindable(actor: Actor, userId: string) {
    if (userId !== actor.userId && !actor.permissions.has('user:write')) {
      throw forbidden('auth.forbidden', { permission: 'user:write' });
    }
    const user = await findUserById(db, userId);
    if (!user) throw notFound('user.notFound', { id: userId });
    if (user.id !== actor.userId) await assertManageable(db, actor, user);
    return user;
  }

  return {
    /** Refuses (4030/4040) unless the caller may bind a UKEY to this user; binds nothing. */
    async assertBindable(actor: Actor, userId: string): Promise<void> {
      await bindable(actor, userId);
    },

    async bind(actor: Actor, meta: RequestMeta, body: Input<typeof api.user.bindUkey>) {
      const user = await bindable(actor, body.id ?? actor.userId);
      const cert = parseCertificate(body.certificate);
      const now = clock();
      if (Date.parse(cert.validTo) <= now.getTime())
        throw invalid('ukey.certificateExpired', { date: new Date(cert.validTo).toISOString() });
      const type = cert.publicKey.asymmetricKeyType;
      if (type !== 'ec' && type !== 'rsa' && !sm2Spki(cert))
        throw invalid('ukey.unsupportedKey', { type: String(type) });
      await db.transaction().execute(async (trx) => {
        await updateUser(trx, user.id, {
          ukey_serial: body.serial,
          ukey_cert: cert.toString(),
          updated_at: now.toISOString(),
        });
        await audit.byCaller(trx, actor, meta, {
          action: 'user.bindukey',
          target: user.username,
          details: { serial: body.serial, fingerprint: cert.fingerprint256 },
        });
      });
      return {
        ukey_serial: body.serial,
        subject: cert.subject,
        not_after: new Date(cert.validTo).toISOString(),
      };
    },

    async unbind(actor: Actor, meta: RequestMeta, id: string) {
      const user = await findUserById(db, id);
      if (!user) throw notFound('user.notFound', { id });
      await assertManageable(db, actor, user);
      await db.transaction().execute(async (trx) => {
        await updateUser(trx, user.id, {
          ukey_serial: null,
          ukey_cert: null,
          updated_at: clock().toISOString(),
        });
        await audit.byCaller(trx, actor, meta, { action: 'user.unbindukey', target: user.username });
      });
      return null;
    },

    async random(name: string) {
      const user = await findUserByName(db, name);
      const pending = user ? await findMfaPending(db, user.id) : undefined;
      const now = clock().getTime();
      if (!user || !pending || now - Date.parse(pending.password_ok_at) > PASSWORD_WINDOW_MS) {
        throw stateForbids('ukey.passwordFirst');
      }
      if (!user.ukey_cert) throw stateForbids('ukey.notBound');
      const random = randomBytes(32).toString('hex');
      await setMfaChallenge(db, user.id, random, new Date(now + CHALLENGE_MS).toISOString());
      return { random, expires_in: CHALLENGE_MS / 1000 };
    },

    async verify(body: Input<typeof api.user.verify>, meta: RequestMeta): Promise<SignedIn> {
      const user = await findUserByName(db, body.name);
      const pending = user ? await findMfaPending(db, user.id) : undefined;
      // Single use: whatever the outcome, this challenge is spent.
      if (user) await deleteMfaPending(db, user.id);
      const now = clock().getTime();
      const fresh =
        pending?.challenge && pending.challenge_expires_at && Date.parse(pending.challenge_expires_at) > now;
      const valid =
        user?.ukey_cert &&
        fresh &&
        signatureValid(
          new X509Certificate(user.ukey_cert),
          Buffer.from(pending.challenge!, 'utf8'),
          Buffer.from(body.sign, 'base64'),
        );
      if (!user || !valid) {
        await audit.write(db, {
          who: user ? { userId: user.id, username: user.username, domainId: null, domainName: '' } : null,
          action: 'user.verify',
          target: body.name.slice(0, 64),
          result: 'failure',
          ip: meta.ip,
          details: { reason: fresh ? 'bad signature' : 'no valid challenge' },
        });
        throw new KspError(Code.BAD_CREDENTIALS, 'ukey.verifyFailed');
      }
      return deps.users.completeLogin(user, meta, { passwordChecked: true, secondFactorDone: true });
    },
  };
}

export type UkeyService = ReturnType<typeof createUkeyService>;
