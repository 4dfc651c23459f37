import { api, type AlgorithmId, type CallDef } from '@ksp/contracts';
import type { z } from 'zod';
import { authorizeCall, type Actor, type Gatekeeper, type RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import { customText, isCustomName, isV2, nameText, valueOf, type Attribute } from './kmip.attributes.js';
import type { Collector } from './kmip.locate.js';
import { KmipError, optional, ttlv, type ProtocolVersion } from './kmip.message.js';
import { OBJECT_GROUP_LABEL } from './kmip.objects.js';
import { TAG } from './kmip.tags.js';
import type { Ttlv } from './kmip.ttlv.js';

/** What the KMIP operations share: the context, the twin check, reading fields into REST bodies. */

export type Structure = Ttlv & { type: 'Structure' };
export type KeyRow = z.output<typeof api.key.detail.data>;

/** What an operation runs with: the version of the request, the client, and KSP's services. */
export interface OperationContext {
  version: ProtocolVersion;
  actor: Actor;
  meta: RequestMeta;
  gate: Gatekeeper;
  keys: ModuleServices['keys'];
  crypto: ModuleServices['crypto'];
  /** Certificates are the domain's external CA certificates (docs/kmip.md#certificates). */
  certs: ModuleServices['certs'];
  /** Secret Data are the domain's credentials (docs/kmip.md#secret-data). */
  credentials: ModuleServices['credentials'];
  /** Keys the operation used (their "KMIP total" goes up by one each). */
  touched: Set<string>;
  /** The ID Placeholder: the Unique Identifier the previous item of the batch answered. */
  placeholder: string | null;
}

export type Handler = (ctx: OperationContext, payload: Structure) => Promise<Ttlv[]>;

/**
 * Where managed objects other than keys live (kmip.op-certificate.ts, kmip.op-secret.ts): each
 * method asks the check of its REST twin, then the owning module's service does the work.
 */
export interface ObjectHome {
  /** The list call Locate asks the check of. */
  listCall: CallDef;
  /** Stores a registered object; its Unique Identifier. */
  register(ctx: OperationContext, attrs: Attribute[], object: Ttlv): Promise<string>;
  /** The managed object a Get answers. */
  get(ctx: OperationContext, id: string, payload: Structure): Promise<Ttlv>;
  attributes(ctx: OperationContext, id: string): Promise<Attribute[]>;
  destroy(ctx: OperationContext, id: string): Promise<void>;
  /** Adds the identifiers of the objects matching `asked` (the list call's check already asked). */
  locate(ctx: OperationContext, asked: Attribute[], found: Collector): Promise<void>;
}

/** The one check (platform/http/route.ts) of the REST call this operation is the twin of. */
export const twin = (ctx: OperationContext, call: CallDef) =>
  authorizeCall(ctx.gate, call, ctx.actor, ctx.meta);

/** The kinds of managed object KSP keeps, each in its own home: keys, certificates, secret data. */
export type ObjectKind = 'key' | 'certificate' | 'secret';

/**
 * A managed object's Unique Identifier: a key's is its id; a certificate's and a secret's are
 * their row's id after a prefix naming the kind (docs/kmip.md#unique-identifiers), so that the
 * kind, and with it the REST twin, is read from the request alone.
 */
const PREFIX: Record<Exclude<ObjectKind, 'key'>, string> = { certificate: 'cert-', secret: 'secret-' };
const KIND_NAME: Record<ObjectKind, string> = {
  key: 'a key',
  certificate: 'a certificate',
  secret: 'secret data',
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const kmipUid = (kind: ObjectKind, id: string) => (kind === 'key' ? id : PREFIX[kind] + id);

/** The object an operation names (its kind and its row's id), or the batch's ID Placeholder when it names none. */
export function objectRef(ctx: OperationContext, payload: Structure): { kind: ObjectKind; id: string } {
  const given = optional(payload, TAG.UniqueIdentifier, 'TextString')?.value;
  const uid = given ?? ctx.placeholder;
  if (!uid)
    throw new KmipError(
      'MissingData',
      'Unique Identifier is required (no earlier item of the batch made one)',
    );
  for (const [kind, prefix] of Object.entries(PREFIX) as [ObjectKind, string][])
    if (uid.startsWith(prefix) && UUID.test(uid.slice(prefix.length)))
      return { kind, id: uid.slice(prefix.length) };
  if (!UUID.test(uid))
    throw new KmipError('ItemNotFound', `no object has the Unique Identifier ${uid.slice(0, 64)}`);
  return { kind: 'key', id: uid };
}

/** The key an operation that applies to keys only names (a certificate or secret data is refused). */
export function uid(ctx: OperationContext, payload: Structure): string {
  const ref = objectRef(ctx, payload);
  if (ref.kind !== 'key')
    throw new KmipError(
      'IllegalOperation',
      `${kmipUid(ref.kind, ref.id)} is ${KIND_NAME[ref.kind]}: this operation applies to keys only`,
    );
  return ref.id;
}

export const parse = <C extends CallDef>(call: C, body: unknown) => {
  const parsed = call.body!.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new KmipError(
      'InvalidField',
      `${issue?.path.join('.') || 'request'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data as z.output<NonNullable<C['body']>>;
};

/** A new key's name: the one given (its rules are the REST call's), or one KSP makes. */
export const nameFrom = (attrs: Attribute[], suffix = '') => {
  const name = valueOf(attrs, 'Name');
  return name ? nameText(name) + suffix : `kmip-${crypto.randomUUID().slice(0, 13)}${suffix}`;
};

/** The labels a request's Object Group and custom attributes become. */
export function labelsFrom(attrs: Attribute[]): Record<string, string> {
  const labels: Record<string, string> = {};
  const group = valueOf(attrs, 'Object Group');
  if (group?.type === 'TextString') labels[OBJECT_GROUP_LABEL] = group.value;
  for (const a of attrs) if (isCustomName(a.name)) labels[a.name] = customText(a);
  return labels;
}

export const intOf = (attrs: Attribute[], name: string) => {
  const v = valueOf(attrs, name);
  return v && (v.type === 'Integer' || v.type === 'Enumeration') ? v.value : undefined;
};

/** The usage mask asked for, or the algorithm's everyday one. */
export function usageFrom(attrs: Attribute[], algorithm: AlgorithmId, fallback: number): number {
  // A mask of 0 (PyKMIP sends one for an object given no usage) means none was asked for.
  return intOf(attrs, 'Cryptographic Usage Mask') || (algorithm.startsWith('HMAC') ? 0x80 | 0x100 : fallback);
}

export const activationFrom = (attrs: Attribute[]) => {
  const v = valueOf(attrs, 'Activation Date');
  if (!v) return {};
  if (v.type !== 'DateTime') throw new KmipError('InvalidField', 'Activation Date must be a Date-Time');
  const at = new Date(Number(v.value) * 1000);
  return at.getTime() <= Date.now() ? { state: 'active' as const } : { activation_date: at.toISOString() };
};

export const uidItem = (id: string) => ttlv.text(TAG.UniqueIdentifier, id);

export async function detail(ctx: OperationContext, id: string): Promise<KeyRow> {
  await twin(ctx, api.key.detail);
  return ctx.keys.detail(ctx.actor, id);
}

export const newEncoding = (ctx: OperationContext) => isV2(ctx.version) || ctx.version.minor >= 4;
