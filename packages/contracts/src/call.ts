import type { z } from 'zod';
import type { Permission } from './permissions.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * `public`: no token (and allowed before initialization when `beforeInit`).
 * `session`: any signed-in user. Otherwise the permission the caller must hold (a misspelt
 * one does not type-check).
 */
export type Access = 'public' | 'session' | Permission;

/**
 * Where a call reaches. `domain`: objects and members of the caller's current domain only.
 * `system`: global settings, domains, directory connections: only a session signed in to
 * the root domain may make it (a domain administrator elsewhere is refused with 4030).
 */
export type Scope = 'domain' | 'system';

/**
 * What kind of token a caller holds. `session`: a console sign-in. `kadp`, `sms`, `cte`
 * (TDE), `rdm` and `kms`: a sub-console token limited to its own area (areas.ts). `app`: an application token from
 * `open_api/app-login`, limited to the crypto API and the reads an application needs.
 * A token keeps its kind for life: refresh and domain switch answer a token of the same kind.
 * `kmip`: not a token but a KMIP client's certificate (docs/kmip.md); a call that lists it is
 * the twin of a KMIP operation, and the KMIP listener asks the same check of it.
 * `database`: a TDE database client's access token (docs/tde-database.md), accepted only by the
 * key endpoint's calls (`dbKeyCalls`), which ask the same check of it.
 */
export const tokenKinds = ['session', 'kadp', 'sms', 'cte', 'rdm', 'kms', 'app', 'kmip', 'database'] as const;
export type TokenKind = (typeof tokenKinds)[number];
/** Calls every kind of token may make: the token's own life and the caller's identity. */
export const ANY_TOKEN: readonly TokenKind[] = tokenKinds.filter(
  (kind) => kind !== 'kmip' && kind !== 'database',
);
/** Calls an application token may make besides a console session. */
export const APP_TOKEN: readonly TokenKind[] = ['session', 'app'];

export interface CallDef<
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  D extends z.ZodType = z.ZodType,
> {
  method: Method;
  path: string;
  summary: string;
  tag: string;
  access: Access;
  /** Default `domain`. */
  scope?: Scope;
  /** The token kinds allowed (ignored for public calls). Default: a console session only. */
  tokens?: readonly TokenKind[];
  /**
   * A sign-in (password, app secret, UKEY signature): rate limited per username and per
   * address, answering HTTP 429 with Retry-After beyond the limit.
   */
  signIn?: boolean;
  /** Answer even before the system is initialized and activated. */
  beforeInit?: boolean;
  /** Multipart upload: the body is parsed by the route, not by a schema. */
  multipart?: boolean;
  /**
   * The answer is a file streamed as it is made (no envelope, no size limit): the content
   * types it may have. Refusals and bad input still answer the JSON envelope. `data` then
   * describes nothing and is `z.never()`.
   */
  download?: readonly string[];
  /**
   * Whether the call may change what sessions depend on (users, roles, domains, settings), so
   * the node forgets its cached sessions once it has answered (see `changesAccessOf`).
   * Default: true for every method but GET, false for GET. Calls that only touch their own
   * objects (keys, cryptographic operations) say `false`.
   */
  changesAccess?: boolean;
  /**
   * Allowed while the caller must change a password that was reset or expired; every other
   * call answers 4003 until then. Default: not allowed (ignored for public calls).
   */
  beforePasswordChange?: true;
  query?: Q;
  body?: B;
  data: D;
}

export function defineCall<
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  D extends z.ZodType = z.ZodType,
>(def: CallDef<Q, B, D>): CallDef<Q, B, D> {
  return def;
}

/**
 * The calls of one area that change its own objects, not access: each a POST with the
 * area's tag, permission and token kinds, `changesAccess: false`, a path, a summary, a body
 * and its answer.
 */
export function writeCallsOf(area: { tag: string; access: Access; tokens: readonly TokenKind[] }) {
  return <B extends z.ZodType, D extends z.ZodType>(call: {
    path: string;
    summary: string;
    body: B;
    data: D;
  }): CallDef<undefined, B, D> =>
    defineCall({
      method: 'POST',
      path: call.path,
      summary: call.summary,
      ...area,
      changesAccess: false,
      body: call.body,
      data: call.data,
    });
}

export type QueryOf<C> =
  C extends CallDef<infer Q, z.ZodType | undefined, z.ZodType>
    ? Q extends z.ZodType
      ? z.input<Q>
      : undefined
    : never;
export type BodyOf<C> =
  C extends CallDef<z.ZodType | undefined, infer B, z.ZodType>
    ? B extends z.ZodType
      ? z.input<B>
      : undefined
    : never;
/** The body a handler receives: parsed, with the schema's defaults applied (what services take). */
export type Input<C> =
  C extends CallDef<z.ZodType | undefined, infer B, z.ZodType>
    ? B extends z.ZodType
      ? z.output<B>
      : undefined
    : never;
/** The query a handler receives: parsed and coerced, with the schema's defaults applied. */
export type QueryInput<C> =
  C extends CallDef<infer Q, z.ZodType | undefined, z.ZodType>
    ? Q extends z.ZodType
      ? z.output<Q>
      : undefined
    : never;
export type DataOf<C> =
  C extends CallDef<z.ZodType | undefined, z.ZodType | undefined, infer D> ? z.output<D> : never;

export const scopeOf = (call: Pick<CallDef, 'scope'>): Scope => call.scope ?? 'domain';
export const tokensOf = (call: Pick<CallDef, 'tokens'>): readonly TokenKind[] => call.tokens ?? ['session'];
/** Whether answering the call makes the node forget its cached sessions (default: not a GET). */
export const changesAccessOf = (call: Pick<CallDef, 'changesAccess' | 'method'>): boolean =>
  call.changesAccess ?? call.method !== 'GET';

/** The line docs/api.md gives each call: its scope and the token kinds it accepts. */
export function accessLineOf(call: CallDef): string {
  if (call.access === 'public') return '- **Scope / tokens**: none (public, no token)';
  const scope = scopeOf(call) === 'system' ? 'system (root domain sessions only)' : 'domain (current domain)';
  return `- **Scope / tokens**: ${scope}; token kinds: ${tokensOf(call)
    .map((k) => `\`${k}\``)
    .join(', ')}`;
}
