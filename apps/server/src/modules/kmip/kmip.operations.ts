import { api, type CallDef } from '@ksp/contracts';
import { mayCall } from '../../platform/http/route.js';

import {
  attributeContainer,
  attributeNameOf,
  customText,
  isCustomName,
  isV2,
  nameText,
  readAttribute,
  readAttributes,
  readTaggedAttribute,
  valueOf,
  writeAttribute,
  type Attribute,
} from './kmip.attributes.js';
import {
  all,
  KmipError,
  optional,
  required,
  SUPPORTED_VERSIONS,
  ttlv,
  type ProtocolVersion,
} from './kmip.message.js';
import {
  keyAttributes,
  kspAlgorithm,
  managedObject,
  OBJECT_GROUP_LABEL,
  OBJECT_TYPE_OF,
  readKeyObject,
  STATE_OF,
} from './kmip.objects.js';
import {
  BLOCK_CIPHER_MODE,
  CRYPTOGRAPHIC_ALGORITHM,
  OBJECT_TYPE,
  OPERATION,
  QUERY_FUNCTION,
  REVOCATION_REASON_CODE,
  TAG,
  tagName,
  type OperationName,
} from './kmip.tags.js';
import type { Ttlv } from './kmip.ttlv.js';

import { createCollector, LOCATE_PAGES, type Collector } from './kmip.locate.js';
import { certificates } from './kmip.op-certificate.js';
import { secrets } from './kmip.op-secret.js';
import {
  type Structure,
  type KeyRow,
  type OperationContext,
  type Handler,
  type ObjectHome,
  type ObjectKind,
  kmipUid,
  objectRef,
  twin,
  uid,
  parse,
  nameFrom,
  labelsFrom,
  intOf,
  usageFrom,
  activationFrom,
  uidItem,
  detail,
  newEncoding,
} from './kmip.op-context.js';
import { decrypt, encrypt, mac, macVerify, rngRetrieve, sign, signatureVerify } from './kmip.op-crypto.js';

export type { OperationContext } from './kmip.op-context.js';
/* ---- the operations ---- */

const create: Handler = async (ctx, payload) => {
  const objectType = required(payload, TAG.ObjectType, 'Enumeration').value;
  if (objectType !== OBJECT_TYPE.SymmetricKey)
    throw new KmipError('InvalidField', 'Create makes symmetric keys; use Create Key Pair for key pairs');
  const attrs = readAttributes(ctx.version, attributeContainer(ctx.version, payload));
  const algorithm = kspAlgorithm(
    intOf(attrs, 'Cryptographic Algorithm'),
    intOf(attrs, 'Cryptographic Length'),
  );
  await twin(ctx, api.key.create);
  const body = parse(api.key.create, {
    name: nameFrom(attrs),
    algorithm,
    usage_mask: usageFrom(attrs, algorithm, 0x04 | 0x08),
    state: 'pre-active',
    // A KMIP client makes a key to Get it (docs/kmip.md#get); Get still asks key:export.
    exportable: true,
    labels: labelsFrom(attrs),
    ...activationFrom(attrs),
  });
  const row = await ctx.keys.create(ctx.actor, ctx.meta, body);
  ctx.touched.add(row.id);
  ctx.placeholder = row.id;
  return [ttlv.enumeration(TAG.ObjectType, OBJECT_TYPE.SymmetricKey), uidItem(row.id)];
};

const createKeyPair: Handler = async (ctx, payload) => {
  const common = readAttributes(ctx.version, attributeContainer(ctx.version, payload, 'common'));
  const priv = readAttributes(ctx.version, attributeContainer(ctx.version, payload, 'private'));
  const pub = readAttributes(ctx.version, attributeContainer(ctx.version, payload, 'public'));
  const all3 = [...common, ...priv, ...pub];
  const algorithm = kspAlgorithm(intOf(all3, 'Cryptographic Algorithm'), intOf(all3, 'Cryptographic Length'));
  if (!/^(RSA|EC)-/.test(algorithm))
    throw new KmipError('InvalidField', `Create Key Pair makes RSA and EC keys, not ${algorithm}`);
  const mask =
    (intOf([...common, ...priv], 'Cryptographic Usage Mask') ?? 0x01) |
    (intOf([...common, ...pub], 'Cryptographic Usage Mask') ?? 0x02);
  await twin(ctx, api.key.create);
  const body = parse(api.key.create, {
    name: nameFrom([...priv, ...common]),
    algorithm,
    usage_mask: mask,
    state: 'pre-active',
    exportable: true,
    labels: labelsFrom(all3),
    ...activationFrom(all3),
  });
  const row = await ctx.keys.create(ctx.actor, ctx.meta, body);
  if (!row.linked_key_id) throw new KmipError('GeneralFailure', 'the key pair has no public half');
  ctx.touched.add(row.id);
  ctx.placeholder = row.id;
  return [
    ttlv.text(TAG.PrivateKeyUniqueIdentifier, row.id),
    ttlv.text(TAG.PublicKeyUniqueIdentifier, row.linked_key_id),
  ];
};

/** Where Register, Get, Get Attributes, Destroy and Locate find the managed objects that are not keys. */
const HOMES: Record<Exclude<ObjectKind, 'key'>, { objectType: number; tag: number; home: ObjectHome }> = {
  certificate: { objectType: OBJECT_TYPE.Certificate, tag: TAG.Certificate, home: certificates },
  secret: { objectType: OBJECT_TYPE.SecretData, tag: TAG.SecretData, home: secrets },
};
const homeOfType = (objectType: number | undefined) =>
  Object.values(HOMES).find((h) => h.objectType === objectType);

const register: Handler = async (ctx, payload) => {
  const objectType = required(payload, TAG.ObjectType, 'Enumeration').value;
  const attrs = readAttributes(ctx.version, attributeContainer(ctx.version, payload));
  const other = homeOfType(objectType);
  if (other) {
    const object = all(payload, other.tag)[0];
    if (!object) throw new KmipError('MissingData', `${tagName(other.tag)} is required`);
    const id = await other.home.register(ctx, attrs, object);
    ctx.placeholder = id;
    return [uidItem(id)];
  }
  const objectTag = {
    [OBJECT_TYPE.SymmetricKey]: TAG.SymmetricKey,
    [OBJECT_TYPE.PrivateKey]: TAG.PrivateKey,
    [OBJECT_TYPE.PublicKey]: TAG.PublicKey,
  }[objectType];
  if (!objectTag)
    throw new KmipError(
      'FeatureNotSupported',
      'KSP registers symmetric keys, private keys, public keys, certificates and secret data',
    );
  const object = all(payload, objectTag)[0];
  if (!object) throw new KmipError('MissingData', `${tagName(objectTag)} is required`);
  const key = readKeyObject(objectType, object);
  const algorithm = kspAlgorithm(
    key.algorithm ?? intOf(attrs, 'Cryptographic Algorithm'),
    key.length ?? intOf(attrs, 'Cryptographic Length'),
  );
  await twin(ctx, api.key.import);
  const body = parse(api.key.import, {
    name: nameFrom(attrs),
    algorithm,
    usage_mask: usageFrom(
      attrs,
      algorithm,
      key.objectType === 'public' ? 0x02 : key.objectType === 'private' ? 0x01 : 0x04 | 0x08,
    ),
    format: key.format,
    content: key.content.toString('base64'),
    state: 'pre-active',
    exportable: true,
    labels: labelsFrom(attrs),
    ...activationFrom(attrs),
  });
  key.content.fill(0);
  const row = await ctx.keys.import(ctx.actor, ctx.meta, body);
  ctx.touched.add(row.id);
  ctx.placeholder = row.id;
  return [uidItem(row.id)];
};

const get: Handler = async (ctx, payload) => {
  const ref = objectRef(ctx, payload);
  if (ref.kind !== 'key') {
    const { objectType, home } = HOMES[ref.kind];
    const object = await home.get(ctx, ref.id, payload);
    return [ttlv.enumeration(TAG.ObjectType, objectType), uidItem(kmipUid(ref.kind, ref.id)), object];
  }
  const id = ref.id;
  const format = optional(payload, TAG.KeyFormatType, 'Enumeration')?.value;
  const wrapping = wrappingOf(optional(payload, TAG.KeyWrappingSpecification, 'Structure'));
  await twin(ctx, api.key.export);
  if (wrapping) await twin(ctx, api.crypto.wrap);
  const exported = await ctx.keys.export.forKmip(
    ctx.actor,
    ctx.meta,
    id,
    wrapping ? `kmip:${wrapping.keyId}` : 'tls',
  );
  try {
    const row = await ctx.keys.detail(ctx.actor, id);
    const wrap = wrapping
      ? async (inner: Buffer) => {
          const out = await ctx.crypto.wrap(ctx.actor, ctx.meta, {
            key_id: wrapping.keyId,
            key_material: inner.toString('base64'),
          });
          ctx.touched.add(wrapping.keyId);
          return { wrapped: Buffer.from(out.wrapped, 'base64'), wrappingData: wrappingData(wrapping.keyId) };
        }
      : undefined;
    const { objectType, object } = await managedObject(
      row,
      exported.material,
      format,
      newEncoding(ctx),
      wrap,
    );
    ctx.touched.add(id);
    return [ttlv.enumeration(TAG.ObjectType, objectType), uidItem(id), object];
  } finally {
    exported.material.fill(0);
  }
};

/**
 * A Key Wrapping Specification KSP honours (docs/kmip.md#get): Wrapping Method Encrypt with an AES
 * key of the domain (AES Key Wrap with Padding, RFC 5649; its usage must allow Wrap Key), no
 * encoding.
 */
function wrappingOf(spec: Structure | undefined): { keyId: string } | null {
  if (!spec) return null;
  const method = required(spec, TAG.WrappingMethod, 'Enumeration').value;
  if (method !== 1)
    throw new KmipError('FeatureNotSupported', 'keys are wrapped with the Encrypt wrapping method only');
  if (optional(spec, TAG.MacSignatureKeyInformation, 'Structure'))
    throw new KmipError('FeatureNotSupported', 'MAC/signature key information is not offered');
  const encoding = optional(spec, TAG.EncodingOption, 'Enumeration')?.value;
  if (encoding !== undefined && encoding !== 1)
    throw new KmipError('FeatureNotSupported', 'a wrapped key is answered with No Encoding only');
  const info = required(spec, TAG.EncryptionKeyInformation, 'Structure');
  const keyId = required(info, TAG.UniqueIdentifier, 'TextString').value;
  const p = optional(info, TAG.CryptographicParameters, 'Structure');
  const mode = p ? optional(p, TAG.BlockCipherMode, 'Enumeration')?.value : undefined;
  if (mode !== undefined && mode !== BLOCK_CIPHER_MODE.AesKeyWrapPadding)
    throw new KmipError(
      'FeatureNotSupported',
      'keys are wrapped with AES Key Wrap with Padding (RFC 5649) only',
    );
  return { keyId };
}

const wrappingData = (keyId: string) =>
  ttlv.structure(TAG.KeyWrappingData, [
    ttlv.enumeration(TAG.WrappingMethod, 1),
    ttlv.structure(TAG.EncryptionKeyInformation, [
      ttlv.text(TAG.UniqueIdentifier, keyId),
      ttlv.structure(TAG.CryptographicParameters, [
        ttlv.enumeration(TAG.BlockCipherMode, BLOCK_CIPHER_MODE.AesKeyWrapPadding),
      ]),
    ]),
    ttlv.enumeration(TAG.EncodingOption, 1),
  ]);

/** The attribute names a GetAttributes asks for (1.x: names; 2.0: references by tag); none: all. */
function askedNames(ctx: OperationContext, payload: Structure): string[] | null {
  if (isV2(ctx.version)) {
    const refs = all(payload, TAG.AttributeReference);
    if (!refs.length) return null;
    return refs.map((ref) => {
      if (ref.type !== 'Enumeration')
        throw new KmipError('FeatureNotSupported', 'vendor attribute references are not supported');
      return attributeNameOf(ref.value);
    });
  }
  const names = all(payload, TAG.AttributeName).map((n) => {
    if (n.type !== 'TextString') throw new KmipError('InvalidField', 'Attribute Name must be a Text String');
    return n.value;
  });
  return names.length ? names : null;
}

/** The attributes of the object an operation names, each kind asking its twin's check (key/detail for a key). */
async function attributesOf(
  ctx: OperationContext,
  payload: Structure,
): Promise<{ uid: string; attrs: Attribute[] }> {
  const ref = objectRef(ctx, payload);
  if (ref.kind !== 'key')
    return { uid: kmipUid(ref.kind, ref.id), attrs: await HOMES[ref.kind].home.attributes(ctx, ref.id) };
  const row = await detail(ctx, ref.id);
  ctx.touched.add(ref.id);
  return { uid: ref.id, attrs: keyAttributes(row, newEncoding(ctx)) };
}

const getAttributes: Handler = async (ctx, payload) => {
  const { uid: id, attrs: every } = await attributesOf(ctx, payload);
  const asked = askedNames(ctx, payload);
  const attrs = every.filter((a) => !asked || asked.includes(a.name));
  const written = attrs
    .filter((a) => !(isV2(ctx.version) && isCustomName(a.name)))
    .map((a) => writeAttribute(ctx.version, a));
  return [uidItem(id), ...(isV2(ctx.version) ? [ttlv.structure(TAG.Attributes, written)] : written)];
};

const getAttributeList: Handler = async (ctx, payload) => {
  const { uid: id, attrs } = await attributesOf(ctx, payload);
  if (isV2(ctx.version))
    return [
      uidItem(id),
      ...attrs
        .filter((a) => !isCustomName(a.name))
        .map((a) => ttlv.enumeration(TAG.AttributeReference, a.value.tag)),
    ];
  return [uidItem(id), ...[...new Set(attrs.map((a) => a.name))].map((n) => ttlv.text(TAG.AttributeName, n))];
};

/** The attribute changes KSP keeps: Name (a rename), Object Group and custom attributes (labels). */
async function changeAttribute(
  ctx: OperationContext,
  id: string,
  attr: Attribute,
  how: 'add' | 'modify' | 'delete' | 'set',
) {
  const row = await detail(ctx, id);
  await twin(ctx, api.key.update);
  const labels = { ...row.labels };
  if (attr.name === 'Name') {
    if (how === 'delete')
      throw new KmipError('IllegalOperation', 'a KSP key keeps its one Name; modify it instead');
    if (how === 'add' && row.name)
      throw new KmipError('IllegalOperation', 'a KSP key has one Name; modify it instead');
    const body = parse(api.key.update, { id, name: nameText(attr.value) });
    return ctx.keys.update(ctx.actor, ctx.meta, body);
  }
  const label =
    attr.name === 'Object Group' ? OBJECT_GROUP_LABEL : isCustomName(attr.name) ? attr.name : null;
  if (!label)
    throw new KmipError(
      'IllegalOperation',
      `${attr.name} is set by KSP; only Name, Object Group and custom (x-) attributes change`,
    );
  const has = Object.hasOwn(labels, label);
  if (how === 'add' && has)
    throw new KmipError('IllegalOperation', `the key already has ${attr.name}; modify it instead`);
  if ((how === 'modify' || how === 'delete') && !has)
    throw new KmipError('ItemNotFound', `the key has no ${attr.name}`);
  if (how === 'delete') delete labels[label];
  else
    labels[label] =
      attr.name === 'Object Group' && attr.value.type === 'TextString' ? attr.value.value : customText(attr);
  return ctx.keys.update(ctx.actor, ctx.meta, parse(api.key.update, { id, labels }));
}

/** The attribute of an Add/Modify/Delete/Set Attribute request (1.x: an Attribute; 2.0: its own forms). */
function attributeOf(
  ctx: OperationContext,
  payload: Structure,
  form: 'plain' | 'new' | 'current',
): Attribute {
  if (!isV2(ctx.version)) {
    const item = all(payload, TAG.Attribute)[0];
    if (item) return readAttribute(item);
    const name = optional(payload, TAG.AttributeName, 'TextString');
    if (name) return { name: name.value, index: 0, value: ttlv.text(TAG.AttributeValue, '') };
    throw new KmipError('MissingData', 'Attribute is required');
  }
  const tag = { plain: TAG.Attribute, new: TAG.NewAttribute, current: TAG.CurrentAttribute }[form];
  const box = all(payload, tag)[0];
  if (box?.type === 'Structure' && box.value[0]) return readTaggedAttribute(box.value[0]);
  const ref = optional(payload, TAG.AttributeReference, 'Enumeration');
  if (ref) return readTaggedAttribute({ tag: ref.value, type: 'TextString', value: '' });
  throw new KmipError('MissingData', `${tagName(tag)} is required`);
}

/**
 * Add, Modify or Delete Attribute: one change of the attribute named in the request (Delete names
 * the value it removes), answered with the attribute in KMIP 1.x, without it in 2.
 */
const attributeChange =
  (how: 'add' | 'modify' | 'delete'): Handler =>
  async (ctx, payload) => {
    const id = uid(ctx, payload);
    const attr = attributeOf(ctx, payload, how === 'delete' ? 'current' : 'new');
    await changeAttribute(ctx, id, attr, how);
    ctx.touched.add(id);
    return isV2(ctx.version) ? [uidItem(id)] : [uidItem(id), writeAttribute(ctx.version, attr)];
  };
const setAttribute: Handler = async (ctx, payload) => {
  const id = uid(ctx, payload);
  const attr = attributeOf(ctx, payload, 'new');
  const row = await detail(ctx, id);
  const present = keyAttributes(row, true).some((a) => a.name === attr.name);
  await changeAttribute(ctx, id, attr, present ? 'modify' : 'add');
  ctx.touched.add(id);
  return [uidItem(id)];
};

/** An operation that names a key and changes its state through one key call, answering its id. */
const onKey =
  (call: CallDef, change: (ctx: OperationContext, id: string) => Promise<unknown>): Handler =>
  async (ctx, payload) => {
    const id = uid(ctx, payload);
    await twin(ctx, call);
    await change(ctx, id);
    ctx.touched.add(id);
    return [uidItem(id)];
  };

const activate = onKey(api.key.activate, (ctx, id) => ctx.keys.activate(ctx.actor, ctx.meta, id));
const destroyKey = onKey(api.key.destroy, (ctx, id) => ctx.keys.destroy(ctx.actor, ctx.meta, id));
const destroy: Handler = async (ctx, payload) => {
  const ref = objectRef(ctx, payload);
  if (ref.kind === 'key') return destroyKey(ctx, payload);
  await HOMES[ref.kind].home.destroy(ctx, ref.id);
  return [uidItem(kmipUid(ref.kind, ref.id))];
};
const reKey = onKey(api.key.addVersion, (ctx, id) => ctx.keys.addVersion(ctx.actor, ctx.meta, id));

const REASONS: Record<number, string> = {
  [REVOCATION_REASON_CODE.Unspecified]: 'unspecified',
  [REVOCATION_REASON_CODE.KeyCompromise]: 'key-compromise',
  [REVOCATION_REASON_CODE.CaCompromise]: 'ca-compromise',
  [REVOCATION_REASON_CODE.AffiliationChanged]: 'affiliation-changed',
  [REVOCATION_REASON_CODE.Superseded]: 'superseded',
  [REVOCATION_REASON_CODE.CessationOfOperation]: 'cessation-of-operation',
  [REVOCATION_REASON_CODE.PrivilegeWithdrawn]: 'privilege-withdrawn',
};

const revoke: Handler = async (ctx, payload) => {
  const id = uid(ctx, payload);
  const reason = required(payload, TAG.RevocationReason, 'Structure');
  const code = required(reason, TAG.RevocationReasonCode, 'Enumeration').value;
  const word = REASONS[code];
  if (!word) throw new KmipError('InvalidField', `Revocation Reason Code ${code} is not defined`);
  const message = optional(reason, TAG.RevocationMessage, 'TextString')?.value ?? '';
  await twin(ctx, api.key.disable);
  await ctx.keys.disable(
    ctx.actor,
    ctx.meta,
    parse(api.key.disable, { id, reason: word, message: message.slice(0, 512) }),
  );
  ctx.touched.add(id);
  return [uidItem(id)];
};

/**
 * Locate: the domain's objects whose attributes match all of those given (docs/kmip.md#operations).
 * An Object Type names one kind, asked with the check of that kind's list call; without one, keys
 * (key/list's check, as before) and then the certificates and secret data whose list call the
 * client may make.
 */
const locate: Handler = async (ctx, payload) => {
  const found = createCollector(
    optional(payload, TAG.MaximumItems, 'Integer')?.value,
    optional(payload, TAG.OffsetItems, 'Integer')?.value ?? 0,
  );
  const attrs = isV2(ctx.version)
    ? readAttributes(ctx.version, optional(payload, TAG.Attributes, 'Structure'))
    : all(payload, TAG.Attribute).map(readAttribute);
  const objectType = intOf(attrs, 'Object Type');
  const other = homeOfType(objectType);
  if (other) {
    await twin(ctx, other.home.listCall);
    await other.home.locate(ctx, attrs, found);
    return locatedAnswer(ctx, found.found, found.seen());
  }
  await twin(ctx, api.key.list);
  const type = Object.entries(OBJECT_TYPE_OF).find(([, v]) => v === objectType)?.[0];
  if (objectType !== undefined && !type) return locatedAnswer(ctx, [], 0);
  await locateKeys(ctx, attrs, type as KeyRow['object_type'] | undefined, found);
  if (objectType === undefined)
    for (const { home } of Object.values(HOMES))
      if (!found.full() && mayCall(home.listCall, ctx.actor)) await home.locate(ctx, attrs, found);
  return locatedAnswer(ctx, found.found, found.seen());
};

/** The keys (of `type`, or all) matching the attributes a Locate gives, newest first. */
async function locateKeys(
  ctx: OperationContext,
  attrs: Attribute[],
  type: KeyRow['object_type'] | undefined,
  found: Collector,
) {
  const name = valueOf(attrs, 'Name');
  const exactName = name ? nameText(name) : undefined;
  const algorithm = intOf(attrs, 'Cryptographic Algorithm');
  const length = intOf(attrs, 'Cryptographic Length');
  const state = intOf(attrs, 'State');
  const labels = labelsFrom(attrs.filter((a) => a.name !== 'Name'));
  // Attributes only a certificate has: no key matches them.
  if (valueOf(attrs, 'Certificate Type') || valueOf(attrs, 'Certificate Length')) return;
  const matches = (row: KeyRow) => {
    const attributes = keyAttributes(row, true);
    const num = (n: string) => {
      const v = attributes.find((a) => a.name === n)?.value;
      return v && (v.type === 'Integer' || v.type === 'Enumeration') ? v.value : undefined;
    };
    if (exactName !== undefined && row.name !== exactName) return false;
    if (algorithm !== undefined) {
      const has = num('Cryptographic Algorithm');
      const ecAlias = (a?: number) => (a === CRYPTOGRAPHIC_ALGORITHM.ECDSA ? CRYPTOGRAPHIC_ALGORITHM.EC : a);
      if (ecAlias(has) !== ecAlias(algorithm)) return false;
    }
    if (length !== undefined && num('Cryptographic Length') !== length) return false;
    if (state !== undefined && STATE_OF[row.state] !== state) return false;
    return Object.entries(labels).every(([k, v]) => row.labels[k] === v);
  };
  for (let page = 1; page <= LOCATE_PAGES; page++) {
    const list = await ctx.keys.list(ctx.actor, {
      page,
      page_size: 100,
      ...(exactName ? { name_prefix: exactName } : {}),
      ...(type ? { type } : {}),
      certificate_keys: 'show',
    });
    for (const row of list.data) if (matches(row)) found.add(row.id);
    if (list.data.length < 100 || found.full()) break;
  }
}

const locatedAnswer = (ctx: OperationContext, ids: string[], total: number) => [
  ...(isV2(ctx.version) || ctx.version.minor >= 3 ? [ttlv.integer(TAG.LocatedItems, total)] : []),
  ...ids.map(uidItem),
];

/* ---- the server itself ---- */

const discoverVersions: Handler = async (ctx, payload) => {
  await twin(ctx, api.crypto.noop);
  const asked = all(payload, TAG.ProtocolVersion).map((v) => {
    if (v.type !== 'Structure') throw new KmipError('InvalidField', 'Protocol Version must be a Structure');
    return {
      major: required(v, TAG.ProtocolVersionMajor, 'Integer').value,
      minor: required(v, TAG.ProtocolVersionMinor, 'Integer').value,
    };
  });
  const answer = asked.length
    ? asked.filter((a) => SUPPORTED_VERSIONS.some((s) => s.major === a.major && s.minor === a.minor))
    : SUPPORTED_VERSIONS;
  return answer.map((v) =>
    ttlv.structure(TAG.ProtocolVersion, [
      ttlv.integer(TAG.ProtocolVersionMajor, v.major),
      ttlv.integer(TAG.ProtocolVersionMinor, v.minor),
    ]),
  );
};

const query: Handler = async (ctx, payload) => {
  await twin(ctx, api.crypto.noop);
  const functions = all(payload, TAG.QueryFunction).map((f) => (f.type === 'Enumeration' ? f.value : -1));
  const out: Ttlv[] = [];
  if (functions.includes(QUERY_FUNCTION.Operations))
    for (const name of offeredOperations(ctx.version))
      out.push(ttlv.enumeration(TAG.Operation, OPERATION[name]));
  if (functions.includes(QUERY_FUNCTION.Objects))
    for (const t of [
      OBJECT_TYPE.SymmetricKey,
      OBJECT_TYPE.PublicKey,
      OBJECT_TYPE.PrivateKey,
      OBJECT_TYPE.Certificate,
      OBJECT_TYPE.SecretData,
    ])
      out.push(ttlv.enumeration(TAG.ObjectType, t));
  if (functions.includes(QUERY_FUNCTION.ServerInformation)) {
    out.push(ttlv.text(TAG.VendorIdentification, 'KSP'));
    out.push(ttlv.structure(TAG.ServerInformation, []));
  }
  return out;
};

/** Every operation KSP answers, by its code; any other answers Operation Not Supported. */
export const HANDLERS: Partial<Record<OperationName, Handler>> = {
  Create: create,
  CreateKeyPair: createKeyPair,
  Register: register,
  ReKey: reKey,
  Locate: locate,
  Get: get,
  GetAttributes: getAttributes,
  GetAttributeList: getAttributeList,
  AddAttribute: attributeChange('add'),
  ModifyAttribute: attributeChange('modify'),
  DeleteAttribute: attributeChange('delete'),
  SetAttribute: setAttribute,
  Activate: activate,
  Revoke: revoke,
  Destroy: destroy,
  Query: query,
  DiscoverVersions: discoverVersions,
  Encrypt: encrypt,
  Decrypt: decrypt,
  Sign: sign,
  SignatureVerify: signatureVerify,
  Mac: mac,
  MacVerify: macVerify,
  RngRetrieve: rngRetrieve,
};

/** The operations a version has (Set Attribute is 2.0's; the cryptographic ones 1.2's). */
export function offeredOperations(version: ProtocolVersion): OperationName[] {
  const crypto12: OperationName[] = [
    'Encrypt',
    'Decrypt',
    'Sign',
    'SignatureVerify',
    'Mac',
    'MacVerify',
    'RngRetrieve',
  ];
  return (Object.keys(HANDLERS) as OperationName[]).filter((name) => {
    if (name === 'SetAttribute') return isV2(version);
    if (name === 'DiscoverVersions') return isV2(version) || version.minor >= 1;
    if (crypto12.includes(name)) return isV2(version) || version.minor >= 2;
    return true;
  });
}

export const handlerOf = (operation: number, version: ProtocolVersion): Handler | undefined => {
  const name = (Object.keys(OPERATION) as OperationName[]).find((n) => OPERATION[n] === operation);
  return name && offeredOperations(version).includes(name) ? HANDLERS[name] : undefined;
};
