import { createHash } from 'node:crypto';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AccessDescription,
  AuthorityInfoAccessSyntax,
  AuthorityKeyIdentifier,
  BasicConstraints,
  CRLDistributionPoints,
  DistributionPoint,
  DistributionPointName,
  ExtendedKeyUsage,
  Extension,
  GeneralName,
  KeyIdentifier,
  KeyUsage,
  KeyUsageFlags,
  SubjectKeyIdentifier,
  id_ad_ocsp,
  id_ce_authorityKeyIdentifier,
  id_ce_basicConstraints,
  id_ce_cRLDistributionPoints,
  id_ce_extKeyUsage,
  id_ce_keyUsage,
  id_ce_subjectAltName,
  id_ce_subjectKeyIdentifier,
  id_kp_OCSPSigning,
  id_kp_clientAuth,
  id_kp_codeSigning,
  id_kp_emailProtection,
  id_kp_serverAuth,
  id_kp_timeStamping,
  id_pe_authorityInfoAccess,
} from '@peculiar/asn1-x509';
import { PkiError } from './pki-error.js';
import { type SanList, isEmptySan, sanExtensionValue, sanFromExtensionValue } from './san.js';
import { type KeyAlgorithm, OID, describeSpki } from './signer.js';

/** X.509 v3 extensions from the console's purpose and usage (docs/modules.md#extensions-from-purpose-and-usage). */

export type Purpose = 'server' | 'client';
export type Usage = 'signature' | 'encryption' | 'both';

export const KEY_USAGE_NAMES: readonly [KeyUsageFlags, string][] = [
  [KeyUsageFlags.digitalSignature, 'digitalSignature'],
  [KeyUsageFlags.nonRepudiation, 'nonRepudiation'],
  [KeyUsageFlags.keyEncipherment, 'keyEncipherment'],
  [KeyUsageFlags.dataEncipherment, 'dataEncipherment'],
  [KeyUsageFlags.keyAgreement, 'keyAgreement'],
  [KeyUsageFlags.keyCertSign, 'keyCertSign'],
  [KeyUsageFlags.cRLSign, 'cRLSign'],
  [KeyUsageFlags.encipherOnly, 'encipherOnly'],
  [KeyUsageFlags.decipherOnly, 'decipherOnly'],
];

export const EKU_NAMES: Readonly<Record<string, string>> = {
  [id_kp_serverAuth]: 'serverAuth',
  [id_kp_clientAuth]: 'clientAuth',
  [id_kp_codeSigning]: 'codeSigning',
  [id_kp_emailProtection]: 'emailProtection',
  [id_kp_timeStamping]: 'timeStamping',
  [id_kp_OCSPSigning]: 'OCSPSigning',
};

export function extension(extnID: string, critical: boolean, value: ArrayBuffer | Buffer): Extension {
  return new Extension({ extnID, critical, extnValue: new OctetString(value) });
}

/** RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey BIT STRING's bits. */
export function keyIdentifierOf(spki: Buffer): Buffer {
  return createHash('sha1').update(describeSpki(spki).publicKeyBits).digest();
}

/**
 * The keyUsage bits of an end-entity key: signature = digitalSignature + nonRepudiation;
 * encryption = keyEncipherment + dataEncipherment (RSA), keyAgreement (EC), and for SM2
 * (which encrypts as well as agrees keys, GM/T 0015 encryption certificates)
 * keyEncipherment + dataEncipherment + keyAgreement. Ed25519 and ML-DSA only sign.
 */
export function keyUsageFor(algorithm: KeyAlgorithm, usage: Usage): number {
  let bits = 0;
  if (usage !== 'encryption') bits |= KeyUsageFlags.digitalSignature | KeyUsageFlags.nonRepudiation;
  if (usage !== 'signature') {
    // An RSA key of a size outside CA_ALGORITHMS is reported by its OID, rsaEncryption.
    if (algorithm.startsWith('RSA-') || algorithm === OID.rsaEncryption) {
      bits |= KeyUsageFlags.keyEncipherment | KeyUsageFlags.dataEncipherment;
    } else if (
      algorithm.startsWith('EC-') ||
      algorithm.startsWith('1.2.840.10045.3.1') ||
      algorithm.startsWith('1.3.132.0.')
    ) {
      bits |= KeyUsageFlags.keyAgreement;
    } else if (algorithm === 'SM2') {
      bits |= KeyUsageFlags.keyEncipherment | KeyUsageFlags.dataEncipherment | KeyUsageFlags.keyAgreement;
    } else {
      throw new PkiError('unsupported', `${algorithm} keys cannot be used for encryption`, { algorithm });
    }
  }
  return bits;
}

export const basicConstraintsExtension = (ca: boolean, pathLen?: number): Extension =>
  extension(
    id_ce_basicConstraints,
    true,
    AsnConvert.serialize(
      new BasicConstraints(
        ca ? { cA: true, ...(pathLen === undefined ? {} : { pathLenConstraint: pathLen }) } : {},
      ),
    ),
  );

export const keyUsageExtension = (bits: number): Extension =>
  extension(id_ce_keyUsage, true, AsnConvert.serialize(new KeyUsage(bits)));

export const extendedKeyUsageExtension = (oids: string[]): Extension =>
  extension(id_ce_extKeyUsage, false, AsnConvert.serialize(new ExtendedKeyUsage(oids)));

/** Critical when the subject is empty (RFC 5280 §4.2.1.6). */
export const sanExtension = (san: SanList, subjectEmpty: boolean): Extension | null =>
  isEmptySan(san) ? null : extension(id_ce_subjectAltName, subjectEmpty, sanExtensionValue(san));

export const subjectKeyIdentifierExtension = (ski: Buffer): Extension =>
  extension(id_ce_subjectKeyIdentifier, false, AsnConvert.serialize(new SubjectKeyIdentifier(ski)));

export const authorityKeyIdentifierExtension = (ski: Buffer): Extension =>
  extension(
    id_ce_authorityKeyIdentifier,
    false,
    AsnConvert.serialize(new AuthorityKeyIdentifier({ keyIdentifier: new KeyIdentifier(ski) })),
  );

export function checkUrl(url: string, field: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new PkiError('invalid-input', `${field} is not a URL`, { field, value: url });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:' && parsed.protocol !== 'ldap:') {
    throw new PkiError('invalid-input', `${field} must be an http, https or ldap URL`, { field, value: url });
  }
  return url;
}

export const crlDistributionPointsExtension = (url: string): Extension =>
  extension(
    id_ce_cRLDistributionPoints,
    false,
    AsnConvert.serialize(
      new CRLDistributionPoints([
        new DistributionPoint({
          distributionPoint: new DistributionPointName({
            fullName: [new GeneralName({ uniformResourceIdentifier: checkUrl(url, 'crlUrl') })],
          }),
        }),
      ]),
    ),
  );

export const authorityInfoAccessExtension = (ocspUrl: string): Extension =>
  extension(
    id_pe_authorityInfoAccess,
    false,
    AsnConvert.serialize(
      new AuthorityInfoAccessSyntax([
        new AccessDescription({
          accessMethod: id_ad_ocsp,
          accessLocation: new GeneralName({ uniformResourceIdentifier: checkUrl(ocspUrl, 'ocspUrl') }),
        }),
      ]),
    ),
  );

/** What a certificate's extensions say, as its description shows them. */
export interface ExtensionFacts {
  is_ca: boolean;
  path_len: number | null;
  key_usage: string[];
  ext_key_usage: string[];
  san: SanList;
  ski: string | null;
  aki: string | null;
  crl_urls: string[];
  ocsp_urls: string[];
}

function uris(names: { uniformResourceIdentifier?: string }[] | undefined): string[] {
  return (names ?? []).flatMap((n) => (n.uniformResourceIdentifier ? [n.uniformResourceIdentifier] : []));
}

/** Reads the extensions this module writes (and the same ones from elsewhere); others are passed over. */
export function describeExtensions(extensions: readonly Extension[]): ExtensionFacts {
  const facts: ExtensionFacts = {
    is_ca: false,
    path_len: null,
    key_usage: [],
    ext_key_usage: [],
    san: { dns: [], ips: [], emails: [] },
    ski: null,
    aki: null,
    crl_urls: [],
    ocsp_urls: [],
  };
  for (const ext of extensions) {
    const value = ext.extnValue.buffer;
    switch (ext.extnID) {
      case id_ce_basicConstraints: {
        const bc = AsnConvert.parse(value, BasicConstraints);
        facts.is_ca = bc.cA;
        facts.path_len = bc.pathLenConstraint ?? null;
        break;
      }
      case id_ce_keyUsage: {
        const bits = AsnConvert.parse(value, KeyUsage).toNumber();
        facts.key_usage = KEY_USAGE_NAMES.filter(([flag]) => bits & flag).map(([, name]) => name);
        break;
      }
      case id_ce_extKeyUsage:
        facts.ext_key_usage = [...AsnConvert.parse(value, ExtendedKeyUsage)].map(
          (oid) => EKU_NAMES[oid] ?? oid,
        );
        break;
      case id_ce_subjectAltName:
        facts.san = sanFromExtensionValue(value);
        break;
      case id_ce_subjectKeyIdentifier:
        facts.ski = Buffer.from(AsnConvert.parse(value, SubjectKeyIdentifier).buffer).toString('hex');
        break;
      case id_ce_authorityKeyIdentifier: {
        const id = AsnConvert.parse(value, AuthorityKeyIdentifier).keyIdentifier;
        facts.aki = id ? Buffer.from(id.buffer).toString('hex') : null;
        break;
      }
      case id_ce_cRLDistributionPoints:
        facts.crl_urls = [...AsnConvert.parse(value, CRLDistributionPoints)].flatMap((dp) =>
          uris(dp.distributionPoint?.fullName),
        );
        break;
      case id_pe_authorityInfoAccess:
        facts.ocsp_urls = [...AsnConvert.parse(value, AuthorityInfoAccessSyntax)]
          .filter((ad) => ad.accessMethod === id_ad_ocsp)
          .flatMap((ad) => uris([ad.accessLocation]));
        break;
    }
  }
  return facts;
}
