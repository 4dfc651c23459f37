import { AsnConvert } from '@peculiar/asn1-schema';
import { Name } from '@peculiar/asn1-x509';
import { serialContent } from './certificate.js';
import {
  bigintBytes,
  bitString,
  integer,
  octetString,
  readTlv,
  sequence,
  tlv,
  writeTime,
  x509Time,
  x509TimeLength,
} from './der.js';
import { PkiError } from './pki-error.js';
import { type Signer, signatureAlgorithmOf } from './signer.js';

/**
 * X.509 v2 CRLs (RFC 5280 §5). The TBSCertList is written directly as DER rather than
 * through the asn1 classes: a revocation list of 100,000 entries must build in well
 * under two seconds, and each entry (serial, date, optional reason) is a few fixed
 * TLVs, so it is encoded into one preallocated buffer.
 */

export const REVOCATION_REASONS = {
  unspecified: 0,
  keyCompromise: 1,
  cACompromise: 2,
  affiliationChanged: 3,
  superseded: 4,
  cessationOfOperation: 5,
  certificateHold: 6,
  removeFromCRL: 8,
  privilegeWithdrawn: 9,
  aACompromise: 10,
} as const;
export type RevocationReason = keyof typeof REVOCATION_REASONS;

export const isRevocationReason = (value: string): value is RevocationReason => value in REVOCATION_REASONS;

export interface CrlEntry {
  /** Bytes or hex (colons allowed). */
  readonly serial: Buffer | string;
  readonly revokedAt: Date;
  /** Absent or `unspecified`: no reasonCode entry extension (RFC 5280 §5.3.1). */
  readonly reason?: RevocationReason;
}

export interface BuildCrlInput {
  /** Name DER of the issuing CA (its certificate's subject, verbatim). */
  readonly issuerName: Buffer;
  /** The CA certificate's subjectKeyIdentifier, written as the CRL's authorityKeyIdentifier. */
  readonly issuerSki: Buffer;
  readonly signer: Signer;
  readonly number: bigint;
  readonly thisUpdate: Date;
  readonly nextUpdate: Date;
  readonly entries: readonly CrlEntry[];
}

const OID_TLV = {
  cRLNumber: Buffer.from('0603551d14', 'hex'),
  reasonCode: Buffer.from('0603551d15', 'hex'),
  authorityKeyIdentifier: Buffer.from('0603551d23', 'hex'),
};

/** `Extension` with `critical` absent (FALSE). */
const extension = (oid: Buffer, value: Buffer): Buffer => sequence(oid, octetString(value));

/** Writes a DER length at `offset`; returns the offset after it. */
function writeLength(out: Buffer, offset: number, length: number): number {
  if (length < 0x80) {
    out[offset] = length;
    return offset + 1;
  }
  const bytes = length < 0x100 ? 1 : length < 0x10000 ? 2 : length < 0x1000000 ? 3 : 4;
  out[offset] = 0x80 | bytes;
  for (let i = bytes; i > 0; i--) out[offset + i] = (length >>> ((bytes - i) * 8)) & 0xff;
  return offset + 1 + bytes;
}

const lengthOfLength = (length: number): number =>
  length < 0x80 ? 1 : length < 0x100 ? 2 : length < 0x10000 ? 3 : length < 0x1000000 ? 4 : 5;

/**
 * `revokedCertificates`: SEQUENCE OF SEQUENCE { serial INTEGER, revocationDate Time,
 * [reasonCode extension] }, written into one buffer (two passes: sizes, then bytes).
 */
function revokedCertificates(entries: readonly CrlEntry[]): Buffer {
  const reasonExtensions = new Map<number, Buffer>();
  const serials: Buffer[] = new Array<Buffer>(entries.length);
  const reasons: (Buffer | null)[] = new Array<Buffer | null>(entries.length);
  let body = 0;
  entries.forEach((entry, index) => {
    if (!(entry.revokedAt instanceof Date) || Number.isNaN(entry.revokedAt.getTime())) {
      throw new PkiError('invalid-input', 'A revocation date is not a valid date');
    }
    const serial = serialContent(entry.serial);
    const code = entry.reason === undefined ? 0 : REVOCATION_REASONS[entry.reason];
    if (code === undefined) throw new PkiError('invalid-input', 'Unknown revocation reason');
    let reason: Buffer | null = null;
    if (code !== 0) {
      reason = reasonExtensions.get(code) ?? null;
      if (!reason) {
        reason = sequence(extension(OID_TLV.reasonCode, tlv(0x0a, Buffer.from([code]))));
        reasonExtensions.set(code, reason);
      }
    }
    serials[index] = serial;
    reasons[index] = reason;
    const inner = 2 + serial.length + x509TimeLength(entry.revokedAt) + (reason?.length ?? 0);
    body += 1 + lengthOfLength(inner) + inner;
  });
  const out = Buffer.allocUnsafe(1 + lengthOfLength(body) + body);
  out[0] = 0x30;
  let offset = writeLength(out, 1, body);
  entries.forEach((entry, index) => {
    const serial = serials[index] ?? Buffer.alloc(1);
    const reason = reasons[index];
    const timeLength = x509TimeLength(entry.revokedAt);
    out[offset++] = 0x30;
    offset = writeLength(out, offset, 2 + serial.length + timeLength + (reason?.length ?? 0));
    out[offset++] = 0x02;
    out[offset++] = serial.length;
    offset += serial.copy(out, offset);
    offset = writeTime(out, offset, entry.revokedAt, timeLength === 17);
    if (reason) offset += reason.copy(out, offset);
  });
  return out;
}

/** A signed CRL (DER) with cRLNumber and authorityKeyIdentifier extensions. */
export async function buildCrl(input: BuildCrlInput): Promise<Buffer> {
  if (input.number < 0n) throw new PkiError('invalid-input', 'The CRL number is non-negative');
  if (bigintBytes(input.number).length > 20)
    throw new PkiError('invalid-input', 'The CRL number is at most 20 octets');
  if (!(input.nextUpdate.getTime() > input.thisUpdate.getTime())) {
    throw new PkiError('invalid-input', 'nextUpdate must be later than thisUpdate');
  }
  // The issuer goes in verbatim: it must equal the CA certificate's subject byte for byte.
  const issuer = input.issuerName;
  try {
    AsnConvert.parse(issuer, Name);
    if (readTlv(issuer, 0).end !== issuer.length) throw new Error('trailing data');
  } catch {
    throw new PkiError('invalid-name', 'The issuer is not Name DER');
  }
  const algorithm = Buffer.from(AsnConvert.serialize(signatureAlgorithmOf(input.signer.algorithm)));
  const extensions = sequence(
    extension(OID_TLV.authorityKeyIdentifier, sequence(tlv(0x80, input.issuerSki))),
    extension(OID_TLV.cRLNumber, integer(bigintBytes(input.number))),
  );
  const tbs = sequence(
    integer(Buffer.from([1])),
    algorithm,
    issuer,
    x509Time(input.thisUpdate),
    x509Time(input.nextUpdate),
    ...(input.entries.length > 0 ? [revokedCertificates(input.entries)] : []),
    tlv(0xa0, extensions),
  );
  const signature = await input.signer.sign(tbs);
  return sequence(tbs, algorithm, bitString(signature));
}
