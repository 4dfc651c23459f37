import { createHash } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier } from '@peculiar/asn1-x509';
import { certificateParts } from './certificate.js';
import { type RevocationReason, REVOCATION_REASONS } from './crl.js';
import {
  type Tlv,
  bitString,
  children,
  generalizedTime,
  octetString,
  readTlv,
  sequence,
  tlv,
} from './der.js';
import { keyIdentifierOf } from './extensions.js';
import { PkiError } from './pki-error.js';
import { OID, type Signer, signatureAlgorithmOf } from './signer.js';

/**
 * OCSP (RFC 6960): reading requests and writing signed basic responses. Both are read
 * and written as DER directly: the CertID of each request is echoed byte for byte, and
 * the nonce extension value is echoed verbatim (RFC 8954), as `openssl ocsp` expects.
 */

export type OcspHash = 'sha1' | 'sha256' | 'sha384' | 'sha512';
const HASH_OIDS: Readonly<Record<string, OcspHash>> = {
  [OID.sha1]: 'sha1',
  [OID.sha256]: 'sha256',
  [OID.sha384]: 'sha384',
  [OID.sha512]: 'sha512',
};

export interface OcspCertRequest {
  /** `sha1`, `sha256`, … or the OID when unknown. */
  readonly hashAlgorithm: OcspHash | (string & Record<never, never>);
  readonly issuerNameHash: Buffer;
  readonly issuerKeyHash: Buffer;
  /** Uppercase hex of the serial's INTEGER content. */
  readonly serial: string;
  /** The CertID DER as sent, to echo in the response. */
  readonly certId: Buffer;
}

export interface OcspRequestInfo {
  readonly requests: OcspCertRequest[];
  /** The nonce extension's extnValue content as sent (OpenSSL: an OCTET STRING wrapping the nonce). */
  readonly nonce?: Buffer;
}

/** id-pkix-ocsp-nonce 1.3.6.1.5.5.7.48.1.2 as an OID TLV. */
const NONCE_OID = Buffer.from('06092b0601050507300102', 'hex');
const BASIC_OID = Buffer.from('06092b0601050507300101', 'hex');

const malformed = (why: string) => new PkiError('invalid-ocsp-request', `Malformed OCSP request: ${why}`);

function expect(node: Tlv | undefined, tag: number, what: string): Tlv {
  if (!node || node.tag !== tag) throw malformed(`expected ${what}`);
  return node;
}

export function parseOcspRequest(der: Buffer): OcspRequestInfo {
  try {
    const outer = expect(readTlv(der, 0), 0x30, 'OCSPRequest');
    if (outer.end !== der.length) throw malformed('trailing data');
    const tbs = expect(children(der, outer)[0], 0x30, 'TBSRequest');
    const fields = children(der, tbs);
    let index = 0;
    if (fields[index]?.tag === 0xa0) index++; // version
    if (fields[index]?.tag === 0xa1) index++; // requestorName
    const list = expect(fields[index++], 0x30, 'requestList');
    const requests = children(der, list).map((request) => {
      const certIdNode = expect(children(der, expect(request, 0x30, 'Request'))[0], 0x30, 'CertID');
      const [algorithm, nameHash, keyHash, serial] = children(der, certIdNode);
      const hashOid = AsnConvert.parse(
        der.subarray(expect(algorithm, 0x30, 'hashAlgorithm').offset, algorithm?.end),
        AlgorithmIdentifier,
      ).algorithm;
      const name = expect(nameHash, 0x04, 'issuerNameHash');
      const key = expect(keyHash, 0x04, 'issuerKeyHash');
      const number = expect(serial, 0x02, 'serialNumber');
      return {
        hashAlgorithm: HASH_OIDS[hashOid] ?? hashOid,
        issuerNameHash: Buffer.from(der.subarray(name.start, name.end)),
        issuerKeyHash: Buffer.from(der.subarray(key.start, key.end)),
        serial: der.subarray(number.start, number.end).toString('hex').toUpperCase(),
        certId: Buffer.from(der.subarray(certIdNode.offset, certIdNode.end)),
      };
    });
    if (requests.length === 0) throw malformed('no requests');
    let nonce: Buffer | undefined;
    const extensions = fields[index];
    if (extensions?.tag === 0xa2) {
      for (const ext of children(der, expect(children(der, extensions)[0], 0x30, 'Extensions'))) {
        const parts = children(der, ext);
        const oid = parts[0];
        const value = parts[parts.length - 1];
        if (oid && value?.tag === 0x04 && der.subarray(oid.offset, oid.end).equals(NONCE_OID)) {
          nonce = Buffer.from(der.subarray(value.start, value.end));
        }
      }
    }
    return nonce ? { requests, nonce } : { requests };
  } catch (error) {
    if (error instanceof PkiError && error.code === 'invalid-ocsp-request') throw error;
    throw malformed('not DER');
  }
}

/** The name and key hashes a request's CertID carries for this issuer certificate. */
export function issuerHashes(
  issuerCertDer: Buffer,
  hashAlgorithm: OcspHash,
): { issuerNameHash: Buffer; issuerKeyHash: Buffer } {
  const parts = certificateParts(issuerCertDer);
  return {
    issuerNameHash: createHash(hashAlgorithm).update(parts.subject).digest(),
    issuerKeyHash: createHash(hashAlgorithm).update(parts.publicKeyBits).digest(),
  };
}

export type OcspResponseStatus =
  'malformedRequest' | 'internalError' | 'tryLater' | 'sigRequired' | 'unauthorized';
const STATUS_CODE: Readonly<Record<OcspResponseStatus, number>> = {
  malformedRequest: 1,
  internalError: 2,
  tryLater: 3,
  sigRequired: 5,
  unauthorized: 6,
};

/** An unsigned OCSPResponse carrying only an error status. */
export function ocspErrorResponse(status: OcspResponseStatus): Buffer {
  return sequence(tlv(0x0a, Buffer.from([STATUS_CODE[status]])));
}

export interface OcspSingleResponse {
  /** The request's CertID DER, echoed. */
  readonly certId: Buffer;
  readonly status: 'good' | 'revoked' | 'unknown';
  readonly revokedAt?: Date;
  readonly reason?: RevocationReason;
  readonly thisUpdate: Date;
  readonly nextUpdate?: Date;
}

export interface BuildOcspResponseInput {
  /** ResponderID byName (Name DER); absent = byKey (SHA-1 of the signer's public key bits). */
  readonly responderName?: Buffer;
  readonly signer: Signer;
  /** Certificates to include in `certs` (a delegated responder's certificate). */
  readonly responderCertDer?: Buffer;
  readonly producedAt: Date;
  /** The request's nonce extension value, echoed verbatim. */
  readonly nonce?: Buffer;
  readonly responses: readonly OcspSingleResponse[];
}

function certStatus(response: OcspSingleResponse): Buffer {
  if (response.status === 'good') return Buffer.from([0x80, 0x00]);
  if (response.status === 'unknown') return Buffer.from([0x82, 0x00]);
  if (!response.revokedAt) throw new PkiError('invalid-input', 'A revoked status needs revokedAt');
  const reason = response.reason ? REVOCATION_REASONS[response.reason] : undefined;
  return tlv(
    0xa1,
    generalizedTime(response.revokedAt),
    ...(reason === undefined ? [] : [tlv(0xa0, tlv(0x0a, Buffer.from([reason])))]),
  );
}

/** A signed `OCSPResponse` (successful, id-pkix-ocsp-basic). */
export async function buildOcspResponse(input: BuildOcspResponseInput): Promise<Buffer> {
  if (input.responses.length === 0) throw new PkiError('invalid-input', 'An OCSP response needs a response');
  const responderId = input.responderName
    ? tlv(0xa1, input.responderName)
    : tlv(0xa2, octetString(keyIdentifierOf(input.signer.spki)));
  const singles = input.responses.map((response) =>
    sequence(
      response.certId,
      certStatus(response),
      generalizedTime(response.thisUpdate),
      ...(response.nextUpdate ? [tlv(0xa0, generalizedTime(response.nextUpdate))] : []),
    ),
  );
  const extensions = input.nonce ? [tlv(0xa1, sequence(sequence(NONCE_OID, octetString(input.nonce))))] : [];
  const tbs = sequence(responderId, generalizedTime(input.producedAt), sequence(...singles), ...extensions);
  const algorithm = Buffer.from(AsnConvert.serialize(signatureAlgorithmOf(input.signer.algorithm)));
  const signature = await input.signer.sign(tbs);
  const basic = sequence(
    tbs,
    algorithm,
    bitString(signature),
    ...(input.responderCertDer ? [tlv(0xa0, sequence(input.responderCertDer))] : []),
  );
  return sequence(tlv(0x0a, Buffer.from([0])), tlv(0xa0, sequence(BASIC_OID, octetString(basic))));
}
