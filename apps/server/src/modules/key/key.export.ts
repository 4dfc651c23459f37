import { createPublicKey } from 'node:crypto';
import { algorithmInfo, keyStateAllows, type AlgorithmId, type KeyState } from '@ksp/contracts';
import type { AuditWriter } from '../../platform/audit.js';
import {
  asymmetricEncrypt,
  sm2CheckedPublicKey,
  sm2PublicKeyFromPrivate,
} from '../../platform/crypto/asymmetric.js';
import { sm2PrivateKeyToPkcs8, sm2PublicKeyFromSpki } from '../../platform/crypto/encoding.js';
import { randomBytes } from '../../platform/crypto/random.js';
import { aesKeyWrapPadded } from '../../platform/crypto/symmetric.js';
import type { Db, Executor } from '../../platform/db/database.js';
import type { KeyTable } from '../../platform/db/schema.js';
import { invalid, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { KeyMaterial } from './key.material.js';
import { findVersion } from './key.store.js';

/** The public keys that may wrap an export: RSA of the sizes KSP makes, or SM2 (Base64 SPKI DER). */
function wrapAlgorithmOf(spki: Buffer): AlgorithmId {
  // Node 20 does not read SM2 SubjectPublicKeyInfo (OpenSSL 3 gives it a key type Node does
  // not know): its point is taken from the DER and checked to be on the curve.
  try {
    sm2CheckedPublicKey(sm2PublicKeyFromSpki(spki));
    return 'SM2';
  } catch {
    // Not an SM2 key: RSA is tried below.
  }
  try {
    const pub = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    const bits = pub.asymmetricKeyDetails?.modulusLength;
    if (pub.asymmetricKeyType === 'rsa' && (bits === 2048 || bits === 3072 || bits === 4096)) {
      return `RSA-${bits}`;
    }
  } catch {
    // An unreadable key is refused below, as an unsupported one is.
  }
  throw invalid('key.wrapKeyBad');
}

/**
 * Export (docs/modules.md#export-and-import): secret material leaves only wrapped by the caller's public key,
 * directly when it fits, else under a fresh AES-256 KEK (RFC 5649) that the public key
 * wraps. Every export is audited.
 */
export function createKeyExport(deps: {
  db: Db;
  audit: AuditWriter;
  material: KeyMaterial;
  load: (actor: Actor, id: string, trx?: Executor) => Promise<KeyTable>;
}) {
  const { db, audit, material } = deps;

  /**
   * A KMIP Get (docs/kmip.md#get): the key's material in clear, to a KMIP client over its mutual
   * TLS connection: public keys as SPKI DER; secret material only from an exportable key whose
   * state allows export, as for a wrapped export (raw bytes, or PKCS#8 DER for RSA and EC private
   * keys). The caller zeroes the buffer. Audited as an export with wrapping `tls`, or the key
   * that wraps it (`wrapping`, a KMIP Get with a Key Wrapping Specification).
   */
  async function exportForKmip(actor: Actor, meta: RequestMeta, id: string, wrapping = 'tls') {
    const row = await deps.load(actor, id);
    const version = await findVersion(db, row.id, row.current_version);
    if (!version) throw notFound('key.versionNotFound', { name: row.name, version: row.current_version });
    const algorithm = row.algorithm as AlgorithmId;
    const record = () =>
      audit.byCaller(db, actor, meta, {
        action: 'key.export',
        target: row.name,
        objectId: row.id,
        details: { key_id: row.id, version: version.version, wrapping },
      });
    if (row.object_type === 'public') {
      if (!version.public_key) throw stateForbids('key.noMaterial', { name: row.name });
      await record();
      return {
        row,
        algorithm,
        version: version.version,
        material: Buffer.from(version.public_key, 'base64'),
      };
    }
    if (row.exportable !== 1) throw stateForbids('key.notExportable', { name: row.name });
    if (!keyStateAllows('export', row.state as KeyState) || !version.material_wrapped)
      throw stateForbids('key.noMaterial', { name: row.name });
    if (algorithm === 'SM2' || algorithmInfo(algorithm).pqc)
      throw stateForbids('key.noMaterial', { name: row.name });
    const secret = await material.open(db, actor.domainId, row.id, version.version, version.material_wrapped);
    await record();
    return { row, algorithm, version: version.version, material: secret };
  }

  const exportKey = async function exportKey(
    actor: Actor,
    meta: RequestMeta,
    body: { id: string; version?: number | undefined; wrap_public_key?: string | undefined },
  ) {
    const row = await deps.load(actor, body.id);
    const algorithm = row.algorithm as AlgorithmId;
    const versionNo = body.version ?? row.current_version;
    const version = await findVersion(db, row.id, versionNo);
    if (!version) throw notFound('key.versionNotFound', { name: row.name, version: versionNo });
    const recordExport = async (wrapping: string) =>
      audit.byCaller(db, actor, meta, {
        action: 'key.export',
        target: row.name,
        objectId: row.id,
        details: { key_id: row.id, version: versionNo, wrapping },
      });
    const info = algorithmInfo(algorithm);
    // A public key is no secret: it exports in every state, without the exportable flag.
    if (row.object_type === 'public') {
      await recordExport('none');
      return {
        key_id: row.id,
        version: versionNo,
        algorithm,
        // Post-quantum public keys are the standard's raw bytes, not SPKI.
        format: info.pqc ? ('standard' as const) : ('spki' as const),
        wrapping: 'none' as const,
        material: version.public_key ?? '',
        wrapped_kek: null,
      };
    }
    if (row.exportable !== 1) throw stateForbids('key.notExportable', { name: row.name });
    if (!keyStateAllows('export', row.state as KeyState) || !version.material_wrapped) {
      throw stateForbids('key.noMaterial', { name: row.name });
    }
    if (!body.wrap_public_key) throw invalid('key.wrapKeyRequired');
    const wrapKey = Buffer.from(body.wrap_public_key, 'base64');
    const wrapAlgorithm = wrapAlgorithmOf(wrapKey);
    let secret = await material.open(db, actor.domainId, row.id, version.version, version.material_wrapped);
    if (algorithm === 'SM2') {
      const pkcs8 = sm2PrivateKeyToPkcs8(secret, sm2PublicKeyFromPrivate(secret));
      secret.fill(0);
      secret = pkcs8;
    }
    const format: 'raw' | 'standard' | 'pkcs8' =
      info.kind === 'symmetric' ? 'raw' : info.pqc ? 'standard' : 'pkcs8';
    const rsa = wrapAlgorithm !== 'SM2';
    const answer = { key_id: row.id, version: versionNo, algorithm, format };
    try {
      if (secret.length <= 128) {
        const wrapping = rsa ? ('RSA-OAEP-SHA256' as const) : ('SM2' as const);
        const wrapped = asymmetricEncrypt(wrapAlgorithm, wrapKey, secret);
        await recordExport(wrapping);
        return { ...answer, wrapping, material: wrapped.toString('base64'), wrapped_kek: null };
      }
      // Too long for the public key: a fresh AES-256 KEK wraps the material and the public key wraps the KEK.
      const kek = randomBytes(32);
      try {
        const wrappedMaterial = aesKeyWrapPadded(kek, secret);
        const wrappedKek = asymmetricEncrypt(wrapAlgorithm, wrapKey, kek);
        const wrapping = rsa ? ('RSA-OAEP-SHA256+AES-KWP' as const) : ('SM2+AES-KWP' as const);
        await recordExport(wrapping);
        return {
          ...answer,
          wrapping,
          material: wrappedMaterial.toString('base64'),
          wrapped_kek: wrappedKek.toString('base64'),
        };
      } finally {
        kek.fill(0);
      }
    } finally {
      secret.fill(0);
    }
  };
  return Object.assign(exportKey, { forKmip: exportForKmip });
}
