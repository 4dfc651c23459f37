import { AsnConvert } from '@peculiar/asn1-schema';
import { RsaSaPssParams } from '@peculiar/asn1-rsa';
import type { AlgorithmIdentifier } from '@peculiar/asn1-x509';
import { OID, isCaAlgorithm, type KeyAlgorithm } from './signer.js';

/**
 * Which PKCS#10 requests are certified: the key must be of a CA algorithm (RSA 2048/3072/4096,
 * EC P-256/P-384/P-521, Ed25519, SM2, ML-DSA-44/65/87), and the request signed with one of
 * the signatures below for that key. Anything else is refused for what it is, before the
 * signature is checked: an unsupported key (secp256k1, brainpool, DSA...) or an unsupported
 * signature digest (SHA-1, MD5, SHA-224), never as a signature that "does not match".
 */
export type CsrRefusal =
  | { readonly reason: 'algorithm'; readonly algorithm: string }
  | { readonly reason: 'digest'; readonly signature: string };

const SHA2 = new Set<string>([OID.sha256, OID.sha384, OID.sha512]);
const RSA_PKCS1 = new Set<string>([OID.sha256WithRsa, OID.sha384WithRsa, OID.sha512WithRsa]);
const ECDSA = new Set<string>([OID.ecdsaWithSha256, OID.ecdsaWithSha384, OID.ecdsaWithSha512]);
const ML_DSA: Readonly<Record<string, string>> = {
  'ML-DSA-44': OID.mlDsa44,
  'ML-DSA-65': OID.mlDsa65,
  'ML-DSA-87': OID.mlDsa87,
};

/** Names of keys and signatures a request may come with that are refused, as OpenSSL calls them. */
const NAMES: Readonly<Record<string, string>> = {
  '1.3.132.0.10': 'secp256k1',
  '1.3.132.0.33': 'secp224r1',
  '1.2.840.10045.3.1.1': 'prime192v1',
  '1.3.36.3.3.2.8.1.1.7': 'brainpoolP256r1',
  '1.3.36.3.3.2.8.1.1.11': 'brainpoolP384r1',
  '1.3.36.3.3.2.8.1.1.13': 'brainpoolP512r1',
  '1.2.840.10040.4.1': 'DSA',
  '1.3.101.110': 'X25519',
  '1.3.101.111': 'X448',
  '1.3.101.113': 'Ed448',
  '1.2.840.113549.1.1.4': 'md5WithRSAEncryption',
  '1.2.840.113549.1.1.5': 'sha1WithRSAEncryption',
  '1.2.840.113549.1.1.14': 'sha224WithRSAEncryption',
  '1.2.840.10045.4.1': 'ecdsa-with-SHA1',
  '1.2.840.10045.4.3.1': 'ecdsa-with-SHA224',
  '1.2.840.10040.4.3': 'dsa-with-SHA1',
  '2.16.840.1.101.3.4.3.2': 'dsa-with-SHA256',
  [OID.sha1]: 'SHA-1',
};
const nameOf = (oid: string) => NAMES[oid] ?? oid;

function rsaSignatureAccepted(signature: AlgorithmIdentifier): boolean {
  if (RSA_PKCS1.has(signature.algorithm)) return true;
  if (signature.algorithm !== OID.rsaPss || !signature.parameters) return false;
  try {
    const params = AsnConvert.parse(signature.parameters, RsaSaPssParams);
    return SHA2.has(params.hashAlgorithm.algorithm);
  } catch {
    return false;
  }
}

/** The signature's name for the refusal: an RSA-PSS one names its digest. */
function signatureName(signature: AlgorithmIdentifier): string {
  if (signature.algorithm === OID.rsaPss && signature.parameters) {
    try {
      const params = AsnConvert.parse(signature.parameters, RsaSaPssParams);
      return `rsassaPss with ${nameOf(params.hashAlgorithm.algorithm)}`;
    } catch {
      return 'rsassaPss';
    }
  }
  return nameOf(signature.algorithm);
}

function signatureAccepted(algorithm: KeyAlgorithm, signature: AlgorithmIdentifier): boolean {
  if (algorithm.startsWith('RSA-')) return rsaSignatureAccepted(signature);
  if (algorithm.startsWith('EC-')) return ECDSA.has(signature.algorithm);
  if (algorithm === 'ED25519') return signature.algorithm === OID.ed25519;
  if (algorithm === 'SM2') return signature.algorithm === OID.sm2WithSm3;
  const mlDsa = ML_DSA[algorithm];
  return mlDsa !== undefined && signature.algorithm === mlDsa;
}

/** Why a request cannot be certified (before its signature is checked), or null. */
export function csrRefusal(csr: {
  readonly algorithm: KeyAlgorithm;
  readonly signatureAlgorithm: AlgorithmIdentifier;
}): CsrRefusal | null {
  if (!isCaAlgorithm(csr.algorithm)) return { reason: 'algorithm', algorithm: nameOf(csr.algorithm) };
  if (!signatureAccepted(csr.algorithm, csr.signatureAlgorithm))
    return { reason: 'digest', signature: signatureName(csr.signatureAlgorithm) };
  return null;
}
