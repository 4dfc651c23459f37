import type { z } from 'zod';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * `public`: no token (and allowed before initialization when `beforeInit`).
 * `session`: any signed-in user. Otherwise the permission the caller must hold.
 */
export type Access = 'public' | 'session' | `${string}:${string}`;

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
  /** Answer even before the system is initialized and activated. */
  beforeInit?: boolean;
  /** Multipart upload: the body is parsed by the route, not by a schema. */
  multipart?: boolean;
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
export type DataOf<C> =
  C extends CallDef<z.ZodType | undefined, z.ZodType | undefined, infer D> ? z.output<D> : never;
