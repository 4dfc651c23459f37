import { createCipheriv, createHash, pbkdf2Sync, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { type AlgorithmId } from '@ksp/contracts';
import { sm2PublicKeyFromPrivate } from '../../../platform/crypto/asymmetric.js';
import {
  SM2_SPKI_BYTES,
  sm2PrivateKeyToPkcs8,
  sm2PublicKeyFromSpki,
} from '../../../platform/crypto/encoding.js';
import { randomBytes } from '../../../platform/crypto/random.js';
import { bigintBytes, integer, octetString, sequence } from './der.js';
import { toPem } from './pem.js';
import { PkiError } from './pki-error.js';
import { type CaAlgorithm, isCaAlgorithm } from './signer.js';

/**
 * Private-key downloads: PKCS#8 encrypted with PBES2 (PBKDF2-HMAC-SHA256, AES-256-CBC),
 * and PKCS#12 files (pkijs, docs/dependencies.md#server). The KDF and cipher are node:crypto's;
 * only the ASN.1 around them is written here.
 */

/** PBKDF2 iterations for an encrypted PKCS#8 and the PKCS#12 key and certificate bags. */
export const PBKDF2_ITERATIONS = 100_000;
/** The PKCS#12 MAC (RFC 7292 KDF in pkijs): OpenSSL's default count. */
export const PKCS12_MAC_ITERATIONS = 2048;

const OIDS = {
  pbes2: Buffer.from('06092a864886f70d01050d', 'hex'),
  pbkdf2: Buffer.from('06092a864886f70d01050c', 'hex'),
  hmacWithSha256: Buffer.from('06082a864886f70d0209', 'hex'),
  aes256Cbc: Buffer.from('060960864801650304012a', 'hex'),
};

const ML_DSA_OID_TLV: Readonly<Record<string, Buffer>> = {
  'ML-DSA-44': Buffer.from('0609608648016503040311', 'hex'),
  'ML-DSA-65': Buffer.from('0609608648016503040312', 'hex'),
  'ML-DSA-87': Buffer.from('0609608648016503040313', 'hex'),
};

/**
 * The unencrypted PKCS#8 of a stored key: RSA/EC/Ed25519 material already is one; SM2's
 * raw d becomes an RFC 5915 ECPrivateKey on the SM2 curve; ML-DSA's expanded private key
 * becomes `OneAsymmetricKey { 0, { id-ml-dsa-* }, OCTET STRING { OCTET STRING expandedKey } }`
 * (the `expandedKey` choice of the IETF LAMPS ML-DSA certificate profile,
 * draft-ietf-lamps-dilithium-certificates).
 */
export function pkcs8Of(algorithm: AlgorithmId, material: Buffer, storedPublicKey: Buffer): Buffer {
  if (!isCaAlgorithm(algorithm)) throw new PkiError('unsupported', `${algorithm} keys are not exported here`);
  if (algorithm === 'SM2') {
    const point =
      storedPublicKey.length === SM2_SPKI_BYTES ? sm2PublicKeyFromSpki(storedPublicKey) : storedPublicKey;
    if (!sm2PublicKeyFromPrivate(material).equals(point)) {
      throw new PkiError('invalid-input', 'The SM2 public key does not match the private key');
    }
    return sm2PrivateKeyToPkcs8(material, point);
  }
  const mlDsa = ML_DSA_OID_TLV[algorithm];
  if (mlDsa) return sequence(integer(Buffer.from([0])), sequence(mlDsa), octetString(octetString(material)));
  return material;
}

/** PBES2 EncryptedPrivateKeyInfo (DER) of a PKCS#8. */
export function encryptPkcs8Der(pkcs8: Buffer, password: string): Buffer {
  if (password.length === 0) throw new PkiError('invalid-input', 'The password is empty');
  const salt = randomBytes(16);
  const iv = randomBytes(16);
  const key = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, PBKDF2_ITERATIONS, 32, 'sha256');
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  const encrypted = Buffer.concat([cipher.update(pkcs8), cipher.final()]);
  key.fill(0);
  const kdf = sequence(
    OIDS.pbkdf2,
    sequence(
      octetString(salt),
      integer(bigintBytes(BigInt(PBKDF2_ITERATIONS))),
      sequence(OIDS.hmacWithSha256, Buffer.from([0x05, 0x00])),
    ),
  );
  const scheme = sequence(OIDS.aes256Cbc, octetString(iv));
  return sequence(sequence(OIDS.pbes2, sequence(kdf, scheme)), octetString(encrypted));
}

/** "ENCRYPTED PRIVATE KEY" PEM of a stored key, for every CA algorithm (see `pkcs8Of`). */
export function encryptPkcs8(
  algorithm: AlgorithmId,
  material: Buffer,
  storedPublicKey: Buffer,
  password: string,
): string {
  const pkcs8 = pkcs8Of(algorithm, material, storedPublicKey);
  try {
    return toPem(encryptPkcs8Der(pkcs8, password), 'ENCRYPTED PRIVATE KEY');
  } finally {
    if (pkcs8 !== material) pkcs8.fill(0);
  }
}

export interface BuildPkcs12Input {
  readonly algorithm: CaAlgorithm;
  readonly material: Buffer;
  readonly storedPublicKey: Buffer;
  readonly certDer: Buffer;
  readonly chainDers: readonly Buffer[];
  readonly password: string;
  readonly friendlyName: string;
}

const engine = (): pkijs.ICryptoEngine =>
  new pkijs.CryptoEngine({
    name: 'node',
    crypto: webcrypto,
  });

const toArrayBuffer = (bytes: Buffer): ArrayBuffer => new Uint8Array(bytes).buffer;

/**
 * A PKCS#12 (DER): the key in a PKCS8ShroudedKeyBag (the `encryptPkcs8` encryption), the
 * certificate and chain in a PBES2 AES-256-CBC EncryptedData, an HMAC-SHA-256 MAC. The key
 * bag and the leaf carry friendlyName and localKeyId (SHA-1 of the leaf DER).
 */
export async function buildPkcs12(input: BuildPkcs12Input): Promise<Buffer> {
  if (input.algorithm.startsWith('ML-DSA')) {
    throw new PkiError('unsupported', 'ML-DSA keys are not packed into PKCS#12 files');
  }
  const crypto = engine();
  const password = toArrayBuffer(Buffer.from(input.password, 'utf8'));
  const localKeyId = createHash('sha1').update(input.certDer).digest();
  const attributes = () => [
    new pkijs.Attribute({
      type: '1.2.840.113549.1.9.20',
      values: [new asn1js.BmpString({ value: input.friendlyName })],
    }),
    new pkijs.Attribute({
      type: '1.2.840.113549.1.9.21',
      values: [new asn1js.OctetString({ valueHex: toArrayBuffer(localKeyId) })],
    }),
  ];
  const encryptedKey = encryptPkcs8Der(
    pkcs8Of(input.algorithm, input.material, input.storedPublicKey),
    input.password,
  );
  const keyBag = new pkijs.SafeBag({
    bagId: '1.2.840.113549.1.12.10.1.2',
    bagValue: pkijs.PKCS8ShroudedKeyBag.fromBER(toArrayBuffer(encryptedKey)),
    bagAttributes: attributes(),
  });
  const certBags = [input.certDer, ...input.chainDers].map(
    (der, index) =>
      new pkijs.SafeBag({
        bagId: '1.2.840.113549.1.12.10.1.3',
        bagValue: new pkijs.CertBag({ parsedValue: pkijs.Certificate.fromBER(toArrayBuffer(der)) }),
        ...(index === 0 ? { bagAttributes: attributes() } : {}),
      }),
  );
  const authenticatedSafe = new pkijs.AuthenticatedSafe({
    parsedValue: {
      safeContents: [
        { privacyMode: 0, value: new pkijs.SafeContents({ safeBags: [keyBag] }) },
        { privacyMode: 1, value: new pkijs.SafeContents({ safeBags: certBags }) },
      ],
    },
  });
  await authenticatedSafe.makeInternalValues(
    {
      safeContents: [
        {},
        {
          password,
          contentEncryptionAlgorithm: { name: 'AES-CBC', length: 256 },
          hmacHashAlgorithm: 'SHA-256',
          iterationCount: PBKDF2_ITERATIONS,
        },
      ],
    },
    crypto,
  );
  const pfx = new pkijs.PFX({ parsedValue: { integrityMode: 0, authenticatedSafe } });
  await pfx.makeInternalValues(
    {
      password,
      iterations: PKCS12_MAC_ITERATIONS,
      pbkdf2HashAlgorithm: 'SHA-256',
      hmacHashAlgorithm: 'SHA-256',
    },
    crypto,
  );
  return Buffer.from(pfx.toSchema().toBER(false));
}
