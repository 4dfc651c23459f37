import { api, type AlgorithmId, type CallDef } from '@ksp/contracts';
import type { z } from 'zod';
import { authorizeCall, type Actor, type Gatekeeper, type RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import { customText, isCustomName, isV2, nameText, valueOf, type Attribute } from './kmip.attributes.js';
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
  /** Keys the operation used (their "KMIP total" goes up by one each). */
  touched: Set<string>;
  /** The ID Placeholder: the Unique Identifier the previous item of the batch answered. */
  placeholder: string | null;
}

export type Handler = (ctx: OperationContext, payload: Structure) => Promise<Ttlv[]>;

/** The one check (platform/http/route.ts) of the REST call this operation is the twin of. */
export const twin = (ctx: OperationContext, call: CallDef) =>
  authorizeCall(ctx.gate, call, ctx.actor, ctx.meta);

/** The object an operation names, or the batch's ID Placeholder when it names none. */
export function uid(ctx: OperationContext, payload: Structure): string {
  const given = optional(payload, TAG.UniqueIdentifier, 'TextString')?.value;
  const id = given ?? ctx.placeholder;
  if (!id)
    throw new KmipError(
      'MissingData',
      'Unique Identifier is required (no earlier item of the batch made one)',
    );
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
    throw new KmipError('ItemNotFound', `no object has the Unique Identifier ${id.slice(0, 64)}`);
  return id;
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
