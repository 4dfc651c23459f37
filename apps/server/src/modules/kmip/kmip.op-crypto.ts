import { api, type CallDef } from '@ksp/contracts';

import { isV2 } from './kmip.attributes.js';
import { KmipError, optional, required, ttlv, type ProtocolVersion } from './kmip.message.js';

import { BLOCK_CIPHER_MODE, HASHING_ALGORITHM, PADDING_METHOD, TAG } from './kmip.tags.js';

import {
  type Structure,
  type KeyRow,
  type Handler,
  type OperationContext,
  twin,
  uid,
  uidItem,
  detail,
} from './kmip.op-context.js';

/** The Basic Cryptographic Server profile: Encrypt, Decrypt, Sign, Signature Verify, MAC, MAC Verify, RNG Retrieve. */

/* ---- cryptography ---- */

interface Params {
  mode?: number;
  padding?: number;
  hashing?: number;
  algorithm?: number;
  tagLength?: number;
  randomIv?: boolean;
}

function params(payload: Structure): Params {
  const p = optional(payload, TAG.CryptographicParameters, 'Structure');
  if (!p) return {};
  const e = (tag: number) => optional(p, tag, 'Enumeration')?.value;
  return {
    ...(e(TAG.BlockCipherMode) !== undefined ? { mode: e(TAG.BlockCipherMode)! } : {}),
    ...(e(TAG.PaddingMethod) !== undefined ? { padding: e(TAG.PaddingMethod)! } : {}),
    ...(e(TAG.HashingAlgorithm) !== undefined ? { hashing: e(TAG.HashingAlgorithm)! } : {}),
    ...(e(TAG.CryptographicAlgorithm) !== undefined ? { algorithm: e(TAG.CryptographicAlgorithm)! } : {}),
    ...(optional(p, TAG.TagLength, 'Integer')
      ? { tagLength: optional(p, TAG.TagLength, 'Integer')!.value }
      : {}),
    ...(optional(p, TAG.RandomIv, 'Boolean')
      ? { randomIv: optional(p, TAG.RandomIv, 'Boolean')!.value }
      : {}),
  };
}

function cipherMode(p: Params, version: ProtocolVersion): 'GCM' | 'CBC' | 'CTR' | 'OAEP' {
  const old = !isV2(version) && version.minor < 4;
  // Without a mode: GCM where the answer can carry its tag, CBC before.
  const mode = p.mode === undefined && p.padding !== PADDING_METHOD.OAEP && old ? 'CBC' : modeOf(p);
  // The tag travels in Authenticated Encryption Tag, which KMIP 1.4 brought.
  if (mode === 'GCM' && old)
    throw new KmipError(
      'FeatureNotSupported',
      'GCM needs KMIP 1.4 or later (its tag has no field before); use CBC or CTR',
    );
  return mode;
}

function modeOf(p: Params): 'GCM' | 'CBC' | 'CTR' | 'OAEP' {
  if (p.padding === PADDING_METHOD.OAEP) {
    if (p.hashing !== undefined && p.hashing !== HASHING_ALGORITHM.SHA256)
      throw new KmipError('FeatureNotSupported', 'RSA-OAEP is offered with SHA-256 only');
    return 'OAEP';
  }
  if (p.mode === undefined) return 'GCM';
  const mode = Object.entries(BLOCK_CIPHER_MODE).find(([, v]) => v === p.mode)?.[0];
  if (mode === 'GCM' || mode === 'CBC' || mode === 'CTR') return mode;
  throw new KmipError(
    'FeatureNotSupported',
    `Block Cipher Mode ${mode ?? p.mode} is not offered (GCM, CBC, CTR)`,
  );
}

function cipherPadding(p: Params, mode: string): 'PKCS5' | 'None' {
  if (mode !== 'CBC') return 'None';
  if (p.padding === undefined || p.padding === PADDING_METHOD.PKCS5) return 'PKCS5';
  if (p.padding === PADDING_METHOD.None) return 'None';
  throw new KmipError('FeatureNotSupported', 'CBC takes PKCS5 padding or none');
}

const bytesOf = (payload: Structure, tag: number) => optional(payload, tag, 'ByteString')?.value;

/** Encrypt or Decrypt: the caller's mode, padding, IV, additional data and tag. */
const cipher =
  (op: 'encrypt' | 'decrypt'): Handler =>
  async (ctx, payload) => {
    const id = uid(ctx, payload);
    const p = params(payload);
    const mode = cipherMode(p, ctx.version);
    await twin(ctx, op === 'encrypt' ? api.crypto.encrypt : api.crypto.decrypt);
    const out = await ctx.crypto.kmipCipher(ctx.actor, ctx.meta, op, {
      key_id: id,
      mode,
      padding: cipherPadding(p, mode),
      data: required(payload, TAG.Data, 'ByteString').value,
      iv: bytesOf(payload, TAG.IvCounterNonce),
      aad: bytesOf(payload, TAG.AuthenticatedEncryptionAdditionalData),
      ...(op === 'encrypt'
        ? { tagLength: p.tagLength }
        : { tag: bytesOf(payload, TAG.AuthenticatedEncryptionTag) }),
    });
    ctx.touched.add(id);
    return [
      uidItem(id),
      ttlv.bytes(TAG.Data, out.data),
      ...(out.iv ? [ttlv.bytes(TAG.IvCounterNonce, out.iv)] : []),
      ...(out.tag ? [ttlv.bytes(TAG.AuthenticatedEncryptionTag, out.tag)] : []),
    ];
  };

export const encrypt = cipher('encrypt');
export const decrypt = cipher('decrypt');

/** The REST signature options of KMIP's parameters: RSA PSS (default) or PKCS#1 v1.5, SHA-256. */
function signatureFields(p: Params) {
  if (p.hashing !== undefined && p.hashing !== HASHING_ALGORITHM.SHA256)
    throw new KmipError(
      'FeatureNotSupported',
      "signatures are offered with SHA-256 (RSA) or the curve's hash (EC)",
    );
  if (p.padding === PADDING_METHOD.PKCS1v15) return { rsa_padding: 'pkcs1v15' as const };
  if (p.padding === PADDING_METHOD.PSS) return { rsa_padding: 'pss' as const };
  return {};
}

const isRsaRow = (row: KeyRow) => row.algorithm.startsWith('RSA');

/** What Sign and Signature Verify ask the key service: the key, the data and an RSA key's padding. */
async function signingRequest(ctx: OperationContext, payload: Structure, call: CallDef) {
  const id = uid(ctx, payload);
  const p = params(payload);
  const row = await detail(ctx, id);
  await twin(ctx, call);
  return {
    key_id: id,
    data: required(payload, TAG.Data, 'ByteString').value.toString('base64'),
    ...(isRsaRow(row) ? signatureFields(p) : {}),
  };
}

export const sign: Handler = async (ctx, payload) => {
  const request = await signingRequest(ctx, payload, api.crypto.sign);
  const out = await ctx.crypto.sign(ctx.actor, ctx.meta, request);
  ctx.touched.add(request.key_id);
  return [uidItem(request.key_id), ttlv.bytes(TAG.SignatureData, Buffer.from(out.signature, 'base64'))];
};

export const signatureVerify: Handler = async (ctx, payload) => {
  const request = await signingRequest(ctx, payload, api.crypto.verify);
  const out = await ctx.crypto.verify(ctx.actor, ctx.meta, {
    ...request,
    signature: required(payload, TAG.SignatureData, 'ByteString').value.toString('base64'),
  });
  ctx.touched.add(request.key_id);
  return [uidItem(request.key_id), ttlv.enumeration(TAG.ValidityIndicator, out.valid ? 1 : 2)];
};

export const mac: Handler = async (ctx, payload) => {
  const id = uid(ctx, payload);
  await twin(ctx, api.crypto.mac);
  const out = await ctx.crypto.mac(ctx.actor, ctx.meta, {
    key_id: id,
    data: required(payload, TAG.Data, 'ByteString').value.toString('base64'),
  });
  ctx.touched.add(id);
  return [uidItem(id), ttlv.bytes(TAG.MacData, Buffer.from(out.mac, 'base64'))];
};

export const macVerify: Handler = async (ctx, payload) => {
  const id = uid(ctx, payload);
  await twin(ctx, api.crypto.macVerify);
  const given = required(payload, TAG.MacData, 'ByteString').value;
  if (given.length < 4) return [uidItem(id), ttlv.enumeration(TAG.ValidityIndicator, 2)];
  const out = await ctx.crypto.macVerify(ctx.actor, ctx.meta, {
    key_id: id,
    data: required(payload, TAG.Data, 'ByteString').value.toString('base64'),
    mac: given.toString('base64'),
  });
  ctx.touched.add(id);
  return [uidItem(id), ttlv.enumeration(TAG.ValidityIndicator, out.valid ? 1 : 2)];
};

export const rngRetrieve: Handler = async (ctx, payload) => {
  const length = required(payload, TAG.DataLength, 'Integer').value;
  if (length < 1 || length > 1024) throw new KmipError('InvalidField', 'Data Length must be 1 to 1024 bytes');
  await twin(ctx, api.crypto.random);
  const out = await ctx.crypto.random(ctx.actor, ctx.meta, { bytes: length });
  return [ttlv.bytes(TAG.Data, Buffer.from(out.random, 'base64'))];
};
