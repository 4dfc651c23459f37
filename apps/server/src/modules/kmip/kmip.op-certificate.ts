import { createHash, X509Certificate } from 'node:crypto';
import { api, type ExternalCa } from '@ksp/contracts';
import type { z } from 'zod';
import { attrValue, nameText, valueOf, type Attribute } from './kmip.attributes.js';
import { LOCATE_PAGES, matchesAsked, type Collector } from './kmip.locate.js';
import { KmipError, optional, required, ttlv } from './kmip.message.js';
import { kmipUid, parse, twin, type ObjectHome, type OperationContext } from './kmip.op-context.js';
import {
  CERTIFICATE_TYPE,
  HASHING_ALGORITHM,
  KEY_FORMAT_TYPE,
  OBJECT_TYPE,
  STATE,
  TAG,
} from './kmip.tags.js';
import type { Ttlv } from './kmip.ttlv.js';

/**
 * Certificates over KMIP (docs/kmip.md#certificates): the domain's external certificates, those of
 * the console's external certificates page. A CA certificate is kept as a trust anchor (kind
 * `ca`), an end-entity certificate (a storage array's or database's own) only kept (kind
 * `certificate`, never trusted as an issuer). Each operation asks the check of the external
 * certificate call it is the twin of, and the cert module's service does the work, so what a KMIP
 * client registers is what an upload stores and shows on that page.
 */

type ExternalRow = z.output<typeof ExternalCa>;

/** The largest Certificate Value KSP takes (a certificate of the largest post-quantum keys is about 12 KiB). */
export const MAX_CERTIFICATE_BYTES = 64 * 1024;

/** A certificate's KMIP state follows its validity dates (KSP keeps no other state for it). */
const STATE_OF_STATUS: Record<ExternalRow['status'], number> = {
  'not-yet-valid': STATE.PreActive,
  valid: STATE.Active,
  expired: STATE.Deactivated,
};

/** The DER X.509 certificate of a registered Certificate object: one certificate, nothing before or after it. */
export function readCertificateObject(object: Ttlv): { der: Buffer; ca: boolean } {
  if (object.type !== 'Structure') throw new KmipError('InvalidField', 'Certificate must be a Structure');
  const type = required(object, TAG.CertificateType, 'Enumeration').value;
  if (type !== CERTIFICATE_TYPE.X509)
    throw new KmipError('FeatureNotSupported', 'KSP keeps X.509 certificates only (Certificate Type 1)');
  const der = required(object, TAG.CertificateValue, 'ByteString').value;
  if (der.length > MAX_CERTIFICATE_BYTES)
    throw new KmipError(
      'InvalidField',
      `Certificate Value is ${der.length} bytes, over the ${MAX_CERTIFICATE_BYTES} KSP takes`,
    );
  // DER only: Node's parser would also take PEM text, and ignores bytes after the certificate.
  let parsed: X509Certificate | null = null;
  if (der[0] === 0x30)
    try {
      parsed = new X509Certificate(der);
    } catch {
      parsed = null;
    }
  if (!parsed || !parsed.raw.equals(der))
    throw new KmipError('InvalidField', 'Certificate Value is not one DER-encoded X.509 certificate');
  return { der, ca: parsed.ca };
}

function certificateAttributes(row: ExternalRow, der: Buffer | null): Attribute[] {
  const out: Attribute[] = [];
  const add = (name: string, value: Ttlv) => out.push({ name, index: 0, value });
  add('Unique Identifier', attrValue.text('Unique Identifier', kmipUid('certificate', row.id)));
  add('Name', attrValue.name(row.name));
  add('Object Type', attrValue.enumeration('Object Type', OBJECT_TYPE.Certificate));
  add('Certificate Type', attrValue.enumeration('Certificate Type', CERTIFICATE_TYPE.X509));
  if (der) {
    add('Certificate Length', attrValue.integer('Certificate Length', der.length));
    // PyKMIP reads a Digest only with its Key Format Type, which the specification leaves optional here.
    add(
      'Digest',
      ttlv.structure(TAG.Digest, [
        ttlv.enumeration(TAG.HashingAlgorithm, HASHING_ALGORITHM.SHA256),
        ttlv.bytes(TAG.DigestValue, createHash('sha256').update(der).digest()),
        ttlv.enumeration(TAG.KeyFormatType, KEY_FORMAT_TYPE.X509),
      ]),
    );
  }
  add('State', attrValue.enumeration('State', STATE_OF_STATUS[row.status]));
  add('Initial Date', attrValue.date('Initial Date', new Date(row.created_at)));
  add('Last Change Date', attrValue.date('Last Change Date', new Date(row.created_at)));
  add('Activation Date', attrValue.date('Activation Date', new Date(row.not_before)));
  add('Deactivation Date', attrValue.date('Deactivation Date', new Date(row.not_after)));
  return out;
}

async function detailOf(ctx: OperationContext, id: string) {
  await twin(ctx, api.cert.externalDetail);
  const row = await ctx.certs.externalDetail(ctx.actor, id);
  return { row, der: Buffer.from(new X509Certificate(row.certificate_pem).raw) };
}

export const certificates: ObjectHome = {
  listCall: api.cert.externalList,

  async register(ctx: OperationContext, attrs: Attribute[], object: Ttlv) {
    const { der, ca } = readCertificateObject(object);
    await twin(ctx, api.cert.externalUpload);
    const name = valueOf(attrs, 'Name');
    // KMIP registers a certificate, whichever it is: its own basicConstraints says which kind it is
    // kept as (the upload reads it again and refuses any disagreement).
    const body = parse(api.cert.externalUpload, {
      ...(name ? { name: nameText(name) } : {}),
      content: der.toString('base64'),
      kind: ca ? 'ca' : 'certificate',
    });
    const { added } = await ctx.certs.externalUpload(ctx.actor, ctx.meta, body);
    const row = added[0];
    if (!row) throw new KmipError('IllegalOperation', 'the domain already holds this certificate');
    return kmipUid('certificate', row.id);
  },

  async get(ctx: OperationContext, id: string, payload) {
    const format = optional(payload, TAG.KeyFormatType, 'Enumeration')?.value;
    if (format !== undefined && format !== KEY_FORMAT_TYPE.X509)
      throw new KmipError('KeyFormatTypeNotSupported', 'a certificate is answered as X.509 DER only');
    if (optional(payload, TAG.KeyWrappingSpecification, 'Structure'))
      throw new KmipError('FeatureNotSupported', 'a certificate is public: it is not answered wrapped');
    const { der } = await detailOf(ctx, id);
    return ttlv.structure(TAG.Certificate, [
      ttlv.enumeration(TAG.CertificateType, CERTIFICATE_TYPE.X509),
      ttlv.bytes(TAG.CertificateValue, der),
    ]);
  },

  async attributes(ctx: OperationContext, id: string) {
    const { row, der } = await detailOf(ctx, id);
    return certificateAttributes(row, der);
  },

  async destroy(ctx: OperationContext, id: string) {
    await twin(ctx, api.cert.externalDelete);
    await ctx.certs.externalDelete(ctx.actor, ctx.meta, [id]);
  },

  async locate(ctx: OperationContext, asked: Attribute[], found: Collector) {
    const name = valueOf(asked, 'Name');
    for (let page = 1; page <= LOCATE_PAGES; page++) {
      const list = await ctx.certs.externalList(ctx.actor, {
        page,
        page_size: 100,
        ...(name ? { name: nameText(name).slice(0, 128) } : {}),
      });
      for (const row of list.data)
        if (matchesAsked(asked, certificateAttributes(row, null))) found.add(kmipUid('certificate', row.id));
      if (list.data.length < 100 || found.full()) break;
    }
  },
};
