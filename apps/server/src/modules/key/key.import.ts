import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import {
  algorithmInfo,
  importExpectation,
  importFormats,
  importLengthMismatch,
  PUBLIC_KEY_USAGE,
  describeUsage,
  type AlgorithmId,
  type ImportFormat,
} from '@ksp/contracts';
import { sm2CheckedPublicKey, sm2PublicKeyFromPrivate } from '../../platform/crypto/asymmetric.js';
import { CryptoError } from '../../platform/crypto/crypto-error.js';
import { pemToDer, sm2PublicKeyFromSpki, sm2PublicKeyToSpki } from '../../platform/crypto/encoding.js';
import type { PqcImported } from '../../platform/crypto/worker-pool.js';
import { invalid } from '../../platform/errors.js';

/** The public key bytes of a private material, for the formats generate.ts produces. */
export function publicOf(algorithm: AlgorithmId, material: Buffer): Buffer {
  if (algorithm === 'SM2') return sm2PublicKeyToSpki(sm2PublicKeyFromPrivate(material));
  return createPublicKey(createPrivateKey({ key: material, format: 'der', type: 'pkcs8' })).export({
    type: 'spki',
    format: 'der',
  });
}

/** The named curve node:crypto reports for each EC algorithm. */
const curveOf: Partial<Record<AlgorithmId, string>> = {
  'EC-P256': 'prime256v1',
  'EC-P384': 'secp384r1',
  'EC-P521': 'secp521r1',
  'EC-SECP256K1': 'secp256k1',
};

/**
 * An imported key, as stored: `material` (the secret, in generate.ts's encodings) for a
 * symmetric or private key, `publicKey` for a pair's public half or a public key alone.
 */
export interface ImportedKey {
  readonly algorithm: AlgorithmId;
  readonly format: ImportFormat;
  readonly material?: Buffer;
  readonly publicKey?: Buffer;
}

/** Refuses a public key's usage mask with bits that need the private key (sign, decrypt, unwrap...). */
export function checkPublicUsage(mask: number): void {
  const refused = (mask & ~PUBLIC_KEY_USAGE) >>> 0;
  if (refused !== 0) throw invalid('key.importPublicUsage', { refused: describeUsage(refused).join(', ') });
}

/** Whether a parsed node:crypto key is a key of `algorithm` (RSA size, EC curve, Ed25519, SM2). */
function fits(algorithm: AlgorithmId, key: KeyObject): boolean {
  const info = algorithmInfo(algorithm);
  const details = key.asymmetricKeyDetails ?? {};
  return (
    (info.family === 'RSA' && key.asymmetricKeyType === 'rsa' && details.modulusLength === info.sizeBits) ||
    (info.family === 'EC' && key.asymmetricKeyType === 'ec' && details.namedCurve === curveOf[algorithm]) ||
    (info.family === 'ED25519' && key.asymmetricKeyType === 'ed25519')
  );
}

function fromPkcs8(algorithm: AlgorithmId, der: Buffer, format: ImportFormat): ImportedKey {
  if (algorithm === 'SM2') throw invalid('key.importFormat', { algorithm, format: 'PEM' });
  let key;
  try {
    key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } catch {
    throw invalid('key.importFormat', { algorithm, format: 'PKCS#8 DER' });
  }
  if (!fits(algorithm, key)) throw invalid('key.importMismatch', { algorithm });
  return { algorithm, format, material: der, publicKey: publicOf(algorithm, der) };
}

/** A public key alone, stored as SPKI DER re-encoded by OpenSSL. */
function fromSpki(algorithm: AlgorithmId, key: KeyObject, format: ImportFormat): ImportedKey {
  if (!fits(algorithm, key)) throw invalid('key.importMismatch', { algorithm });
  return { algorithm, format, publicKey: key.export({ type: 'spki', format: 'der' }) };
}

/**
 * An SM2 public key: Node 20 does not read SM2 SubjectPublicKeyInfo (OpenSSL 3 gives it a key
 * type Node does not know), so the point is taken from the DER and checked to be on the curve.
 */
function fromSm2Spki(der: Buffer, format: ImportFormat): ImportedKey {
  try {
    return { algorithm: 'SM2', format, publicKey: sm2CheckedPublicKey(sm2PublicKeyFromSpki(der)) };
  } catch {
    throw invalid('key.importPublicFormat', { algorithm: 'SM2', format: 'SPKI' });
  }
}

function fromPem(algorithm: AlgorithmId, text: string): ImportedKey {
  // One key per import: a file with a public and a private block (or two keys) is refused
  // rather than read in part.
  const blocks = text.match(/-----BEGIN [A-Z0-9 ]+-----/g)?.length ?? 0;
  if (blocks > 1) throw invalid('key.importPemBlocks', { blocks });
  // node:crypto reads PKCS#8, PKCS#1 and SEC 1 private keys and SPKI and PKCS#1 public keys;
  // an encrypted private key (no passphrase here) is refused as unreadable.
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) {
    let der;
    try {
      der = createPrivateKey({ key: text, format: 'pem' }).export({ type: 'pkcs8', format: 'der' });
    } catch {
      throw invalid('key.importFormat', { algorithm, format: 'PEM' });
    }
    return fromPkcs8(algorithm, der, 'pem');
  }
  if (!/-----BEGIN [A-Z ]*PUBLIC KEY-----/.test(text)) throw invalid('key.importPem');
  if (algorithm === 'SM2') {
    let der;
    try {
      der = pemToDer(text, 'PUBLIC KEY');
    } catch {
      throw invalid('key.importPublicFormat', { algorithm, format: 'PEM' });
    }
    return fromSm2Spki(der, 'pem');
  }
  let key;
  try {
    key = createPublicKey({ key: text, format: 'pem' });
  } catch {
    throw invalid('key.importPublicFormat', { algorithm, format: 'PEM' });
  }
  return fromSpki(algorithm, key, 'pem');
}

/**
 * The key of a `key/import` body, checked against its algorithm and format (contract
 * `importExpectation`): lengths of raw material, SM2 scalars and post-quantum encodings, the
 * key type and size of DER and PEM, and for post-quantum keys the standards' consistency checks
 * (run by `derivePqc`, in a worker thread when the server has them). `publicKey`, when given,
 * must equal the public key a post-quantum private key yields.
 */
export async function importedKey(
  algorithm: AlgorithmId,
  requested: ImportFormat | undefined,
  content: string,
  derivePqc: (format: 'seed' | 'expanded' | 'public', bytes: Buffer) => Promise<PqcImported>,
  publicKey?: string,
): Promise<ImportedKey> {
  const info = algorithmInfo(algorithm);
  const formats = importFormats(algorithm).join(', ');
  if (requested === undefined && info.pqc) throw invalid('key.importFormatRequired', { algorithm, formats });
  const format = requested ?? importFormats(algorithm)[0]!;
  if (importExpectation(algorithm, format).kind === 'unsupported')
    throw invalid('key.importFormatUnsupported', { algorithm, format, formats });
  const pqcPrivate = format === 'seed' || format === 'expanded';
  if (publicKey !== undefined && !pqcPrivate) throw invalid('key.importPublicKeyUnused');
  if (format === 'pem') return fromPem(algorithm, content);
  const bytes = Buffer.from(content, 'base64');
  const mismatch = importLengthMismatch(algorithm, bytes.length, format);
  if (mismatch) throw invalid('key.importLength', { algorithm, ...mismatch });
  switch (format) {
    case 'raw':
      return { algorithm, format, material: bytes };
    case 'sm2-scalar':
      try {
        return { algorithm, format, material: bytes, publicKey: publicOf('SM2', bytes) };
      } catch {
        throw invalid('key.importFormat', { algorithm, format: 'SM2 scalar (1 ≤ d ≤ n − 2)' });
      }
    case 'pkcs8':
      return fromPkcs8(algorithm, bytes, format);
    case 'spki': {
      if (algorithm === 'SM2') return fromSm2Spki(bytes, format);
      let key;
      try {
        key = createPublicKey({ key: bytes, format: 'der', type: 'spki' });
      } catch {
        throw invalid('key.importPublicFormat', { algorithm, format: 'SPKI DER' });
      }
      return fromSpki(algorithm, key, format);
    }
    default: {
      let derived: PqcImported;
      try {
        derived = await derivePqc(format, bytes);
      } catch (err) {
        if (err instanceof CryptoError)
          throw invalid('key.importInconsistent', { algorithm, reason: err.message });
        throw err;
      } finally {
        bytes.fill(0);
      }
      if (publicKey !== undefined && !Buffer.from(publicKey, 'base64').equals(derived.publicKey)) {
        derived.secretKey?.fill(0);
        throw invalid('key.importPublicMismatch');
      }
      return {
        algorithm,
        format,
        ...(derived.secretKey ? { material: derived.secretKey } : {}),
        publicKey: derived.publicKey,
      };
    }
  }
}
