import { createHash } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import type { AlgorithmIdentifier, Extension } from '@peculiar/asn1-x509';
import {
  Certificate,
  Extensions,
  KeyUsageFlags,
  Name,
  Validity,
  Version,
  id_kp_clientAuth,
  id_kp_serverAuth,
} from '@peculiar/asn1-x509';
import { randomBytes } from '../../../platform/crypto/random.js';
import {
  bitString,
  children,
  integer,
  readTlv,
  sequence,
  signedParts,
  tlv,
  unsignedIntegerContent,
} from './der.js';
import {
  EKU_NAMES,
  KEY_USAGE_NAMES,
  type Purpose,
  type Usage,
  authorityInfoAccessExtension,
  authorityKeyIdentifierExtension,
  basicConstraintsExtension,
  crlDistributionPointsExtension,
  describeExtensions,
  extendedKeyUsageExtension,
  keyIdentifierOf,
  keyUsageExtension,
  keyUsageFor,
  sanExtension,
  subjectKeyIdentifierExtension,
} from './extensions.js';
import { formatNameStructure } from './name.js';
import { PkiError } from './pki-error.js';
import { type SanList, sanFromExtensionValue } from './san.js';
import {
  type KeyAlgorithm,
  type Signer,
  type SpkiInfo,
  type VerifyOptions,
  describeSpki,
  signatureAlgorithmName,
  signatureAlgorithmOf,
  verifySignature,
} from './signer.js';

/**
 * A fresh certificate serial: 16 random bytes, top bit clear (positive) and the next bit
 * set, so the DER INTEGER is always exactly 16 octets (126 random bits; RFC 5280 asks ≥ 64).
 */
export function newSerial(): Buffer {
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x3f) | 0x40;
  return serial;
}

/** A serial given as bytes or hex, as minimal positive INTEGER content (RFC 5280: ≤ 20 octets). */
export function serialContent(serial: Buffer | string): Buffer {
  const bytes =
    typeof serial === 'string'
      ? /^(?:[0-9a-fA-F]{2})+$/.test(serial.replace(/:/g, ''))
        ? Buffer.from(serial.replace(/:/g, ''), 'hex')
        : null
      : serial;
  if (!bytes || bytes.length === 0) throw new PkiError('invalid-input', 'A serial is hex or bytes');
  const content = unsignedIntegerContent(bytes);
  if (content.length > 20 || content.every((b) => b === 0)) {
    throw new PkiError('invalid-input', 'A serial is a positive integer of at most 20 octets');
  }
  return content;
}

/**
 * Uppercase hex of a serial given as its DER INTEGER content, as `openssl x509 -serial` prints it:
 * the value's octets, without the zero octet DER puts before a value whose top bit is set.
 */
export function serialHex(content: ArrayBuffer | Buffer): string {
  const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content);
  const value =
    bytes.length > 1 && bytes[0] === 0 && ((bytes[1] ?? 0) & 0x80) !== 0 ? bytes.subarray(1) : bytes;
  return value.toString('hex').toUpperCase();
}

export type CertificateProfile =
  | {
      readonly kind: 'ca';
      /** basicConstraints pathLenConstraint; absent = unlimited. */
      readonly pathLen?: number;
    }
  | {
      readonly kind: 'end-entity';
      readonly purpose: Purpose;
      readonly usage: Usage;
      readonly san?: SanList;
    };

export interface BuildCertificateInput {
  readonly serial: Buffer;
  /** Name DER of the issuer (the issuing CA certificate's subject, verbatim). */
  readonly issuerName: Buffer;
  readonly subjectName: Buffer;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly subjectSpki: Buffer;
  readonly signer: Signer;
  readonly profile: CertificateProfile;
  /** The issuer certificate's SKI for the AKI; default SHA-1 of the signer's key bits. */
  readonly issuerSki?: Buffer;
  readonly crlUrl?: string;
  readonly ocspUrl?: string;
}

const wholeSeconds = (date: Date): Date => new Date(Math.floor(date.getTime() / 1000) * 1000);

function parseName(der: Buffer, what: string): Name {
  try {
    return AsnConvert.parse(der, Name);
  } catch {
    throw new PkiError('invalid-name', `The ${what} is not Name DER`);
  }
}

/** Serializes `tbs`, signs the bytes and assembles `SEQUENCE { tbs, algorithm, BIT STRING signature }`. */
export async function signStructure(
  tbs: Buffer,
  algorithm: AlgorithmIdentifier,
  signer: Signer,
): Promise<Buffer> {
  const signature = await signer.sign(tbs);
  return sequence(tbs, Buffer.from(AsnConvert.serialize(algorithm)), bitString(signature));
}

export async function buildCertificate(input: BuildCertificateInput): Promise<Buffer> {
  return (await buildDescribedCertificate(input)).der;
}

/** What preparing a certificate needs: everything but the issuer's private key. */
export type PrepareCertificateInput = Omit<BuildCertificateInput, 'signer'> & {
  readonly signer: Pick<Signer, 'algorithm' | 'spki'>;
  /**
   * What the caller read already, so it is not read again: the subject Name and key of the
   * same DER (as `parseCsr` answers them), the issuer's RFC 4514 text.
   */
  readonly known?: {
    readonly subject?: Name;
    readonly subjectKey?: SpkiInfo;
    readonly issuer?: string;
  };
};

/**
 * A certificate ready to be signed: its to-be-signed DER, the signature algorithm, and its
 * description but for the fingerprint (it covers the signature). Made without any private key:
 * the issuer's signature over `tbs` completes it (`finishCertificate`).
 */
export interface PreparedCertificate {
  readonly tbs: Buffer;
  /** The signature AlgorithmIdentifier DER (in the TBS and after it). */
  readonly signatureAlgorithm: Buffer;
  readonly description: Omit<CertificateDescription, 'fingerprint_sha256'>;
  /** The subject's common name as `commonNameOf` answers it, from the same parse. */
  readonly subjectCn: string | null;
}

/**
 * Builds and signs a certificate, and describes it from what went in: the same description
 * `describeCertificate` reads from the DER (a test holds them equal), without parsing back what
 * was just written, which costs about as much as the build.
 */
export async function buildDescribedCertificate(
  input: BuildCertificateInput,
): Promise<{ der: Buffer; description: CertificateDescription }> {
  const prepared = prepareCertificate(input);
  return finishCertificate(prepared, await input.signer.sign(prepared.tbs));
}

/** The signed certificate: `SEQUENCE { tbs, algorithm, BIT STRING signature }`, and its description. */
export function finishCertificate(
  prepared: PreparedCertificate,
  signature: Buffer,
): { der: Buffer; description: CertificateDescription } {
  const der = sequence(prepared.tbs, prepared.signatureAlgorithm, bitString(signature));
  return {
    der,
    description: {
      ...prepared.description,
      fingerprint_sha256: hexColons(createHash('sha256').update(der).digest()),
    },
  };
}

/** Everything of a certificate but its signature (see `PreparedCertificate`). */
export function prepareCertificate(input: PrepareCertificateInput): PreparedCertificate {
  const notBefore = wholeSeconds(input.notBefore);
  const notAfter = wholeSeconds(input.notAfter);
  if (!(notAfter.getTime() > notBefore.getTime())) {
    throw new PkiError('invalid-input', 'notAfter must be later than notBefore');
  }
  const { known } = input;
  const subject = known?.subject ?? parseName(input.subjectName, 'subject');
  const issuerText = known?.issuer ?? formatNameStructure(parseName(input.issuerName, 'issuer name'));
  const subjectKey = known?.subjectKey ?? describeSpki(input.subjectSpki);
  // keyIdentifierOf, without reading the key a second time.
  const ski = createHash('sha1').update(subjectKey.publicKeyBits).digest();
  const aki = input.issuerSki ?? keyIdentifierOf(input.signer.spki);
  const extensions: Extension[] = [];
  const { profile } = input;
  let keyUsage: number;
  let extKeyUsage: string[] = [];
  let san: SanList = { dns: [], ips: [], emails: [] };
  if (profile.kind === 'ca') {
    if (profile.pathLen !== undefined && (!Number.isInteger(profile.pathLen) || profile.pathLen < 0)) {
      throw new PkiError('invalid-input', 'pathLen is a non-negative integer');
    }
    keyUsage = KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign | KeyUsageFlags.digitalSignature;
    extensions.push(basicConstraintsExtension(true, profile.pathLen), keyUsageExtension(keyUsage));
  } else {
    keyUsage = keyUsageFor(subjectKey.algorithm, profile.usage);
    extKeyUsage = [profile.purpose === 'server' ? id_kp_serverAuth : id_kp_clientAuth];
    extensions.push(
      basicConstraintsExtension(false),
      keyUsageExtension(keyUsage),
      extendedKeyUsageExtension(extKeyUsage),
    );
    const sanExt = profile.san ? sanExtension(profile.san, subject.length === 0) : null;
    if (sanExt) {
      extensions.push(sanExt);
      san = sanFromExtensionValue(sanExt.extnValue.buffer);
    }
  }
  extensions.push(subjectKeyIdentifierExtension(ski), authorityKeyIdentifierExtension(aki));
  if (input.crlUrl) extensions.push(crlDistributionPointsExtension(input.crlUrl));
  if (input.ocspUrl) extensions.push(authorityInfoAccessExtension(input.ocspUrl));
  const signatureAlgorithm = signatureAlgorithmOf(input.signer.algorithm);
  const algorithmDer = Buffer.from(AsnConvert.serialize(signatureAlgorithm));
  const serial = serialContent(input.serial);
  // The issuer, subject and key go in as given (verbatim DER), so an issuer name always
  // matches the issuing certificate's subject byte for byte; the rest is serialized here.
  const tbs = sequence(
    tlv(0xa0, integer(Buffer.from([Version.v3]))),
    integer(serial),
    algorithmDer,
    wholeDer(input.issuerName, 'issuer name'),
    Buffer.from(AsnConvert.serialize(new Validity({ notBefore, notAfter }))),
    wholeDer(input.subjectName, 'subject'),
    wholeDer(input.subjectSpki, 'subject public key'),
    tlv(0xa3, Buffer.from(AsnConvert.serialize(new Extensions(extensions)))),
  );
  return {
    tbs,
    signatureAlgorithm: algorithmDer,
    subjectCn: commonNameOfName(subject),
    description: {
      subject: formatNameStructure(subject),
      issuer: issuerText,
      serial: serialHex(serial),
      not_before: notBefore.toISOString(),
      not_after: notAfter.toISOString(),
      algorithm: subjectKey.algorithm,
      key_bits: subjectKey.keyBits,
      is_ca: profile.kind === 'ca',
      path_len: profile.kind === 'ca' ? (profile.pathLen ?? null) : null,
      key_usage: KEY_USAGE_NAMES.filter(([flag]) => keyUsage & flag).map(([, name]) => name),
      ext_key_usage: extKeyUsage.map((oid) => EKU_NAMES[oid] ?? oid),
      san,
      ski: ski.toString('hex'),
      aki: aki.toString('hex'),
      crl_urls: input.crlUrl ? [input.crlUrl] : [],
      ocsp_urls: input.ocspUrl ? [input.ocspUrl] : [],
      signature_algorithm: signatureAlgorithmName(signatureAlgorithm.algorithm),
    },
  };
}

const COMMON_NAME = '2.5.4.3';

/** The first common name of a Name as RFC 4514 prints it (the last in the DER), or null. */
export function commonNameOfName(name: Name): string | null {
  for (const rdn of [...name].reverse())
    for (const attribute of rdn) {
      if (attribute.type !== COMMON_NAME) continue;
      const v = attribute.value;
      return v.utf8String ?? v.printableString ?? v.ia5String ?? v.bmpString ?? null;
    }
  return null;
}

/** `der` when it is exactly one TLV (the parse above checked its structure). */
function wholeDer(der: Buffer, what: string): Buffer {
  try {
    if (readTlv(der, 0, what).end === der.length) return der;
  } catch {
    // reported below
  }
  throw new PkiError(
    what === 'subject public key' ? 'invalid-input' : 'invalid-name',
    `The ${what} is not one DER value`,
  );
}

export interface CertificateDescription {
  readonly subject: string;
  readonly issuer: string;
  readonly serial: string;
  readonly not_before: string;
  readonly not_after: string;
  /** SHA-256 of the DER, uppercase hex pairs joined by ':' (as `openssl x509 -fingerprint -sha256`). */
  readonly fingerprint_sha256: string;
  readonly algorithm: KeyAlgorithm;
  readonly key_bits: number;
  readonly is_ca: boolean;
  readonly path_len: number | null;
  readonly key_usage: string[];
  readonly ext_key_usage: string[];
  readonly san: SanList;
  readonly ski: string | null;
  readonly aki: string | null;
  readonly crl_urls: string[];
  readonly ocsp_urls: string[];
  readonly signature_algorithm: string;
}

export function parseCertificate(der: Buffer): Certificate {
  try {
    return AsnConvert.parse(der, Certificate);
  } catch {
    throw new PkiError('invalid-certificate', 'Not an X.509 certificate (DER)');
  }
}

export const hexColons = (bytes: Buffer): string =>
  (bytes.toString('hex').toUpperCase().match(/../g) ?? []).join(':');

/** What the console shows of a certificate; reads every algorithm (ML-DSA included) with the asn1 classes. */
export function describeCertificate(der: Buffer): CertificateDescription {
  const certificate = parseCertificate(der);
  try {
    return describeParsed(der, certificate);
  } catch (error) {
    if (error instanceof PkiError) throw error;
    throw new PkiError('invalid-certificate', 'The certificate has a malformed field or extension');
  }
}

function describeParsed(der: Buffer, certificate: Certificate): CertificateDescription {
  const tbs = certificate.tbsCertificate;
  const spki = Buffer.from(AsnConvert.serialize(tbs.subjectPublicKeyInfo));
  const key = describeSpki(spki);
  return {
    subject: formatNameStructure(tbs.subject),
    issuer: formatNameStructure(tbs.issuer),
    serial: serialHex(tbs.serialNumber),
    not_before: tbs.validity.notBefore.getTime().toISOString(),
    not_after: tbs.validity.notAfter.getTime().toISOString(),
    fingerprint_sha256: hexColons(createHash('sha256').update(der).digest()),
    algorithm: key.algorithm,
    key_bits: key.keyBits,
    ...describeExtensions(certificate.tbsCertificate.extensions ?? []),
    signature_algorithm: signatureAlgorithmName(certificate.signatureAlgorithm.algorithm),
  };
}

/** The SubjectPublicKeyInfo DER of a certificate. */
export function certificateSpki(der: Buffer): Buffer {
  return Buffer.from(AsnConvert.serialize(parseCertificate(der).tbsCertificate.subjectPublicKeyInfo));
}

/** The subject Name DER of a certificate (re-encoded from the parsed structure). */
export function certificateSubject(der: Buffer): Buffer {
  return Buffer.from(AsnConvert.serialize(parseCertificate(der).tbsCertificate.subject));
}

/**
 * Whether `issuerSpki`'s key signed the certificate (over its exact TBS bytes). SM2 uses
 * the GM/T 0009 ID; `sm2EmptyIdFallback` also accepts the empty ID OpenSSL 3.0 signs with.
 */
export function verifyCertificateSignature(
  certDer: Buffer,
  issuerSpki: Buffer,
  options: VerifyOptions = {},
): boolean {
  const certificate = parseCertificate(certDer);
  const parts = signedParts(certDer, 'certificate');
  return verifySignature(certificate.signatureAlgorithm, issuerSpki, parts.tbs, parts.signature, options);
}

export interface CertificateParts {
  /** The exact DER of each field, as signed (no re-encoding). */
  readonly serial: Buffer;
  readonly issuer: Buffer;
  readonly subject: Buffer;
  readonly spki: Buffer;
  /** The subjectPublicKey BIT STRING's bits. */
  readonly publicKeyBits: Buffer;
}

/** The raw issuer, subject and key fields of a certificate's TBS (for OCSP hashes and chain matching). */
export function certificateParts(der: Buffer): CertificateParts {
  try {
    const outer = readTlv(der, 0, 'certificate');
    const tbsNode = children(der, outer, 'certificate')[0];
    if (outer.tag !== 0x30 || !tbsNode || tbsNode.tag !== 0x30) throw new Error('not a certificate');
    const fields = children(der, tbsNode, 'certificate');
    const offset = fields[0]?.tag === 0xa0 ? 1 : 0;
    const [serial, , issuer, , subject, spki] = fields.slice(offset);
    if (!serial || !issuer || !subject || !spki || serial.tag !== 0x02) throw new Error('not a certificate');
    const bits = children(der, spki, 'certificate')[1];
    if (!bits || bits.tag !== 0x03) throw new Error('not a certificate');
    return {
      serial: der.subarray(serial.start, serial.end),
      issuer: der.subarray(issuer.offset, issuer.end),
      subject: der.subarray(subject.offset, subject.end),
      spki: der.subarray(spki.offset, spki.end),
      publicKeyBits: der.subarray(bits.start + 1, bits.end),
    };
  } catch {
    throw new PkiError('invalid-certificate', 'Not an X.509 certificate (DER)');
  }
}
