import { api, isBase64Text, type CredentialRow } from '@ksp/contracts';
import { attrValue, nameText, valueOf, type Attribute } from './kmip.attributes.js';
import { LOCATE_PAGES, matchesAsked, type Collector } from './kmip.locate.js';
import { KmipError, optional, required, ttlv } from './kmip.message.js';
import { kmipUid, nameFrom, parse, twin, type ObjectHome, type OperationContext } from './kmip.op-context.js';
import { KEY_FORMAT_TYPE, OBJECT_TYPE, SECRET_DATA_TYPE, STATE, TAG } from './kmip.tags.js';
import type { Ttlv } from './kmip.ttlv.js';

/**
 * Secret Data over KMIP (docs/kmip.md#secret-data): the domain's credentials, those of the SMS
 * sub-console's credentials page. A Password is a credential of type `password` holding the
 * text; a Seed, which is bytes, is a credential of type `api-key` holding their Base64 and the
 * tag `kmip-seed`. Other credentials are not carried over KMIP. Each operation asks the check of
 * the credential call it is the twin of; Get's twin is the applications' read (`credential/value`,
 * credential:use), the one read that does not ask a console user's password again.
 */

/** The tag that marks a credential as a KMIP Seed: its value is the Base64 of the seed's bytes. */
export const SEED_TAG = 'kmip-seed';

/** The largest Secret Data KSP takes: its Base64 fits a credential's value (64 KiB of text). */
export const MAX_SECRET_BYTES = 48 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The Secret Data Type of a credential KMIP carries, or null for one it does not. */
function secretTypeOf(row: Pick<CredentialRow, 'type' | 'tags'>): number | null {
  if (row.type === 'password') return SECRET_DATA_TYPE.Password;
  if (row.type === 'api-key' && row.tags.includes(SEED_TAG)) return SECRET_DATA_TYPE.Seed;
  return null;
}

/** A registered Secret Data object: its type and its bytes (Opaque, or Raw, in clear). */
export function readSecretObject(object: Ttlv): { type: number; bytes: Buffer } {
  if (object.type !== 'Structure') throw new KmipError('InvalidField', 'Secret Data must be a Structure');
  const type = required(object, TAG.SecretDataType, 'Enumeration').value;
  if (type !== SECRET_DATA_TYPE.Password && type !== SECRET_DATA_TYPE.Seed)
    throw new KmipError('FeatureNotSupported', 'KSP keeps Secret Data of type Password (1) or Seed (2)');
  const block = required(object, TAG.KeyBlock, 'Structure');
  const format = required(block, TAG.KeyFormatType, 'Enumeration').value;
  if (format !== KEY_FORMAT_TYPE.Opaque && format !== KEY_FORMAT_TYPE.Raw)
    throw new KmipError('KeyFormatTypeNotSupported', 'Secret Data is registered as Opaque (or Raw) bytes');
  if (optional(block, TAG.KeyWrappingData, 'Structure'))
    throw new KmipError(
      'FeatureNotSupported',
      'wrapped Secret Data cannot be registered: register it in clear over the TLS connection',
    );
  const bytes = required(required(block, TAG.KeyValue, 'Structure'), TAG.KeyMaterial, 'ByteString').value;
  if (!bytes.length) throw new KmipError('InvalidField', 'Secret Data is empty');
  if (bytes.length > MAX_SECRET_BYTES)
    throw new KmipError(
      'InvalidField',
      `Secret Data is ${bytes.length} bytes, over the ${MAX_SECRET_BYTES} KSP takes`,
    );
  return { type, bytes };
}

function secretAttributes(row: CredentialRow): Attribute[] {
  const out: Attribute[] = [];
  const add = (name: string, value: Ttlv) => out.push({ name, index: 0, value });
  add('Unique Identifier', attrValue.text('Unique Identifier', kmipUid('secret', row.id)));
  add('Name', attrValue.name(row.name));
  add('Object Type', attrValue.enumeration('Object Type', OBJECT_TYPE.SecretData));
  // A credential is in use from its creation until it expires (KSP keeps no other state for it).
  add('State', attrValue.enumeration('State', row.expired ? STATE.Deactivated : STATE.Active));
  add('Initial Date', attrValue.date('Initial Date', new Date(row.created_at)));
  add('Activation Date', attrValue.date('Activation Date', new Date(row.created_at)));
  add('Last Change Date', attrValue.date('Last Change Date', new Date(row.updated_at)));
  if (row.expires_at) add('Deactivation Date', attrValue.date('Deactivation Date', new Date(row.expires_at)));
  return out;
}

/** A credential KMIP carries, read without a record (its twin's check is already asked), or Item Not Found. */
async function carried(ctx: OperationContext, id: string) {
  const row = await ctx.credentials.detail(ctx.actor, id);
  const type = secretTypeOf(row);
  if (type === null)
    throw new KmipError(
      'ItemNotFound',
      `${kmipUid('secret', id)} is a credential of type ${row.type}, which KMIP does not carry`,
    );
  return { row, type };
}

export const secrets: ObjectHome = {
  listCall: api.credential.list,

  async register(ctx: OperationContext, attrs: Attribute[], object: Ttlv) {
    const { type, bytes } = readSecretObject(object);
    try {
      let value: string;
      if (type === SECRET_DATA_TYPE.Seed) value = bytes.toString('base64');
      else
        try {
          value = utf8.decode(bytes);
        } catch {
          throw new KmipError(
            'InvalidField',
            'a Password is kept as text: its bytes must be UTF-8 (register other bytes as a Seed)',
          );
        }
      await twin(ctx, api.credential.create);
      const body = parse(api.credential.create, {
        name: nameFrom(attrs),
        type: type === SECRET_DATA_TYPE.Seed ? 'api-key' : 'password',
        value,
        tags: type === SECRET_DATA_TYPE.Seed ? [SEED_TAG] : [],
      });
      const row = await ctx.credentials.create(ctx.actor, ctx.meta, body);
      return kmipUid('secret', row.id);
    } finally {
      bytes.fill(0);
    }
  },

  async get(ctx: OperationContext, id: string, payload) {
    const format = optional(payload, TAG.KeyFormatType, 'Enumeration')?.value;
    if (format !== undefined && format !== KEY_FORMAT_TYPE.Opaque)
      throw new KmipError('KeyFormatTypeNotSupported', 'Secret Data is answered as Opaque bytes only');
    if (optional(payload, TAG.KeyWrappingSpecification, 'Structure'))
      throw new KmipError(
        'FeatureNotSupported',
        'Secret Data is answered in clear over the TLS connection only',
      );
    await twin(ctx, api.credential.value);
    const { type } = await carried(ctx, id);
    const opened = await ctx.credentials.readValue(ctx.actor, ctx.meta, parse(api.credential.value, { id }));
    if (type === SECRET_DATA_TYPE.Seed && !isBase64Text(opened.value))
      throw new KmipError(
        'IllegalOperation',
        `the value of ${kmipUid('secret', id)} is not Base64, so it is not a Seed: remove its tag ${SEED_TAG}`,
      );
    const bytes = Buffer.from(opened.value, type === SECRET_DATA_TYPE.Seed ? 'base64' : 'utf8');
    return ttlv.structure(TAG.SecretData, [
      ttlv.enumeration(TAG.SecretDataType, type),
      ttlv.structure(TAG.KeyBlock, [
        ttlv.enumeration(TAG.KeyFormatType, KEY_FORMAT_TYPE.Opaque),
        ttlv.structure(TAG.KeyValue, [ttlv.bytes(TAG.KeyMaterial, bytes)]),
      ]),
    ]);
  },

  async attributes(ctx: OperationContext, id: string) {
    await twin(ctx, api.credential.detail);
    return secretAttributes((await carried(ctx, id)).row);
  },

  async destroy(ctx: OperationContext, id: string) {
    await twin(ctx, api.credential.delete);
    await carried(ctx, id);
    await ctx.credentials.remove(ctx.actor, ctx.meta, [id]);
  },

  async locate(ctx: OperationContext, asked: Attribute[], found: Collector) {
    const name = valueOf(asked, 'Name');
    for (let page = 1; page <= LOCATE_PAGES; page++) {
      const list = await ctx.credentials.list(ctx.actor, {
        page,
        page_size: 100,
        ...(name ? { name: nameText(name).slice(0, 64) } : {}),
      });
      for (const row of list.data)
        if (secretTypeOf(row) !== null && matchesAsked(asked, secretAttributes(row)))
          found.add(kmipUid('secret', row.id));
      if (list.data.length < 100 || found.full()) break;
    }
  },
};
