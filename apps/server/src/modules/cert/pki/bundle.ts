import { certificateParts, parseCertificate, verifyCertificateSignature } from './certificate.js';
import { type Tlv, children, readTlv, sequence, tlv } from './der.js';
import { formatName } from './name.js';
import { containsPrivateKey, isPemText, pemBlocks } from './pem.js';
import { PkiError } from './pki-error.js';

/**
 * Certificate bundles: certs-only PKCS#7 (RFC 2315 SignedData without signers) written
 * and read as DER directly, so every certificate keeps its exact bytes; PEM with one or
 * many CERTIFICATE blocks; and ordering a set of certificates leaf → root.
 */

const SIGNED_DATA_OID = Buffer.from('06092a864886f70d010702', 'hex');
const DATA_OID = Buffer.from('06092a864886f70d010701', 'hex');

/**
 * `ContentInfo { signedData, [0] SignedData { 1, {}, { data }, [0] certificates, {} } }`.
 * Certificates keep the given order (as `openssl crl2pkcs7` writes them).
 */
export function buildCertsOnlyP7b(certDers: readonly Buffer[]): Buffer {
  for (const der of certDers) parseCertificate(der);
  const signedData = sequence(
    tlv(0x02, Buffer.from([1])),
    tlv(0x31, Buffer.alloc(0)),
    sequence(DATA_OID),
    tlv(0xa0, ...certDers),
    tlv(0x31, Buffer.alloc(0)),
  );
  return sequence(SIGNED_DATA_OID, tlv(0xa0, signedData));
}

/** The certificates inside a PKCS#7/CMS SignedData (DER), or null when it is not one. */
function p7Certificates(der: Buffer): Buffer[] | null {
  let outer: Tlv;
  try {
    outer = readTlv(der, 0);
    if (outer.tag !== 0x30 || outer.end !== der.length) return null;
    const [oid, content] = children(der, outer);
    if (!oid || !der.subarray(oid.offset, oid.end).equals(SIGNED_DATA_OID)) return null;
    if (!content || content.tag !== 0xa0) return null;
    const signedData = children(der, content)[0];
    if (!signedData || signedData.tag !== 0x30) return null;
    const certificates = children(der, signedData).find((node) => node.tag === 0xa0);
    if (!certificates) return [];
    return children(der, certificates)
      .filter((node) => node.tag === 0x30)
      .map((node) => Buffer.from(der.subarray(node.offset, node.end)));
  } catch {
    return null;
  }
}

/** Whether DER is a PKCS#8 PrivateKeyInfo or an EncryptedPrivateKeyInfo (shape only). */
function looksLikePrivateKey(der: Buffer): boolean {
  try {
    const outer = readTlv(der, 0);
    if (outer.tag !== 0x30 || outer.end !== der.length) return false;
    const parts = children(der, outer);
    const [first, second, third] = parts;
    const plain = first?.tag === 0x02 && second?.tag === 0x30 && third?.tag === 0x04;
    const encrypted = parts.length === 2 && first?.tag === 0x30 && second?.tag === 0x04;
    return plain || encrypted;
  } catch {
    return false;
  }
}

function checked(ders: Buffer[]): Buffer[] {
  if (ders.length === 0) throw new PkiError('invalid-pem', 'The bundle holds no certificate');
  for (const der of ders) parseCertificate(der);
  return ders;
}

/**
 * The certificates of an upload: PEM (CERTIFICATE blocks, PKCS7 or CMS blocks), DER PKCS#7
 * or a DER certificate. A private key anywhere refuses the whole upload.
 */
export function splitCertificateBundle(input: Buffer | string): Buffer[] {
  if (isPemText(input)) {
    const text = typeof input === 'string' ? input : input.toString('utf8');
    if (containsPrivateKey(text)) {
      throw new PkiError('private-key-refused', 'The upload contains a private key; it is not accepted');
    }
    const ders: Buffer[] = [];
    for (const block of pemBlocks(text)) {
      if (block.label === 'CERTIFICATE' || block.label === 'X509 CERTIFICATE') ders.push(block.der);
      else if (block.label === 'PKCS7' || block.label === 'CMS' || block.label === 'PKCS #7 SIGNED DATA') {
        const certificates = p7Certificates(block.der);
        if (!certificates) throw new PkiError('invalid-pem', `The ${block.label} block is not a SignedData`);
        ders.push(...certificates);
      }
    }
    return checked(ders);
  }
  if (typeof input === 'string') throw new PkiError('invalid-pem', 'The upload is neither PEM nor DER');
  const certificates = p7Certificates(input);
  if (certificates) return checked(certificates);
  try {
    parseCertificate(input);
    certificateParts(input);
    return [input];
  } catch {
    if (looksLikePrivateKey(input)) {
      throw new PkiError('private-key-refused', 'The upload is a private key; it is not accepted');
    }
    throw new PkiError('invalid-pem', 'The upload is neither PEM nor a DER certificate or PKCS#7');
  }
}

interface Node {
  readonly der: Buffer;
  readonly subject: Buffer;
  readonly issuer: Buffer;
  readonly spki: Buffer;
  readonly name: string;
}

const issues = (issuer: Node, child: Node): boolean =>
  issuer.subject.equals(child.issuer) &&
  verifyCertificateSignature(child.der, issuer.spki, { sm2EmptyIdFallback: true });

/**
 * Orders certificates leaf → root: each certificate is followed by the one whose subject
 * is its issuer and whose key verifies its signature. The chain may stop below a root
 * that is not in the set. SM2 signatures count with either the GM/T 0009 ID or the
 * empty ID of OpenSSL 3.0 (this orders a bundle; it does not decide trust). `chain-broken` names the certificate that does not link
 * (a second leaf, or one left over).
 */
export function orderChain(certs: readonly Buffer[]): Buffer[] {
  const nodes: Node[] = certs.map((der) => {
    const parts = certificateParts(der);
    return {
      der,
      subject: parts.subject,
      issuer: parts.issuer,
      spki: parts.spki,
      name: formatName(parts.subject),
    };
  });
  if (nodes.length <= 1) return nodes.map((n) => n.der);
  const selfSigned = (node: Node) => node.subject.equals(node.issuer);
  // A leaf issues none of the others; start from one that is not self-signed when there is one.
  const leaves = nodes
    .filter((candidate) => !nodes.some((other) => other !== candidate && issues(candidate, other)))
    .sort((a, b) => Number(selfSigned(a)) - Number(selfSigned(b)));
  if (leaves.length === 0) {
    const name = nodes[0]?.name ?? '';
    throw new PkiError('chain-broken', `Certificate '${name}' does not link to the others`, {
      subject: name,
    });
  }
  const ordered: Node[] = [];
  const remaining = new Set(nodes);
  let current: Node | undefined = leaves[0];
  while (current) {
    ordered.push(current);
    remaining.delete(current);
    if (selfSigned(current)) break;
    const child: Node = current;
    current = [...remaining].find((candidate) => issues(candidate, child));
  }
  const leftover = [...remaining][0];
  if (leftover) {
    throw new PkiError('chain-broken', `Certificate '${leftover.name}' does not link to the others`, {
      subject: leftover.name,
    });
  }
  return ordered.map((n) => n.der);
}
