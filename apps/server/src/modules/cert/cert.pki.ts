import { AsnConvert } from '@peculiar/asn1-schema';
import { caAlgorithms } from '@ksp/contracts';
import { Name } from '@peculiar/asn1-x509';
import { commonNameOfName } from './pki/certificate.js';
import type { OcspHash } from './pki/ocsp.js';

/**
 * The PKI engine (`pki/`) as the service uses it: one import, plus the few helpers the
 * service needs on top of it.
 */
export { PkiError } from './pki/pki-error.js';
export { isCaAlgorithm, spkiOf, describeSpki, type CaAlgorithm, type Signer } from './pki/signer.js';
export { parseName, formatName, type NameFields } from './pki/name.js';
export { parseSanList, type SanList } from './pki/san.js';
export {
  newSerial,
  buildCertificate,
  buildDescribedCertificate,
  prepareCertificate,
  finishCertificate,
  commonNameOfName,
  type PreparedCertificate,
  type PrepareCertificateInput,
  describeCertificate,
  certificateSpki,
  certificateSubject,
  verifyCertificateSignature,
  type CertificateProfile,
} from './pki/certificate.js';
export { keyIdentifierOf } from './pki/extensions.js';
export { buildCsr, parseCsr, type ParsedCsr } from './pki/csr.js';
export { csrRefusal, type CsrRefusal } from './pki/csr-policy.js';
export { buildCrl, type RevocationReason } from './pki/crl.js';
export {
  parseOcspRequest,
  buildOcspResponse,
  ocspErrorResponse,
  issuerHashes,
  type OcspCertRequest,
} from './pki/ocsp.js';
export { toPem, fromPem } from './pki/pem.js';
export { buildCertsOnlyP7b, splitCertificateBundle, orderChain } from './pki/bundle.js';
export { encryptPkcs8, buildPkcs12 } from './pki/private-key.js';
export { buildSm2EnvelopedKey } from './pki/sm2-enveloped-key.js';

/** Key algorithms a PKCS#12 file is offered for (ML-DSA keys: encrypted PKCS#8 only). */
export const PKCS12_ALGORITHMS: readonly string[] = caAlgorithms.filter((a) => !a.startsWith('ML-DSA-'));

const OCSP_HASHES: readonly string[] = ['sha1', 'sha256', 'sha384', 'sha512'];
export const isOcspHash = (name: string): name is OcspHash => OCSP_HASHES.includes(name);

/** The first common name of a Name DER as RFC 4514 prints it (the last in the DER), or null. */
export function commonNameOf(nameDer: Buffer): string | null {
  return commonNameOfName(AsnConvert.parse(nameDer, Name));
}
