import { createPrivateKey, createPublicKey } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALGORITHM_IDS, type AlgorithmId, algorithmInfo } from '@ksp/contracts';
import {
  asymmetricDecrypt,
  asymmetricEncrypt,
  rsaOaepDecrypt,
  rsaOaepEncrypt,
  sign,
  verify,
} from './asymmetric.js';
import { type GeneratedKey, generateKey, generateKeyAsync } from './generate.js';
import { isMlKemAlgorithm, mlKemDecapsulate, mlKemEncapsulate } from './post-quantum.js';
import {
  isCipherAlgorithm,
  isMacAlgorithm,
  macGenerate,
  macVerify,
  symmetricDecrypt,
  symmetricEncrypt,
} from './symmetric.js';

const publicKeyOf = (key: GeneratedKey): Buffer => {
  if (!key.publicKey) throw new Error(`${key.algorithm} key without a public key`);
  return key.publicKey;
};

/*
 * SLH-DSA "s" sets and SHAKE-192f/256f take seconds to sign in JavaScript; their key
 * generation is pinned to NIST's answers and the others sign in slh-dsa.test.ts.
 */
const SLOW_TO_SIGN = new Set<AlgorithmId>([
  'SLH-DSA-SHA2-192S',
  'SLH-DSA-SHA2-256S',
  'SLH-DSA-SHAKE-128S',
  'SLH-DSA-SHAKE-192S',
  'SLH-DSA-SHAKE-256S',
  'SLH-DSA-SHAKE-192F',
  'SLH-DSA-SHAKE-256F',
]);

let rsa4096: GeneratedKey;
beforeAll(async () => {
  // Once per file: RSA-4096 prime generation takes seconds (and runs off the event loop here).
  rsa4096 = await generateKeyAsync('RSA-4096');
});

/** Generates a key and puts it to the use its catalogue entry allows. */
function exercise(key: GeneratedKey): void {
  const { algorithm } = key;
  const data = Buffer.from(`data for ${algorithm}`);
  const info = algorithmInfo(algorithm);
  const profiles = info.usageProfiles.map((profile) => profile.name);
  if (isCipherAlgorithm(algorithm)) {
    const sealed = symmetricEncrypt(algorithm, key.material, data);
    expect(symmetricDecrypt(algorithm, key.material, sealed)).toEqual(data);
  } else if (isMacAlgorithm(algorithm)) {
    expect(macVerify(algorithm, key.material, data, macGenerate(algorithm, key.material, data))).toBe(true);
  } else if (isMlKemAlgorithm(algorithm)) {
    const { ciphertext, sharedSecret } = mlKemEncapsulate(algorithm, publicKeyOf(key));
    expect(mlKemDecapsulate(algorithm, key.material, ciphertext)).toEqual(sharedSecret);
  } else {
    if (profiles.includes('encryption')) {
      expect(
        asymmetricDecrypt(algorithm, key.material, asymmetricEncrypt(algorithm, publicKeyOf(key), data)),
      ).toEqual(data);
    }
    if (profiles.includes('signing') && !SLOW_TO_SIGN.has(algorithm)) {
      expect(verify(algorithm, publicKeyOf(key), data, sign(algorithm, key.material, data))).toBe(true);
    }
  }
}

describe('generateKey', () => {
  const quick = ALGORITHM_IDS.filter(
    (id) =>
      id !== 'RSA-4096' && !(id.startsWith('SLH-DSA') && id.endsWith('S') && id !== 'SLH-DSA-SHA2-128S'),
  );

  it.each(quick)('%s: generates a key of the documented shape and uses it', (algorithm) => {
    const key = generateKey(algorithm);
    const info = algorithmInfo(algorithm);
    expect(key.algorithm).toBe(algorithm);
    if (info.kind === 'symmetric') {
      expect(key.material).toHaveLength(info.sizeBits / 8);
      expect(key.publicKey).toBeUndefined();
      expect(generateKey(algorithm).material.equals(key.material)).toBe(false);
    } else if (info.pqc) {
      expect(key.material).toHaveLength(info.pqc.privateKeyBytes);
      expect(key.publicKey).toHaveLength(info.pqc.publicKeyBytes);
    } else if (algorithm === 'SM2') {
      expect(key.material).toHaveLength(32);
      expect(key.publicKey).toHaveLength(91);
    } else {
      const privateKey = createPrivateKey({ key: key.material, format: 'der', type: 'pkcs8' });
      const publicKey = createPublicKey({ key: publicKeyOf(key), format: 'der', type: 'spki' });
      expect(createPublicKey(privateKey).export({ type: 'spki', format: 'der' })).toEqual(publicKeyOf(key));
      expect(publicKey.asymmetricKeyType).toBe(privateKey.asymmetricKeyType);
    }
    exercise(key);
  });

  it('RSA keys have the named modulus and exponent 65537', () => {
    for (const key of [generateKey('RSA-2048'), generateKey('RSA-3072'), rsa4096]) {
      const details = createPrivateKey({
        key: key.material,
        format: 'der',
        type: 'pkcs8',
      }).asymmetricKeyDetails;
      expect(details?.modulusLength).toBe(algorithmInfo(key.algorithm).sizeBits);
      expect(details?.publicExponent).toBe(65537n);
    }
    const secret = Buffer.from('wrapped key');
    expect(
      rsaOaepDecrypt('RSA-4096', rsa4096.material, rsaOaepEncrypt('RSA-4096', publicKeyOf(rsa4096), secret)),
    ).toEqual(secret);
    exercise(rsa4096);
  });

  it('EC keys are on the named curve and fresh each time', () => {
    const curves = {
      'EC-P256': 'prime256v1',
      'EC-P384': 'secp384r1',
      'EC-P521': 'secp521r1',
      'EC-SECP256K1': 'secp256k1',
    };
    for (const [algorithm, curve] of Object.entries(curves) as [AlgorithmId, string][]) {
      const first = generateKey(algorithm);
      const details = createPrivateKey({
        key: first.material,
        format: 'der',
        type: 'pkcs8',
      }).asymmetricKeyDetails;
      expect(details?.namedCurve).toBe(curve);
      expect(generateKey(algorithm).publicKey?.equals(publicKeyOf(first))).toBe(false);
    }
  });

  it('Ed25519 private keys are RFC 8410 PKCS#8 around a random seed', () => {
    const key = generateKey('ED25519');
    expect(key.material).toHaveLength(48);
    expect(key.material.subarray(0, 16).toString('hex')).toBe('302e020100300506032b657004220420');
    expect(publicKeyOf(key)).toHaveLength(44);
  });

  it('SM2 public keys are SPKI with id-ecPublicKey and the SM2 curve OID', () => {
    const key = generateKey('SM2');
    const spki = publicKeyOf(key);
    expect(spki.subarray(0, 26).toString('hex')).toBe('3059301306072a8648ce3d020106082a811ccf5501822d034200');
    expect(spki[26]).toBe(0x04);
    // OpenSSL reads it (as an SM2 key, whose type Node leaves undefined) and writes it back unchanged.
    const parsed = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    expect(parsed.export({ type: 'spki', format: 'der' })).toEqual(spki);
  });

  it('generateKeyAsync gives the same shapes for other algorithms', async () => {
    const key = await generateKeyAsync('ML-KEM-512');
    expect(key.material).toHaveLength(1632);
    const aes = await generateKeyAsync('AES-256');
    expect(aes.material).toHaveLength(32);
  });
});
