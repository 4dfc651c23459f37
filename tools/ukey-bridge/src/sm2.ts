/**
 * SM2 (GB/T 32918) as the bridge needs it around a PKCS#11 token.
 *
 * - Decryption of the GM/T 0009 envelope's SM4 key runs on the token: its only secret step
 *   is d·C1, which the standard CKM_ECDH1_DERIVE gives (the x coordinate). The y coordinate
 *   follows from x up to its sign; the SM3 check value C3 tells which of the two it is.
 * - Signing needs the token's own SM2 mechanism. Standard PKCS#11 has none and SoftHSM2
 *   offers none, so with `--sm2-in-bridge` the bridge signs with the key read from the token
 *   (made extractable for that purpose): a testing mode, see README.
 */
import { createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as asn1 from 'asn1js';
import { sm2 } from 'sm-crypto-v2';

const P = BigInt('0xfffffffeffffffffffffffffffffffffffffffff00000000ffffffffffffffff');
const A = P - 3n;
const B = BigInt('0x28e9fa9e9d9f5e344d5a9e4bcf6509a7f39789f515ab8f92ddbcbd414d940e93');
const N = BigInt('0xfffffffeffffffffffffffffffffffff7203df6b21c6052b53bbf40939d54123');
/** The GM/T 0009 default signer ID. */
export const SM2_DEFAULT_ID = '1234567812345678';

const hex = (bytes: Buffer) => bytes.toString('hex');
const toBytes = (value: bigint) => Buffer.from(value.toString(16).padStart(64, '0'), 'hex');

function power(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = base % modulus;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
    e >>= 1n;
  }
  return result;
}

/** Both y for an x on the SM2 curve (p ≡ 3 mod 4, so a square root is a power). */
export function yCandidates(x: Buffer): Buffer[] {
  const xv = BigInt(`0x${hex(x)}`);
  const rhs = (((xv * xv) % P) * xv + A * xv + B) % P;
  const y = power(rhs, (P + 1n) / 4n, P);
  if ((y * y) % P !== rhs) throw new Error('The token answered a point that is not on the SM2 curve');
  return [toBytes(y), toBytes(P - y)];
}

/** GB/T 32918.4 KDF with SM3. */
function kdf(z: Buffer, length: number): Buffer {
  const blocks: Buffer[] = [];
  for (let counter = 1; blocks.length * 32 < length; counter++) {
    const ct = Buffer.alloc(4);
    ct.writeUInt32BE(counter);
    blocks.push(createHash('sm3').update(z).update(ct).digest());
  }
  return Buffer.concat(blocks).subarray(0, length);
}

/**
 * SM2 decryption of C1 || C3 || C2 where `sharedX(c1)` is the token's ECDH: x of d·C1.
 * Returns null when neither y passes the C3 check (not encrypted to this key).
 */
export function sm2DecryptWith(
  sharedX: (c1: Buffer) => Buffer,
  c1: Buffer,
  c3: Buffer,
  c2: Buffer,
): Buffer | null {
  const x2 = sharedX(c1);
  for (const y2 of yCandidates(x2)) {
    const t = kdf(Buffer.concat([x2, y2]), c2.length);
    if (t.every((byte) => byte === 0)) continue;
    const message = Buffer.alloc(c2.length);
    for (let i = 0; i < c2.length; i++) message[i] = (c2[i] ?? 0) ^ (t[i] ?? 0);
    const check = createHash('sm3').update(x2).update(message).update(y2).digest();
    if (timingSafeEqual(check, c3)) return message;
    message.fill(0);
  }
  return null;
}

/** SM4-ECB decryption of the enveloped d (32 bytes, or 64 left-padded with zeros). */
export function sm4EcbDecrypt(key: Buffer, data: Buffer): Buffer {
  const decipher = createDecipheriv('sm4-ecb', key, null).setAutoPadding(false);
  const plain = Buffer.concat([decipher.update(data), decipher.final()]);
  if (plain.length === 64) {
    const d = Buffer.from(plain.subarray(32));
    const padded = plain.subarray(0, 32).every((byte) => byte === 0);
    plain.fill(0);
    if (!padded) throw new Error('the 64-byte private key is not left-padded with zeros');
    return d;
  }
  return plain;
}

/** `04 || x || y` for the private scalar d. */
export function sm2PublicKeyOf(d: Buffer): Buffer {
  return Buffer.from(sm2.getPublicKeyFromPrivateKey(hex(d)), 'hex');
}

/** A scalar in [1, n-1] from node's CSPRNG. */
function randomScalar(): bigint {
  for (;;) {
    const k = BigInt(`0x${randomBytes(32).toString('hex')}`);
    if (k >= 1n && k < N) return k;
  }
}

/**
 * SM2 signature (SM3, default ID) over `data`, DER SEQUENCE { r, s } (encoded here: the
 * library's own DER is not always minimal); d is wiped by the caller.
 */
export function sm2SignInBridge(d: Buffer, publicKey: Buffer, data: Buffer): Buffer {
  const k = randomScalar();
  const kG = sm2.getPublicKeyFromPrivateKey(hex(toBytes(k)));
  const x1 = BigInt(`0x${kG.slice(2, 66)}`);
  const signature = sm2.doSignature(data, hex(d), {
    hash: true,
    der: false,
    publicKey: hex(publicKey),
    userId: SM2_DEFAULT_ID,
    pointPool: [{ k, x1 }],
  });
  const integer = (value: string) => {
    const bytes = Buffer.from(value, 'hex');
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start++;
    const trimmed = bytes.subarray(start);
    return new asn1.Integer({
      valueHex: (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.of(0), trimmed]) : trimmed,
    });
  };
  const rs = new asn1.Sequence({ value: [integer(signature.slice(0, 64)), integer(signature.slice(64))] });
  return Buffer.from(rs.toBER(false));
}
