import { createPrivateKey, createPublicKey } from 'node:crypto';
import { algorithmInfo, type AlgorithmId } from '@ksp/contracts';
import { sm2PublicKeyFromPrivate } from '../../platform/crypto/asymmetric.js';
import { sm2PublicKeyToSpki } from '../../platform/crypto/encoding.js';
import type { GeneratedKey } from '../../platform/crypto/generate.js';
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
 * Imported bytes checked against their algorithm (contract `key/import`): raw material of
 * the algorithm's length for symmetric keys, the 32-byte scalar for SM2, PKCS#8 DER of the
 * same key type and size for RSA, EC and Ed25519. Post-quantum keys are not imported.
 */
export function importedKey(algorithm: AlgorithmId, bytes: Buffer): GeneratedKey {
  const info = algorithmInfo(algorithm);
  if (info.kind === 'symmetric') {
    const expected = info.sizeBits / 8;
    const hmac = info.family === 'HMAC';
    if (hmac ? bytes.length < 16 || bytes.length > 128 : bytes.length !== expected) {
      throw invalid('key.importLength', {
        algorithm,
        expected: hmac ? '16–128' : expected,
        got: bytes.length,
      });
    }
    return { algorithm, material: bytes };
  }
  if (algorithm === 'SM2') {
    if (bytes.length !== 32)
      throw invalid('key.importLength', { algorithm: 'SM2', expected: 32, got: bytes.length });
    return { algorithm, material: bytes, publicKey: publicOf('SM2', bytes) };
  }
  if (info.family !== 'RSA' && info.family !== 'EC' && info.family !== 'ED25519') {
    throw invalid('key.importUnsupported', { algorithm });
  }
  let key;
  try {
    key = createPrivateKey({ key: bytes, format: 'der', type: 'pkcs8' });
  } catch {
    throw invalid('key.importFormat', { algorithm, format: 'PKCS#8 DER' });
  }
  const details = key.asymmetricKeyDetails ?? {};
  const fits =
    (info.family === 'RSA' && key.asymmetricKeyType === 'rsa' && details.modulusLength === info.sizeBits) ||
    (info.family === 'EC' && key.asymmetricKeyType === 'ec' && details.namedCurve === curveOf[algorithm]) ||
    (info.family === 'ED25519' && key.asymmetricKeyType === 'ed25519');
  if (!fits) throw invalid('key.importMismatch', { algorithm });
  return { algorithm, material: bytes, publicKey: publicOf(algorithm, bytes) };
}
