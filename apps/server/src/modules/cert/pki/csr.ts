import { AsnConvert } from '@peculiar/asn1-schema';
import { CertificationRequestInfo, Attributes } from '@peculiar/asn1-csr';
import {
  AlgorithmIdentifier,
  Attribute,
  Extensions,
  Name,
  SubjectPublicKeyInfo,
  id_ce_subjectAltName,
} from '@peculiar/asn1-x509';
import { signStructure } from './certificate.js';
import { children, readTlv, signedParts } from './der.js';
import { sanExtension } from './extensions.js';
import { formatNameStructure } from './name.js';
import { fromPem, containsPrivateKey, isPemText } from './pem.js';
import { PkiError } from './pki-error.js';
import { type SanList, sanFromExtensionValue } from './san.js';
import {
  type KeyAlgorithm,
  type Signer,
  type SpkiInfo,
  describeSpki,
  signatureAlgorithmOf,
  verifySignature,
} from './signer.js';

/** PKCS#10 certification requests (RFC 2986), SANs in a PKCS#9 extensionRequest. */

const EXTENSION_REQUEST = '1.2.840.113549.1.9.14';

export interface BuildCsrInput {
  readonly subjectName: Buffer;
  readonly san?: SanList;
  readonly signer: Signer;
}

export async function buildCsr(input: BuildCsrInput): Promise<Buffer> {
  let subject: Name;
  try {
    subject = AsnConvert.parse(input.subjectName, Name);
  } catch {
    throw new PkiError('invalid-name', 'The subject is not Name DER');
  }
  const attributes = new Attributes();
  const san = input.san ? sanExtension(input.san, subject.length === 0) : null;
  if (san) {
    attributes.push(
      new Attribute({
        type: EXTENSION_REQUEST,
        values: [AsnConvert.serialize(new Extensions([san]))],
      }),
    );
  }
  const info = new CertificationRequestInfo({
    version: 0,
    subject,
    subjectPKInfo: AsnConvert.parse(input.signer.spki, SubjectPublicKeyInfo),
    attributes,
  });
  const algorithm = signatureAlgorithmOf(input.signer.algorithm);
  return signStructure(Buffer.from(AsnConvert.serialize(info)), algorithm, input.signer);
}

export interface ParsedCsr {
  /** The request's DER (decoded from its PEM). */
  readonly der: Buffer;
  /** RFC 4514 string. */
  readonly subject: string;
  /** The subject Name DER (as in the request). */
  readonly subjectName: Buffer;
  readonly spki: Buffer;
  readonly algorithm: KeyAlgorithm;
  readonly keyBits: number;
  readonly san: SanList;
  readonly signatureValid: boolean;
  /** The algorithm the request is signed with (what `csrRefusal` judges). */
  readonly signatureAlgorithm: AlgorithmIdentifier;
  /** The subject and key as read, for `prepareCertificate` (`known`) not to read them again. */
  readonly read: { readonly subject: Name; readonly subjectKey: SpkiInfo };
}

const invalidCsr = (message: string) => new PkiError('invalid-csr', message);

/** The DER of a CSR given as PEM (`CERTIFICATE REQUEST` or `NEW CERTIFICATE REQUEST`) or DER. */
function csrDer(input: Buffer | string): Buffer {
  const text = typeof input === 'string' ? input : input.toString('latin1');
  if (containsPrivateKey(text)) {
    throw new PkiError('private-key-refused', 'The request contains a private key; it is not accepted');
  }
  if (isPemText(input)) {
    try {
      return fromPem(text, ['CERTIFICATE REQUEST', 'NEW CERTIFICATE REQUEST']);
    } catch (error) {
      if (error instanceof PkiError && error.code === 'private-key-refused') throw error;
      throw invalidCsr('No CERTIFICATE REQUEST PEM block');
    }
  }
  if (typeof input === 'string') throw invalidCsr('The request is neither PEM nor DER');
  return input;
}

/**
 * Reads a PKCS#10 request and checks its self-signature: RSA PKCS#1 v1.5 (SHA-256/384/512)
 * and PSS, ECDSA (SHA-256/384/512), Ed25519, SM2 (GM/T 0009 default ID, then the empty
 * ID OpenSSL 3.0 signs with), ML-DSA.
 */
export function parseCsr(input: Buffer | string): ParsedCsr {
  const der = csrDer(input);
  // One walk over the DER: the subject and the key are answered as the exact bytes of the
  // request (nothing re-encoded), and only the small parts are read with the schema classes.
  let subjectName: Buffer;
  let subject: Name;
  let spki: Buffer;
  let key: ReturnType<typeof describeSpki>;
  let signatureAlgorithm: AlgorithmIdentifier;
  let parts: ReturnType<typeof signedParts>;
  let san: SanList = { dns: [], ips: [], emails: [] };
  try {
    parts = signedParts(der, 'certification request');
    const info = readTlv(parts.tbs, 0, 'certification request');
    const [version, name, keyInfo, attributes, extra] = children(parts.tbs, info, 'certification request');
    if (
      info.tag !== 0x30 ||
      version?.tag !== 0x02 ||
      name?.tag !== 0x30 ||
      keyInfo?.tag !== 0x30 ||
      (attributes !== undefined && attributes.tag !== 0xa0) ||
      extra !== undefined
    ) {
      throw new PkiError('invalid-csr', 'Malformed request');
    }
    subjectName = Buffer.from(parts.tbs.subarray(name.offset, name.end));
    subject = AsnConvert.parse(subjectName, Name);
    spki = Buffer.from(parts.tbs.subarray(keyInfo.offset, keyInfo.end));
    key = describeSpki(spki);
    signatureAlgorithm = AsnConvert.parse(parts.signatureAlgorithm, AlgorithmIdentifier);
    for (const item of attributes ? children(parts.tbs, attributes, 'certification request') : []) {
      const attribute = AsnConvert.parse(parts.tbs.subarray(item.offset, item.end), Attribute);
      if (attribute.type !== EXTENSION_REQUEST) continue;
      for (const value of attribute.values) {
        for (const ext of AsnConvert.parse(value, Extensions)) {
          if (ext.extnID === id_ce_subjectAltName) san = sanFromExtensionValue(ext.extnValue.buffer);
        }
      }
    }
  } catch {
    throw invalidCsr('Not a PKCS#10 certification request');
  }
  return {
    der,
    subject: formatNameStructure(subject),
    subjectName,
    spki,
    algorithm: key.algorithm,
    keyBits: key.keyBits,
    san,
    signatureValid: verifySignature(signatureAlgorithm, spki, parts.tbs, parts.signature, {
      sm2EmptyIdFallback: true,
      key,
    }),
    signatureAlgorithm,
    read: { subject, subjectKey: key },
  };
}
