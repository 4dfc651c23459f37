import { constants, createPublicKey, type KeyObject, verify as nodeVerify } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier, SubjectPublicKeyInfo } from '@peculiar/asn1-x509';
import { ECParameters } from '@peculiar/asn1-ecc';
import { RSAPublicKey, RsaSaPssParams } from '@peculiar/asn1-rsa';
import { type AlgorithmId, algorithmInfo, caAlgorithms } from '@ksp/contracts';
import { sign, sm2Verify, verify } from '../../../platform/crypto/asymmetric.js';
import { SM2_POINT_BYTES, sm2PublicKeyToSpki } from '../../../platform/crypto/encoding.js';
import { PkiError } from './pki-error.js';

/**
 * The algorithms a certificate authority (and a certificate subject) may have, the
 * Signer seam the service backs with key-store keys, and every OID the engine writes
 * or reads for keys and signatures.
 */

/** The contract's list: one definition for the API and the engine. */
export const CA_ALGORITHMS = caAlgorithms;
export type CaAlgorithm = (typeof CA_ALGORITHMS)[number];

/** A CaAlgorithm, or for a key of any other kind the dotted OID of its algorithm (or curve). */
export type KeyAlgorithm = CaAlgorithm | (string & Record<never, never>);

export const isCaAlgorithm = (value: string): value is CaAlgorithm =>
  (CA_ALGORITHMS as readonly string[]).includes(value);

export interface Signer {
  readonly algorithm: CaAlgorithm;
  /** SubjectPublicKeyInfo DER of the signing key. */
  readonly spki: Buffer;
  sign(data: Buffer): Promise<Buffer>;
}

export const OID = {
  rsaEncryption: '1.2.840.113549.1.1.1',
  rsaPss: '1.2.840.113549.1.1.10',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  sha384WithRsa: '1.2.840.113549.1.1.12',
  sha512WithRsa: '1.2.840.113549.1.1.13',
  ecPublicKey: '1.2.840.10045.2.1',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  ecdsaWithSha384: '1.2.840.10045.4.3.3',
  ecdsaWithSha512: '1.2.840.10045.4.3.4',
  p256: '1.2.840.10045.3.1.7',
  p384: '1.3.132.0.34',
  p521: '1.3.132.0.35',
  sm2Curve: '1.2.156.10197.1.301',
  sm2WithSm3: '1.2.156.10197.1.501',
  ed25519: '1.3.101.112',
  mlDsa44: '2.16.840.1.101.3.4.3.17',
  mlDsa65: '2.16.840.1.101.3.4.3.18',
  mlDsa87: '2.16.840.1.101.3.4.3.19',
  sha1: '1.3.14.3.2.26',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha384: '2.16.840.1.101.3.4.2.2',
  sha512: '2.16.840.1.101.3.4.2.3',
} as const;

const ML_DSA_OID: Readonly<Record<'ML-DSA-44' | 'ML-DSA-65' | 'ML-DSA-87', string>> = {
  'ML-DSA-44': OID.mlDsa44,
  'ML-DSA-65': OID.mlDsa65,
  'ML-DSA-87': OID.mlDsa87,
};
const isMlDsa = (a: string): a is 'ML-DSA-44' | 'ML-DSA-65' | 'ML-DSA-87' => a in ML_DSA_OID;

const EC_CURVE_OF: Readonly<Record<string, CaAlgorithm>> = {
  [OID.p256]: 'EC-P256',
  [OID.p384]: 'EC-P384',
  [OID.p521]: 'EC-P521',
  [OID.sm2Curve]: 'SM2',
};

/** The signature AlgorithmIdentifier an issuer of `algorithm` writes (RSA: PKCS#1 v1.5 SHA-256). */
export function signatureAlgorithmOf(algorithm: CaAlgorithm): AlgorithmIdentifier {
  switch (algorithm) {
    case 'RSA-2048':
    case 'RSA-3072':
    case 'RSA-4096':
      return new AlgorithmIdentifier({ algorithm: OID.sha256WithRsa, parameters: null });
    case 'EC-P256':
      return new AlgorithmIdentifier({ algorithm: OID.ecdsaWithSha256 });
    case 'EC-P384':
      return new AlgorithmIdentifier({ algorithm: OID.ecdsaWithSha384 });
    case 'EC-P521':
      return new AlgorithmIdentifier({ algorithm: OID.ecdsaWithSha512 });
    case 'ED25519':
      return new AlgorithmIdentifier({ algorithm: OID.ed25519 });
    case 'SM2':
      return new AlgorithmIdentifier({ algorithm: OID.sm2WithSm3 });
    default:
      return new AlgorithmIdentifier({ algorithm: ML_DSA_OID[algorithm] });
  }
}

/** A key-store public key as SubjectPublicKeyInfo DER (ML-DSA raw bytes and SM2 points are wrapped). */
export function spkiOf(algorithm: AlgorithmId, storedPublicKey: Buffer): Buffer {
  if (isMlDsa(algorithm)) {
    return Buffer.from(
      AsnConvert.serialize(
        new SubjectPublicKeyInfo({
          algorithm: new AlgorithmIdentifier({ algorithm: ML_DSA_OID[algorithm] }),
          subjectPublicKey: new Uint8Array(storedPublicKey).buffer,
        }),
      ),
    );
  }
  if (algorithm === 'SM2' && storedPublicKey.length === SM2_POINT_BYTES) {
    return sm2PublicKeyToSpki(storedPublicKey);
  }
  if (!isCaAlgorithm(algorithm)) {
    throw new PkiError('unsupported', `${algorithm} keys cannot be certified`, { algorithm });
  }
  const found = describeSpki(storedPublicKey);
  if (found.algorithm !== algorithm) {
    throw new PkiError('invalid-input', `The public key is not an ${algorithm} key`, { algorithm });
  }
  return storedPublicKey;
}

/** A Signer over a key's stored private material (platform/crypto `sign`; RSA PKCS#1 v1.5 SHA-256). */
export function signerFromMaterial(
  algorithm: CaAlgorithm,
  material: Buffer,
  storedPublicKey: Buffer,
): Signer {
  const spki = spkiOf(algorithm, storedPublicKey);
  return {
    algorithm,
    spki,
    sign: (data: Buffer) => Promise.resolve(sign(algorithm, material, data, { rsaScheme: 'PKCS1-v1_5' })),
  };
}

export interface SpkiInfo {
  /** The CaAlgorithm of the key, or the key algorithm's OID when it is none of them. */
  readonly algorithm: KeyAlgorithm;
  readonly keyBits: number;
  /** The subjectPublicKey bits (an RSAPublicKey, an EC point, raw Ed25519/ML-DSA bytes). */
  readonly publicKeyBits: Buffer;
}

function parseSpki(spki: Buffer): SubjectPublicKeyInfo {
  try {
    return AsnConvert.parse(spki, SubjectPublicKeyInfo);
  } catch {
    throw new PkiError('invalid-input', 'The public key is not SubjectPublicKeyInfo DER');
  }
}

export function describeSpki(spki: Buffer): SpkiInfo {
  try {
    return describeParsedSpki(parseSpki(spki));
  } catch (error) {
    if (error instanceof PkiError) throw error;
    throw new PkiError('invalid-input', 'The public key is malformed');
  }
}

function describeParsedSpki(info: SubjectPublicKeyInfo): SpkiInfo {
  const publicKeyBits = Buffer.from(info.subjectPublicKey);
  const oid = info.algorithm.algorithm;
  if (oid === OID.rsaEncryption) {
    const key = AsnConvert.parse(publicKeyBits, RSAPublicKey);
    const modulus = Buffer.from(key.modulus);
    const start = modulus.findIndex((b) => b !== 0);
    const keyBits = start < 0 ? 0 : (modulus.length - start) * 8 - Math.clz32(modulus[start] ?? 0) + 24;
    const algorithm = `RSA-${keyBits}`;
    return { algorithm: isCaAlgorithm(algorithm) ? algorithm : oid, keyBits, publicKeyBits };
  }
  if (oid === OID.ecPublicKey && info.algorithm.parameters) {
    const curve = AsnConvert.parse(info.algorithm.parameters, ECParameters).namedCurve ?? '';
    const algorithm = EC_CURVE_OF[curve];
    if (!algorithm)
      return { algorithm: curve || oid, keyBits: (publicKeyBits.length - 1) * 4, publicKeyBits };
    return { algorithm, keyBits: algorithmInfo(algorithm).sizeBits, publicKeyBits };
  }
  if (oid === OID.ed25519) return { algorithm: 'ED25519', keyBits: 256, publicKeyBits };
  const mlDsa = (Object.keys(ML_DSA_OID) as (keyof typeof ML_DSA_OID)[]).find((a) => ML_DSA_OID[a] === oid);
  if (mlDsa) return { algorithm: mlDsa, keyBits: algorithmInfo(mlDsa).sizeBits, publicKeyBits };
  return { algorithm: oid, keyBits: publicKeyBits.length * 8, publicKeyBits };
}

const SIGNATURE_NAMES: Readonly<Record<string, string>> = {
  [OID.sha256WithRsa]: 'sha256WithRSAEncryption',
  [OID.sha384WithRsa]: 'sha384WithRSAEncryption',
  [OID.sha512WithRsa]: 'sha512WithRSAEncryption',
  [OID.rsaPss]: 'rsassaPss',
  [OID.ecdsaWithSha256]: 'ecdsa-with-SHA256',
  [OID.ecdsaWithSha384]: 'ecdsa-with-SHA384',
  [OID.ecdsaWithSha512]: 'ecdsa-with-SHA512',
  [OID.ed25519]: 'Ed25519',
  [OID.sm2WithSm3]: 'SM2-with-SM3',
  [OID.mlDsa44]: 'ML-DSA-44',
  [OID.mlDsa65]: 'ML-DSA-65',
  [OID.mlDsa87]: 'ML-DSA-87',
};

/** A readable name of a signature algorithm OID (the OID itself when unknown). */
export const signatureAlgorithmName = (oid: string): string => SIGNATURE_NAMES[oid] ?? oid;

const JWK_CURVE: Readonly<Partial<Record<string, { crv: string; bytes: number }>>> = {
  'EC-P256': { crv: 'P-256', bytes: 32 },
  'EC-P384': { crv: 'P-384', bytes: 48 },
  'EC-P521': { crv: 'P-521', bytes: 66 },
};

const unsigned = (n: Uint8Array) => {
  const start = n.findIndex((b) => b !== 0);
  return Buffer.from(start < 0 ? n.subarray(n.length - 1) : n.subarray(start));
};

/**
 * The public key as a key object. OpenSSL 3 decodes DER through its generic decoder chain,
 * which costs far more than the verification itself (RSA and Ed25519 about 12–15 times more
 * than building the key from its numbers, an uncompressed EC point about 1.5 times): keys whose
 * numbers the SPKI already gave are built from them (as a JWK), the rest from the DER.
 */
function publicKeyObject(spki: Buffer, key: SpkiInfo): KeyObject {
  const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64url');
  if (key.algorithm === 'ED25519' && key.publicKeyBits.length === 32) {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64(key.publicKeyBits) }, format: 'jwk' });
  }
  if (key.algorithm.startsWith('RSA-') || key.algorithm === OID.rsaEncryption) {
    const rsa = AsnConvert.parse(key.publicKeyBits, RSAPublicKey);
    return createPublicKey({
      key: {
        kty: 'RSA',
        n: b64(unsigned(new Uint8Array(rsa.modulus))),
        e: b64(unsigned(new Uint8Array(rsa.publicExponent))),
      },
      format: 'jwk',
    });
  }
  const curve = JWK_CURVE[key.algorithm];
  const point = key.publicKeyBits;
  if (curve && point.length === 1 + 2 * curve.bytes && point[0] === 4) {
    return createPublicKey({
      key: {
        kty: 'EC',
        crv: curve.crv,
        x: b64(point.subarray(1, 1 + curve.bytes)),
        y: b64(point.subarray(1 + curve.bytes)),
      },
      format: 'jwk',
    });
  }
  return createPublicKey({ key: spki, format: 'der', type: 'spki' });
}

const HASH_OF: Readonly<Record<string, string>> = {
  [OID.sha256WithRsa]: 'sha256',
  [OID.sha384WithRsa]: 'sha384',
  [OID.sha512WithRsa]: 'sha512',
  [OID.ecdsaWithSha256]: 'sha256',
  [OID.ecdsaWithSha384]: 'sha384',
  [OID.ecdsaWithSha512]: 'sha512',
};
const DIGEST_OID_NAME: Readonly<Record<string, string>> = {
  [OID.sha256]: 'sha256',
  [OID.sha384]: 'sha384',
  [OID.sha512]: 'sha512',
};

export interface VerifyOptions {
  /** SM2: retry with the empty distinguishing ID OpenSSL 3.0 signs with when the GM/T default fails. */
  readonly sm2EmptyIdFallback?: boolean;
  /** What `describeSpki(spki)` answers, when the caller has it already. */
  readonly key?: SpkiInfo;
}

/**
 * Checks `signature` over `data` by the signature AlgorithmIdentifier of a certificate,
 * CRL or CSR and the signer's SubjectPublicKeyInfo. RSA (PKCS#1 v1.5 SHA-2, PSS),
 * ECDSA (SHA-2) and Ed25519 verify in node:crypto; SM2 (SM3, GM/T 0009 ID) and ML-DSA
 * (pure, empty context) through platform/crypto. Unknown combinations give false.
 */
export function verifySignature(
  signatureAlgorithm: AlgorithmIdentifier,
  spki: Buffer,
  data: Buffer,
  signature: Buffer,
  options: VerifyOptions = {},
): boolean {
  const oid = signatureAlgorithm.algorithm;
  try {
    const key = options.key ?? describeSpki(spki);
    if (key.algorithm === 'SM2') {
      if (oid !== OID.sm2WithSm3) return false;
      if (sm2Verify(spki, data, signature)) return true;
      return options.sm2EmptyIdFallback === true && sm2Verify(spki, data, signature, { userId: '' });
    }
    if (isMlDsa(key.algorithm)) {
      if (oid !== ML_DSA_OID[key.algorithm]) return false;
      return verify(key.algorithm, key.publicKeyBits, data, signature);
    }
    const publicKey = publicKeyObject(spki, key);
    const rsa = key.algorithm.startsWith('RSA-') || key.algorithm === OID.rsaEncryption;
    const ec = key.algorithm.startsWith('EC-');
    if (key.algorithm === 'ED25519') {
      return oid === OID.ed25519 && nodeVerify(null, data, publicKey, signature);
    }
    const hash = HASH_OF[oid];
    if (rsa && hash && oid.startsWith('1.2.840.113549')) {
      return nodeVerify(hash, data, { key: publicKey, padding: constants.RSA_PKCS1_PADDING }, signature);
    }
    if (rsa && oid === OID.rsaPss && signatureAlgorithm.parameters) {
      const params = AsnConvert.parse(signatureAlgorithm.parameters, RsaSaPssParams);
      const pssHash = DIGEST_OID_NAME[params.hashAlgorithm.algorithm];
      if (!pssHash) return false;
      return nodeVerify(
        pssHash,
        data,
        { key: publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: params.saltLength },
        signature,
      );
    }
    if (ec && hash && oid.startsWith('1.2.840.10045')) {
      return nodeVerify(hash, data, { key: publicKey, dsaEncoding: 'der' }, signature);
    }
    return false;
  } catch {
    return false;
  }
}
