/**
 * The few DER structures the bridge reads and writes, through asn1js: the PKCS#10 request
 * the token signs, the parts of an X.509 certificate it checks before writing it, and the
 * GM/T 0009-2012 SM2EnvelopedKey that carries a dual token's encryption key.
 */
import * as asn1 from 'asn1js';

export class Asn1Error extends Error {}

const RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
const SHA256_WITH_RSA = '1.2.840.113549.1.1.11';
const EC_PUBLIC_KEY = '1.2.840.10045.2.1';
export const SM2_CURVE = '1.2.156.10197.1.301';
const SM3_WITH_SM2 = '1.2.156.10197.1.501';
const SM4_ECB = '1.2.156.10197.1.104.1';
const COMMON_NAME = '2.5.4.3';

/** DER of the SM2 curve's OID, as CKA_EC_PARAMS holds it. */
export const SM2_CURVE_PARAMS = Buffer.from('06082a811ccf5501822d', 'hex');

const der = (block: asn1.BaseBlock) => Buffer.from(block.toBER(false));
const oid = (value: string) => new asn1.ObjectIdentifier({ value });

function parse(bytes: Buffer, what: string): asn1.BaseBlock {
  const { offset, result } = asn1.fromBER(bytes);
  if (offset === -1 || offset !== bytes.length) throw new Asn1Error(`${what}: not DER`);
  return result;
}

function childrenOf(block: asn1.BaseBlock | undefined, what: string): asn1.BaseBlock[] {
  if (!(block instanceof asn1.Constructed)) throw new Asn1Error(`${what}: not a SEQUENCE`);
  return block.valueBlock.value;
}

const raw = (block: asn1.BaseBlock) => Buffer.from(block.valueBeforeDecodeView);

/** SubjectPublicKeyInfo of an RSA key from the token's modulus and public exponent. */
export function rsaSpki(modulus: Buffer, exponent: Buffer): Buffer {
  const positive = (bytes: Buffer) =>
    new asn1.Integer({ valueHex: (bytes[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.of(0), bytes]) : bytes });
  const rsaPublicKey = new asn1.Sequence({ value: [positive(modulus), positive(exponent)] });
  return der(
    new asn1.Sequence({
      value: [
        new asn1.Sequence({ value: [oid(RSA_ENCRYPTION), new asn1.Null()] }),
        new asn1.BitString({ valueHex: der(rsaPublicKey) }),
      ],
    }),
  );
}

/** SubjectPublicKeyInfo of an SM2 key (`04 || x || y`). */
export function sm2Spki(point: Buffer): Buffer {
  return der(
    new asn1.Sequence({
      value: [
        new asn1.Sequence({ value: [oid(EC_PUBLIC_KEY), oid(SM2_CURVE)] }),
        new asn1.BitString({ valueHex: point }),
      ],
    }),
  );
}

/** The subjectPublicKey bits of a SubjectPublicKeyInfo: what two encodings of one key share. */
export function publicKeyBits(spki: Buffer): Buffer {
  const [, bits] = childrenOf(parse(spki, 'SubjectPublicKeyInfo'), 'SubjectPublicKeyInfo');
  if (!(bits instanceof asn1.BitString)) throw new Asn1Error('SubjectPublicKeyInfo: no key');
  return Buffer.from(bits.valueBlock.valueHexView);
}

export type CsrAlgorithm = 'RSA-2048' | 'SM2';

/**
 * A PKCS#10 request for `CN=commonName`, signed by `sign` (the token) over the DER of the
 * CertificationRequestInfo: SHA-256 with RSA, or SM3 with SM2 (GM/T 0009 default ID).
 */
export function buildCsr(
  algorithm: CsrAlgorithm,
  commonName: string,
  spki: Buffer,
  sign: (info: Buffer) => Buffer,
): Buffer {
  const name = new asn1.Sequence({
    value: [
      new asn1.Set({
        value: [new asn1.Sequence({ value: [oid(COMMON_NAME), new asn1.Utf8String({ value: commonName })] })],
      }),
    ],
  });
  const info = der(
    new asn1.Sequence({
      value: [
        new asn1.Integer({ value: 0 }),
        name,
        parse(spki, 'SubjectPublicKeyInfo'),
        new asn1.Constructed({ idBlock: { tagClass: 3, tagNumber: 0 }, value: [] }),
      ],
    }),
  );
  const signatureAlgorithm =
    algorithm === 'RSA-2048'
      ? new asn1.Sequence({ value: [oid(SHA256_WITH_RSA), new asn1.Null()] })
      : new asn1.Sequence({ value: [oid(SM3_WITH_SM2)] });
  return der(
    new asn1.Sequence({
      value: [
        parse(info, 'CertificationRequestInfo'),
        signatureAlgorithm,
        new asn1.BitString({ valueHex: sign(info) }),
      ],
    }),
  );
}

export interface CertificateParts {
  /** DER of the subject Name (CKA_SUBJECT). */
  subject: Buffer;
  spki: Buffer;
}

/** The subject and key of an X.509 certificate (DER). */
export function certificateParts(certificate: Buffer): CertificateParts {
  const [tbs] = childrenOf(parse(certificate, 'certificate'), 'certificate');
  const fields = childrenOf(tbs, 'certificate');
  // An explicit version is [0]; then serial, signature, issuer, validity, subject, key.
  const first = fields[0]?.idBlock.tagClass === 3 ? 1 : 0;
  const subject = fields[first + 4];
  const spki = fields[first + 5];
  if (!subject || !spki) throw new Asn1Error('certificate: too few fields');
  return { subject: raw(subject), spki: raw(spki) };
}

export interface Sm2EnvelopedKey {
  /** SM2Cipher as C1 (04 || x || y), C3 (SM3 hash) and C2. */
  c1: Buffer;
  c3: Buffer;
  c2: Buffer;
  /** 04 || x || y of the enveloped key pair. */
  publicKey: Buffer;
  /** SM4-ECB(d). */
  encryptedPrivateKey: Buffer;
}

const fixed = (value: Uint8Array, size: number, what: string) => {
  let bytes = Buffer.from(value);
  while (bytes.length > size && bytes[0] === 0) bytes = bytes.subarray(1);
  if (bytes.length > size) throw new Asn1Error(`${what}: too long`);
  return Buffer.concat([Buffer.alloc(size - bytes.length), bytes]);
};

/**
 * GM/T 0009-2012 §7.4 SM2EnvelopedKey ::= SEQUENCE { symAlgID AlgorithmIdentifier (SM4-ECB),
 * symEncryptedKey SM2Cipher, Sm2PublicKey BIT STRING, Sm2EncryptedPrivateKey BIT STRING },
 * SM2Cipher ::= SEQUENCE { XCoordinate INTEGER, YCoordinate INTEGER, HASH OCTET STRING (32),
 * CipherText OCTET STRING }.
 */
export function parseSm2EnvelopedKey(envelope: Buffer): Sm2EnvelopedKey {
  const what = 'enveloped_key';
  const fields = childrenOf(parse(envelope, what), what);
  const [algorithm, cipher, publicKey, privateKey] = fields;
  if (fields.length !== 4) throw new Asn1Error(`${what}: an SM2EnvelopedKey has four fields`);
  const [algorithmOid] = childrenOf(algorithm, `${what} symAlgID`);
  if (!(algorithmOid instanceof asn1.ObjectIdentifier) || algorithmOid.valueBlock.toString() !== SM4_ECB)
    throw new Asn1Error(`${what}: the symmetric algorithm must be SM4-ECB (${SM4_ECB})`);
  const [x, y, hash, text] = childrenOf(cipher, `${what} SM2Cipher`);
  if (
    !(x instanceof asn1.Integer) ||
    !(y instanceof asn1.Integer) ||
    !(hash instanceof asn1.OctetString) ||
    !(text instanceof asn1.OctetString) ||
    hash.valueBlock.valueHexView.length !== 32 ||
    text.valueBlock.valueHexView.length === 0
  )
    throw new Asn1Error(`${what}: SM2Cipher is x, y, a 32-byte SM3 hash and the ciphertext`);
  if (!(publicKey instanceof asn1.BitString) || !(privateKey instanceof asn1.BitString))
    throw new Asn1Error(`${what}: the key pair fields are BIT STRINGs`);
  const point = Buffer.from(publicKey.valueBlock.valueHexView);
  if (point.length !== 65 || point[0] !== 0x04)
    throw new Asn1Error(`${what}: Sm2PublicKey must be 04 || x || y (65 bytes)`);
  const encrypted = Buffer.from(privateKey.valueBlock.valueHexView);
  if (encrypted.length !== 32 && encrypted.length !== 64)
    throw new Asn1Error(`${what}: Sm2EncryptedPrivateKey must be 32 or 64 bytes`);
  return {
    c1: Buffer.concat([
      Buffer.of(0x04),
      fixed(x.valueBlock.valueHexView, 32, `${what} x`),
      fixed(y.valueBlock.valueHexView, 32, `${what} y`),
    ]),
    c3: Buffer.from(hash.valueBlock.valueHexView),
    c2: Buffer.from(text.valueBlock.valueHexView),
    publicKey: point,
    encryptedPrivateKey: encrypted,
  };
}
