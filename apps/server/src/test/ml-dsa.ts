import { createMLDSA44, createMLDSA65, createMLDSA87 } from '@oqs/liboqs-js/sig';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';

const LIBOQS = {
  'ML-DSA-44': createMLDSA44,
  'ML-DSA-65': createMLDSA65,
  'ML-DSA-87': createMLDSA87,
} as const;

/**
 * Whether `issuerDer`'s ML-DSA key signed `certDer`, checked on a path independent of KSP's:
 * the certificates parsed with the @peculiar asn1 classes, the signature verified by liboqs (the
 * Open Quantum Safe C implementation as WebAssembly), not by @noble/post-quantum that KSP signs
 * with. Debian's OpenSSL 3.0 cannot verify ML-DSA.
 */
export async function mlDsaSignedBy(
  certDer: Uint8Array,
  issuerDer: Uint8Array,
  algorithm: keyof typeof LIBOQS,
): Promise<boolean> {
  const cert = AsnConvert.parse(certDer, Certificate);
  const issuer = AsnConvert.parse(issuerDer, Certificate);
  const verifier = await LIBOQS[algorithm]();
  try {
    return verifier.verify(
      new Uint8Array(AsnConvert.serialize(cert.tbsCertificate)),
      new Uint8Array(cert.signatureValue),
      new Uint8Array(issuer.tbsCertificate.subjectPublicKeyInfo.subjectPublicKey),
    );
  } finally {
    verifier.destroy();
  }
}
