import { createPrivateKey, createPublicKey } from 'node:crypto';
import { algorithmInfo, importExpectation, importLengthMismatch, type AlgorithmId } from '@ksp/contracts';
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
 * Imported bytes checked against their algorithm (contract `key/import`, `importExpectation`):
 * the length of raw material and SM2 scalars, the key type and size of PKCS#8 DER.
 */
export function importedKey(algorithm: AlgorithmId, bytes: Buffer): GeneratedKey {
  const expectation = importExpectation(algorithm);
  if (expectation.kind === 'unsupported') throw invalid('key.importUnsupported', { algorithm });
  const mismatch = importLengthMismatch(algorithm, bytes.length);
  if (mismatch) throw invalid('key.importLength', { algorithm, ...mismatch });
  if (expectation.kind === 'sm2-scalar')
    return { algorithm, material: bytes, publicKey: publicOf('SM2', bytes) };
  if (expectation.kind !== 'pkcs8') return { algorithm, material: bytes };
  let key;
  try {
    key = createPrivateKey({ key: bytes, format: 'der', type: 'pkcs8' });
  } catch {
    throw invalid('key.importFormat', { algorithm, format: 'PKCS#8 DER' });
  }
  const info = algorithmInfo(algorithm);
  const details = key.asymmetricKeyDetails ?? {};
  const fits =
    (info.family === 'RSA' && key.asymmetricKeyType === 'rsa' && details.modulusLength === info.sizeBits) ||
    (info.family === 'EC' && key.asymmetricKeyType === 'ec' && details.namedCurve === curveOf[algorithm]) ||
    (info.family === 'ED25519' && key.asymmetricKeyType === 'ed25519');
  if (!fits) throw invalid('key.importMismatch', { algorithm });
  return { algorithm, material: bytes, publicKey: publicOf(algorithm, bytes) };
}
