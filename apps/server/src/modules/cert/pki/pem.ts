import { PkiError } from './pki-error.js';

/** The PEM labels the engine writes and reads; OpenSSL's spellings (`X509 CRL`, `PKCS7`). */
export type PemLabel =
  | 'CERTIFICATE'
  | 'X509 CRL'
  | 'CERTIFICATE REQUEST'
  | 'NEW CERTIFICATE REQUEST'
  | 'PKCS7'
  | 'CMS'
  | 'ENCRYPTED PRIVATE KEY'
  | 'PUBLIC KEY';

export interface PemBlock {
  readonly label: string;
  readonly der: Buffer;
}

/** PEM armour with 64-character lines, as OpenSSL writes it. */
export function toPem(der: Buffer, label: PemLabel): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END ([A-Z0-9 ]+)-----/g;
const BASE64 = /^[A-Za-z0-9+/=\s]*$/;

/** Whether the text holds a private key of any kind (PKCS#8, encrypted, RSA/EC/DSA legacy). */
export function containsPrivateKey(text: string): boolean {
  return /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(text);
}

/** Every PEM block in `text`, in order. Headers (RFC 1421 `Proc-Type:`) are refused. */
export function pemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  for (const match of text.matchAll(BLOCK)) {
    const [, begin = '', body = '', end = ''] = match;
    if (begin !== end) throw new PkiError('invalid-pem', `PEM block BEGIN ${begin} ends with END ${end}`);
    if (!BASE64.test(body)) throw new PkiError('invalid-pem', `PEM block ${begin} is not Base64`);
    const der = Buffer.from(body.replace(/\s+/g, ''), 'base64');
    if (der.length === 0) throw new PkiError('invalid-pem', `PEM block ${begin} is empty`);
    blocks.push({ label: begin, der });
  }
  return blocks;
}

/**
 * The DER of the first PEM block whose label is one of `expectedLabels`. A block with
 * a private key anywhere in the text is refused (`private-key-refused`).
 */
export function fromPem(text: string, expectedLabels: readonly string[]): Buffer {
  if (containsPrivateKey(text)) {
    throw new PkiError('private-key-refused', 'The PEM text contains a private key; it is not accepted');
  }
  const block = pemBlocks(text).find((b) => expectedLabels.includes(b.label));
  if (!block) throw new PkiError('invalid-pem', `No PEM block labelled ${expectedLabels.join(' or ')}`);
  return block.der;
}

/** Whether `data` holds PEM armour (rather than being DER). */
export function isPemText(data: Buffer | string): boolean {
  return data.includes('-----BEGIN ');
}
