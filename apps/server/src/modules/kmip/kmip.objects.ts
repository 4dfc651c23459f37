import { createPrivateKey, createPublicKey } from 'node:crypto';
import type { z } from 'zod';
import { algorithmInfo, type AlgorithmId, type KeyRow as KeyRowSchema, type KeyState } from '@ksp/contracts';

type KeyRow = z.output<typeof KeyRowSchema>;
import { ATTRIBUTES, attrValue, type Attribute, type AttributeName } from './kmip.attributes.js';
import { KmipError, ttlv } from './kmip.message.js';
import { CRYPTOGRAPHIC_ALGORITHM, KEY_FORMAT_TYPE, OBJECT_TYPE, STATE, TAG } from './kmip.tags.js';
import type { Ttlv } from './kmip.ttlv.js';

/** Link Type values (a private key links to its public key and the other way round). */
const LINK_TYPE = { PublicKeyLink: 0x102, PrivateKeyLink: 0x103 } as const;

/** The label a key keeps its KMIP Object Group in (docs/kmip.md#attributes). */
export const OBJECT_GROUP_LABEL = 'kmip-object-group';

/** KSP's key states are KMIP's (docs/kmip.md#states): one to one. */
export const STATE_OF: Record<KeyState, number> = {
  'pre-active': STATE.PreActive,
  active: STATE.Active,
  deactivated: STATE.Deactivated,
  compromised: STATE.Compromised,
  destroyed: STATE.Destroyed,
  'destroyed-compromised': STATE.DestroyedCompromised,
};

export const OBJECT_TYPE_OF: Record<KeyRow['object_type'], number> = {
  symmetric: OBJECT_TYPE.SymmetricKey,
  public: OBJECT_TYPE.PublicKey,
  private: OBJECT_TYPE.PrivateKey,
};

const HMAC_OF: Record<number, AlgorithmId> = {
  [CRYPTOGRAPHIC_ALGORITHM.HmacSha256]: 'HMAC-SHA256',
  [CRYPTOGRAPHIC_ALGORITHM.HmacSha384]: 'HMAC-SHA384',
  [CRYPTOGRAPHIC_ALGORITHM.HmacSha512]: 'HMAC-SHA512',
};

const algorithmName = (value: number) =>
  Object.entries(CRYPTOGRAPHIC_ALGORITHM).find(([, v]) => v === value)?.[0] ?? `0x${value.toString(16)}`;

/**
 * The KSP algorithm of a KMIP algorithm and length (docs/kmip.md#algorithms): AES 128/192/256,
 * HMAC-SHA256/384/512, RSA 2048/3072/4096, EC or ECDSA on P-256/384/521. Others are refused.
 */
export function kspAlgorithm(algorithm: number | undefined, length: number | undefined): AlgorithmId {
  if (algorithm === undefined) throw new KmipError('MissingData', 'Cryptographic Algorithm is required');
  const hmac = HMAC_OF[algorithm];
  if (hmac) return hmac;
  const sizes: Record<number, [string, number[]]> = {
    [CRYPTOGRAPHIC_ALGORITHM.AES]: ['AES-', [128, 192, 256]],
    [CRYPTOGRAPHIC_ALGORITHM.RSA]: ['RSA-', [2048, 3072, 4096]],
    [CRYPTOGRAPHIC_ALGORITHM.EC]: ['EC-P', [256, 384, 521]],
    [CRYPTOGRAPHIC_ALGORITHM.ECDSA]: ['EC-P', [256, 384, 521]],
  };
  const known = sizes[algorithm];
  if (!known)
    throw new KmipError(
      'FeatureNotSupported',
      `Cryptographic Algorithm ${algorithmName(algorithm)} is not offered`,
    );
  if (length === undefined) throw new KmipError('MissingData', 'Cryptographic Length is required');
  if (!known[1].includes(length))
    throw new KmipError(
      'InvalidField',
      `Cryptographic Length ${length} is not offered for ${algorithmName(algorithm)} (${known[1].join(', ')})`,
    );
  return `${known[0]}${length}` as AlgorithmId;
}

/** The KMIP algorithm and length of a KSP key, or null for algorithms KMIP 1.x/2.0 does not name. */
export function kmipAlgorithm(
  algorithm: AlgorithmId,
  v2OrLater14: boolean,
): { algorithm: number; length: number } | null {
  const info = algorithmInfo(algorithm);
  const hmac = Object.entries(HMAC_OF).find(([, id]) => id === algorithm);
  if (hmac) return { algorithm: Number(hmac[0]), length: info.sizeBits };
  if (info.family === 'AES') return { algorithm: CRYPTOGRAPHIC_ALGORITHM.AES, length: info.sizeBits };
  if (info.family === 'RSA') return { algorithm: CRYPTOGRAPHIC_ALGORITHM.RSA, length: info.sizeBits };
  if (info.family === 'EC' && algorithm.startsWith('EC-P'))
    return {
      algorithm: v2OrLater14 ? CRYPTOGRAPHIC_ALGORITHM.EC : CRYPTOGRAPHIC_ALGORITHM.ECDSA,
      length: info.sizeBits,
    };
  return null;
}

const date = (iso: string | null) => (iso ? new Date(iso) : null);

/** The attributes of a key KSP answers (GetAttributes, GetAttributeList). */
export function keyAttributes(row: KeyRow, newEncoding: boolean): Attribute[] {
  const out: { name: string; value: Ttlv }[] = [];
  const add = (name: string, value: Ttlv | null) => {
    if (value) out.push({ name, value });
  };
  add('Unique Identifier', attrValue.text('Unique Identifier', row.id));
  add('Name', attrValue.name(row.name));
  add('Object Type', attrValue.enumeration('Object Type', OBJECT_TYPE_OF[row.object_type]));
  const alg = kmipAlgorithm(row.algorithm, newEncoding);
  if (alg) {
    add('Cryptographic Algorithm', attrValue.enumeration('Cryptographic Algorithm', alg.algorithm));
    add('Cryptographic Length', attrValue.integer('Cryptographic Length', alg.length));
  }
  add('Cryptographic Usage Mask', attrValue.integer('Cryptographic Usage Mask', row.usage_mask));
  add('State', attrValue.enumeration('State', STATE_OF[row.state]));
  add('Initial Date', attrValue.date('Initial Date', new Date(row.created_at)));
  add('Last Change Date', attrValue.date('Last Change Date', new Date(row.updated_at)));
  for (const [name, iso] of [
    ['Activation Date', row.activation_date],
    ['Deactivation Date', row.deactivation_date],
    ['Destroy Date', row.destroyed_at],
  ] as const) {
    const at = date(iso);
    if (at) add(name, attrValue.date(name, at));
  }
  if (row.state === 'compromised' || row.state === 'destroyed-compromised') {
    const at = date(row.deactivation_date ?? row.updated_at);
    if (at) add('Compromise Date', attrValue.date('Compromise Date', at));
  }
  const group = row.labels[OBJECT_GROUP_LABEL];
  if (group) add('Object Group', attrValue.text('Object Group', group));
  if (row.linked_key_id)
    add(
      'Link',
      ttlv.structure(TAG.Link, [
        ttlv.enumeration(
          TAG.LinkType,
          row.object_type === 'private' ? LINK_TYPE.PublicKeyLink : LINK_TYPE.PrivateKeyLink,
        ),
        ttlv.text(TAG.LinkedObjectIdentifier, row.linked_key_id),
      ]),
    );
  for (const [label, value] of Object.entries(row.labels))
    if (/^x-/.test(label)) add(label, attrValue.custom(label, value));
  return out.map((a) => ({ ...a, index: 0 }));
}

/** The names of the attributes a key has (GetAttributeList). */
export const keyAttributeNames = (row: KeyRow, newEncoding: boolean) => [
  ...new Set(keyAttributes(row, newEncoding).map((a) => a.name)),
];

export const knownAttribute = (name: string): name is AttributeName => Object.hasOwn(ATTRIBUTES, name);

/* ---- key material in and out ---- */

type Format = keyof typeof KEY_FORMAT_TYPE;
const formatName = (value: number): Format | undefined =>
  (Object.keys(KEY_FORMAT_TYPE) as Format[]).find((k) => KEY_FORMAT_TYPE[k] === value);

/**
 * The managed object a Get answers: a Symmetric Key (Raw or Transparent Symmetric Key), a
 * Private Key (PKCS#8, or PKCS#1 for RSA) or a Public Key (X.509 SubjectPublicKeyInfo, or PKCS#1
 * for RSA), in a Key Block with the algorithm and length. The answer holds its own copy of
 * `material`, which the caller zeroes.
 */
export async function managedObject(
  row: KeyRow,
  material: Buffer,
  asked: number | undefined,
  newEncoding: boolean,
  /** The key's material wrapped by another key (Get with a Key Wrapping Specification). */
  wrap?: (inner: Buffer) => Promise<{ wrapped: Buffer; wrappingData: Ttlv }>,
): Promise<{ objectType: number; object: Ttlv }> {
  const alg = kmipAlgorithm(row.algorithm, newEncoding);
  if (!alg) throw new KmipError('FeatureNotSupported', `${row.algorithm} keys cannot be carried over KMIP`);
  const wanted = asked === undefined ? undefined : formatName(asked);
  if (asked !== undefined && !wanted)
    throw new KmipError('KeyFormatTypeNotSupported', `Key Format Type ${asked} is not one KSP answers`);
  let format: Format;
  let keyMaterial: Ttlv;
  const rsa = algorithmInfo(row.algorithm).family === 'RSA';
  const refuse = (offered: string) =>
    new KmipError(
      'KeyFormatTypeNotSupported',
      `a ${row.object_type} ${row.algorithm} key is answered as ${offered}`,
    );
  if (row.object_type === 'symmetric') {
    format = wanted ?? 'Raw';
    if (format === 'Raw') keyMaterial = ttlv.bytes(TAG.KeyMaterial, Buffer.from(material));
    else if (format === 'TransparentSymmetricKey')
      keyMaterial = ttlv.structure(TAG.KeyMaterial, [ttlv.bytes(TAG.Key, Buffer.from(material))]);
    else throw refuse('Raw or TransparentSymmetricKey');
  } else if (row.object_type === 'private') {
    format = wanted ?? (rsa ? 'Pkcs1' : 'Pkcs8');
    if (format === 'Pkcs8') keyMaterial = ttlv.bytes(TAG.KeyMaterial, Buffer.from(material));
    else if (format === 'Pkcs1' && rsa)
      keyMaterial = ttlv.bytes(
        TAG.KeyMaterial,
        createPrivateKey({ key: material, format: 'der', type: 'pkcs8' }).export({
          format: 'der',
          type: 'pkcs1',
        }),
      );
    else throw refuse(rsa ? 'Pkcs1 or Pkcs8' : 'Pkcs8');
  } else {
    format = wanted ?? (rsa ? 'Pkcs1' : 'X509');
    if (format === 'X509') keyMaterial = ttlv.bytes(TAG.KeyMaterial, Buffer.from(material));
    else if (format === 'Pkcs1' && rsa)
      keyMaterial = ttlv.bytes(
        TAG.KeyMaterial,
        createPublicKey({ key: material, format: 'der', type: 'spki' }).export({
          format: 'der',
          type: 'pkcs1',
        }),
      );
    else throw refuse(rsa ? 'Pkcs1 or X509' : 'X509');
  }
  let value: Ttlv = ttlv.structure(TAG.KeyValue, [keyMaterial]);
  let wrappingData: Ttlv[] = [];
  if (wrap) {
    if (keyMaterial.type !== 'ByteString')
      throw new KmipError('KeyFormatTypeNotSupported', 'a wrapped key is answered as Raw, Pkcs1 or Pkcs8');
    const out = await wrap(keyMaterial.value).finally(() => keyMaterial.value.fill(0));
    // The specification writes a wrapped Key Value as a bare Byte String; PyKMIP (and other
    // clients) read Key Value as a structure whatever the wrapping, so the wrapped bytes go in
    // its Key Material (docs/kmip.md#get).
    value = ttlv.structure(TAG.KeyValue, [ttlv.bytes(TAG.KeyMaterial, out.wrapped)]);
    wrappingData = [out.wrappingData];
  }
  const block = ttlv.structure(TAG.KeyBlock, [
    ttlv.enumeration(TAG.KeyFormatType, KEY_FORMAT_TYPE[format]),
    value,
    ttlv.enumeration(TAG.CryptographicAlgorithm, alg.algorithm),
    ttlv.integer(TAG.CryptographicLength, alg.length),
    ...wrappingData,
  ]);
  const tag = { symmetric: TAG.SymmetricKey, private: TAG.PrivateKey, public: TAG.PublicKey }[
    row.object_type
  ];
  return { objectType: OBJECT_TYPE_OF[row.object_type], object: ttlv.structure(tag, [block]) };
}

/** What a Register carries: the key's material in the import's terms. */
export interface RegisteredKey {
  objectType: 'symmetric' | 'private' | 'public';
  algorithm: number | undefined;
  length: number | undefined;
  format: 'raw' | 'pkcs8' | 'spki';
  content: Buffer;
}

/** Reads the Key Block of a registered Symmetric Key, Private Key or Public Key. */
export function readKeyObject(objectType: number, object: Ttlv): RegisteredKey {
  const kinds: Record<number, RegisteredKey['objectType']> = {
    [OBJECT_TYPE.SymmetricKey]: 'symmetric',
    [OBJECT_TYPE.PrivateKey]: 'private',
    [OBJECT_TYPE.PublicKey]: 'public',
  };
  const kind = kinds[objectType];
  if (!kind)
    throw new KmipError('FeatureNotSupported', 'KSP registers symmetric keys, private keys and public keys');
  if (object.type !== 'Structure')
    throw new KmipError('InvalidField', 'the managed object must be a Structure');
  const block = object.value.find((i) => i.tag === TAG.KeyBlock);
  if (!block || block.type !== 'Structure') throw new KmipError('MissingData', 'Key Block is required');
  const pick = (tag: number) => block.value.find((i) => i.tag === tag);
  const formatItem = pick(TAG.KeyFormatType);
  if (!formatItem || formatItem.type !== 'Enumeration')
    throw new KmipError('MissingData', 'Key Format Type is required');
  if (pick(TAG.KeyWrappingData))
    throw new KmipError(
      'FeatureNotSupported',
      'a wrapped key cannot be registered: register it in clear over the TLS connection',
    );
  const value = pick(TAG.KeyValue);
  if (!value || value.type !== 'Structure') throw new KmipError('MissingData', 'Key Value is required');
  const materialItem = value.value.find((i) => i.tag === TAG.KeyMaterial);
  if (!materialItem) throw new KmipError('MissingData', 'Key Material is required');
  const algItem = pick(TAG.CryptographicAlgorithm);
  const lenItem = pick(TAG.CryptographicLength);
  const format = formatName(formatItem.value);
  let content: Buffer;
  let as: RegisteredKey['format'];
  if (materialItem.type === 'ByteString') content = materialItem.value;
  else if (materialItem.type === 'Structure' && format === 'TransparentSymmetricKey') {
    const key = materialItem.value.find((i) => i.tag === TAG.Key);
    if (!key || key.type !== 'ByteString')
      throw new KmipError('MissingData', 'the transparent key needs its Key');
    content = key.value;
  } else throw new KmipError('KeyFormatTypeNotSupported', 'Key Material must be a Byte String');
  if (kind === 'symmetric') {
    if (format !== 'Raw' && format !== 'TransparentSymmetricKey')
      throw new KmipError(
        'KeyFormatTypeNotSupported',
        'a symmetric key is registered as Raw or TransparentSymmetricKey',
      );
    as = 'raw';
  } else if (kind === 'private') {
    if (format === 'Pkcs1')
      content = createPrivateKey({ key: content, format: 'der', type: 'pkcs1' }).export({
        format: 'der',
        type: 'pkcs8',
      });
    else if (format !== 'Pkcs8')
      throw new KmipError('KeyFormatTypeNotSupported', 'a private key is registered as Pkcs8 or Pkcs1 (RSA)');
    as = 'pkcs8';
  } else {
    if (format === 'Pkcs1')
      content = createPublicKey({ key: content, format: 'der', type: 'pkcs1' }).export({
        format: 'der',
        type: 'spki',
      });
    else if (format !== 'X509')
      throw new KmipError(
        'KeyFormatTypeNotSupported',
        'a public key is registered as X509 (SubjectPublicKeyInfo) or Pkcs1 (RSA)',
      );
    as = 'spki';
  }
  return {
    objectType: kind,
    algorithm: algItem?.type === 'Enumeration' ? algItem.value : undefined,
    length: lenItem?.type === 'Integer' ? lenItem.value : undefined,
    format: as,
    content,
  };
}
