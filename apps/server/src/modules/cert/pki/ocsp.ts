import { createHash } from 'node:crypto';
import {
  CertID,
  CertStatus,
  id_pkix_ocsp_basic,
  id_pkix_ocsp_nonce,
  OCSPRequest,
  OCSPResponse,
  OCSPResponseStatus,
  ResponderID,
  ResponseBytes,
  ResponseData,
  RevokedInfo,
  SingleResponse,
  KeyHash,
} from '@peculiar/asn1-ocsp';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import { CRLReason, Extension, Name } from '@peculiar/asn1-x509';
import { certificateParts, serialHex } from './certificate.js';
import { type RevocationReason, REVOCATION_REASONS } from './crl.js';
import { bitString, readTlv, sequence, tlv } from './der.js';
import { keyIdentifierOf } from './extensions.js';
import { PkiError } from './pki-error.js';
import { OID, type Signer, signatureAlgorithmOf } from './signer.js';

/**
 * OCSP (RFC 6960) with the `@peculiar/asn1-ocsp` classes: requests are read with
 * `OCSPRequest`, responses written with `ResponseData`/`SingleResponse`/`OCSPResponse`.
 * Each request's CertID goes back as the library writes it again (the same bytes for a
 * DER request; OpenSSL matches CertIDs by value) and the nonce extension's value verbatim
 * (RFC 8954), as `openssl ocsp` expects. The BasicOCSPResponse is assembled around the
 * exact signed bytes, with the responder's certificate verbatim (the library would decode
 * and re-encode it, which may change an externally made certificate and break its signature).
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
  /** The request's CertID DER, to echo in the response. */
  readonly certId: Buffer;
}

export interface OcspRequestInfo {
  readonly requests: OcspCertRequest[];
  /** The nonce extension's extnValue content as sent (OpenSSL: an OCTET STRING wrapping the nonce). */
  readonly nonce?: Buffer;
}

const malformed = (why: string) => new PkiError('invalid-ocsp-request', `Malformed OCSP request: ${why}`);

const bytes = (data: ArrayBuffer | OctetString): Buffer =>
  Buffer.from(data instanceof OctetString ? data.buffer : data);

function readRequest(der: Buffer): OCSPRequest {
  let request: OCSPRequest;
  try {
    if (readTlv(der, 0).end !== der.length) throw malformed('trailing data');
    request = AsnConvert.parse(der, OCSPRequest);
  } catch (error) {
    if (error instanceof PkiError && error.code === 'invalid-ocsp-request') throw error;
    throw malformed('not DER');
  }
  if (request.tbsRequest.requestList.length === 0) throw malformed('no requests');
  return request;
}

export function parseOcspRequest(der: Buffer): OcspRequestInfo {
  const { tbsRequest } = readRequest(der);
  try {
    const requests = tbsRequest.requestList.map(({ reqCert }) => ({
      hashAlgorithm: HASH_OIDS[reqCert.hashAlgorithm.algorithm] ?? reqCert.hashAlgorithm.algorithm,
      issuerNameHash: bytes(reqCert.issuerNameHash),
      issuerKeyHash: bytes(reqCert.issuerKeyHash),
      serial: serialHex(bytes(reqCert.serialNumber)),
      certId: Buffer.from(AsnConvert.serialize(reqCert)),
    }));
    const nonce = tbsRequest.requestExtensions?.find((ext) => ext.extnID === id_pkix_ocsp_nonce);
    return nonce ? { requests, nonce: bytes(nonce.extnValue) } : { requests };
  } catch {
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

export type OcspResponseStatus = Exclude<keyof typeof OCSPResponseStatus, 'successful'>;

/** An unsigned OCSPResponse carrying only an error status. */
export function ocspErrorResponse(status: OcspResponseStatus): Buffer {
  return Buffer.from(AsnConvert.serialize(new OCSPResponse({ responseStatus: OCSPResponseStatus[status] })));
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

/** OCSP times are GeneralizedTime in whole seconds (the library would write milliseconds). */
const seconds = (date: Date) => new Date(Math.floor(date.getTime() / 1000) * 1000);

function certStatus(response: OcspSingleResponse): CertStatus {
  if (response.status === 'good') return new CertStatus({ good: null });
  if (response.status === 'unknown') return new CertStatus({ unknown: null });
  if (!response.revokedAt) throw new PkiError('invalid-input', 'A revoked status needs revokedAt');
  return new CertStatus({
    revoked: new RevokedInfo({
      revocationTime: seconds(response.revokedAt),
      ...(response.reason ? { revocationReason: new CRLReason(REVOCATION_REASONS[response.reason]) } : {}),
    }),
  });
}

/** A signed `OCSPResponse` (successful, id-pkix-ocsp-basic). */
export async function buildOcspResponse(input: BuildOcspResponseInput): Promise<Buffer> {
  if (input.responses.length === 0) throw new PkiError('invalid-input', 'An OCSP response needs a response');
  const data = new ResponseData({
    responderID: new ResponderID(
      input.responderName
        ? { byName: AsnConvert.parse(input.responderName, Name) }
        : { byKey: new KeyHash(keyIdentifierOf(input.signer.spki)) },
    ),
    producedAt: seconds(input.producedAt),
    responses: input.responses.map(
      (response) =>
        new SingleResponse({
          certID: AsnConvert.parse(response.certId, CertID),
          certStatus: certStatus(response),
          thisUpdate: seconds(response.thisUpdate),
          ...(response.nextUpdate ? { nextUpdate: seconds(response.nextUpdate) } : {}),
        }),
    ),
    ...(input.nonce
      ? {
          responseExtensions: [
            new Extension({ extnID: id_pkix_ocsp_nonce, extnValue: new OctetString(input.nonce) }),
          ],
        }
      : {}),
  });
  const tbs = Buffer.from(AsnConvert.serialize(data));
  const algorithm = Buffer.from(AsnConvert.serialize(signatureAlgorithmOf(input.signer.algorithm)));
  const basic = sequence(
    tbs,
    algorithm,
    bitString(await input.signer.sign(tbs)),
    ...(input.responderCertDer ? [tlv(0xa0, sequence(input.responderCertDer))] : []),
  );
  return Buffer.from(
    AsnConvert.serialize(
      new OCSPResponse({
        responseStatus: OCSPResponseStatus.successful,
        responseBytes: new ResponseBytes({
          responseType: id_pkix_ocsp_basic,
          response: new OctetString(basic),
        }),
      }),
    ),
  );
}
