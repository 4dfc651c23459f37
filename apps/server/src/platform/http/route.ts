import type { Readable } from 'node:stream';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  preHandlerAsyncHookHandler,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  changesAccessOf,
  Code,
  formatMessage,
  scopeOf,
  TOKEN_HEADER,
  tokensOf,
  type CallDef,
  type Language,
  type MessageKey,
  type MessageParams,
  type TokenKind,
} from '@ksp/contracts';
import { KspError, UnauthorizedError } from '../errors.js';
import { requestLanguage } from './language.js';

/** Who is calling, resolved from the session token. */
export interface Actor {
  userId: string;
  username: string;
  domainId: string;
  domainName: string;
  /** The session's id; for a KMIP client (kind `kmip`), the serial of its certificate. */
  sessionId: string;
  permissions: ReadonlySet<string>;
  mustChangePassword: boolean;
  directory: string | null;
  /** The kind of token the call came with; it keeps it for life (refresh, domain switch). */
  kind: TokenKind;
  /** Signed in to the root domain: may make system-scope calls (global settings, domains). */
  systemScope: boolean;
}

export interface RequestMeta {
  ip: string;
  lang: Language;
  userAgent: string;
}

type Out<T> = [T] extends [undefined] ? undefined : z.output<NonNullable<T>>;

export interface CallContext<C extends CallDef> {
  query: Out<C['query']>;
  body: Out<C['body']>;
  actor: C['access'] extends 'public' ? Actor | null : Actor;
  meta: RequestMeta;
  token: string | null;
  /** Only for multipart calls: the raw request, to stream the upload. */
  request: FastifyRequest;
}

export type Readiness =
  | { ready: true }
  | {
      ready: false;
      /** system.notInitialized, system.notActivated, system.sealed or a system.hsm* reason. */
      reason: MessageKey;
      params?: Record<string, string>;
    };

export interface Gatekeeper {
  readiness(): Promise<Readiness>;
  authenticate(token: string, meta: RequestMeta): Promise<Actor>;
  /** Something that sessions depend on may have changed: forget what was cached about them. */
  accessChanged(): void;
  /** Rate limits of sign-in calls (per username, per address), run once the body is parsed. */
  signInLimits: preHandlerAsyncHookHandler[];
  /** Records a refused call (4030) in the audit log; answered only once it is committed. */
  refused(refusal: Refusal): Promise<void>;
}

export interface Refusal {
  actor: Actor;
  meta: RequestMeta;
  /** The call's path, e.g. `/v1/ksp/user/create`. */
  path: string;
  /** The message key of the refusal, e.g. `auth.forbidden`. */
  reason: string;
  params: MessageParams;
}

declare module 'fastify' {
  interface FastifyRequest {
    ksp: { actor: Actor | null; meta: RequestMeta; token: string | null };
  }
  interface FastifyContextConfig {
    /** Every route declares who may call it; a test fails on a route without it. */
    access?: CallDef['access'];
  }
}

export function requestMeta(req: FastifyRequest): RequestMeta {
  return {
    ip: req.ip,
    lang: requestLanguage(req),
    userAgent: String(req.headers['user-agent'] ?? '').slice(0, 256),
  };
}

/** The answer of a call whose contract says `download`: a file streamed as it is made. */
export class StreamedFile {
  constructor(
    readonly filename: string,
    readonly contentType: string,
    readonly stream: Readable,
  ) {}
}

/**
 * Registers one contract call: the guard (readiness, token, permission), the schemas,
 * and the envelope. The handler receives plain values and returns the `data` (a
 * `StreamedFile` for a `download` call, sent as it is without the envelope).
 */
/**
 * The one check of who may make a call, whatever protocol carries it (REST here; KMIP asks it
 * with the call its operation is the twin of): the token or certificate kind, the password
 * state, the scope (system-wide calls from the root domain only) and the permission. A refusal
 * is audited (`access.denied`, through the gate) and thrown as 4030.
 */
export async function authorizeCall(
  gate: Gatekeeper,
  call: CallDef,
  actor: Actor,
  meta: RequestMeta,
): Promise<void> {
  const refusal = refusalOf(call, actor);
  if (!refusal) return;
  if (refusal === 'password')
    throw new KspError(Code.PASSWORD_CHANGE_REQUIRED, 'auth.passwordChangeRequired');
  await gate.refused({ actor, meta, path: call.path, reason: refusal.reason, params: refusal.params });
  throw new KspError(Code.FORBIDDEN, refusal.reason, refusal.params);
}

/**
 * Whether `actor` passes `authorizeCall`'s check of `call`, asked without a refusal or a record:
 * for a request that reaches several kinds of objects at once and is answered those the caller
 * may see (a KMIP Locate naming no Object Type, docs/kmip.md#operations).
 */
export const mayCall = (call: CallDef, actor: Actor): boolean => refusalOf(call, actor) === null;

/** Why `actor` may not make `call`, in authorizeCall's order, or null when it may. */
function refusalOf(
  call: CallDef,
  actor: Actor,
): { reason: MessageKey; params: MessageParams } | 'password' | null {
  if (call.access === 'public') return null;
  if (!tokensOf(call).includes(actor.kind)) return { reason: 'auth.tokenKind', params: { kind: actor.kind } };
  if (actor.mustChangePassword && !call.beforePasswordChange) return 'password';
  if (scopeOf(call) === 'system' && !actor.systemScope)
    return { reason: 'auth.systemScope', params: { domain: actor.domainName } };
  if (call.access !== 'session' && !actor.permissions.has(call.access))
    return { reason: 'auth.forbidden', params: { permission: call.access } };
  return null;
}

export function registerCall<C extends CallDef>(
  app: FastifyInstance,
  gate: Gatekeeper,
  call: C,
  handler: (ctx: CallContext<C>) => Promise<z.output<C['data']> | StreamedFile>,
): void {
  const envelope = z.object({ code: z.number(), msg: z.string(), data: call.data });
  const changesAccess = changesAccessOf(call);
  const optionalBody = bodyIsOptional(call);
  app.withTypeProvider<ZodTypeProvider>().route({
    method: call.method,
    url: call.path,
    config: { access: call.access },
    ...(call.signIn ? { preHandler: gate.signInLimits } : {}),
    // No body where the body is optional is the same as an empty one.
    ...(optionalBody
      ? {
          preValidation: (req: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
            if (req.body === undefined || req.body === null) req.body = {};
            done();
          },
        }
      : {}),
    schema: {
      summary: call.summary,
      description: call.download
        ? `${describeAccess(call)} Answers the file itself (${call.download.join(' or ')}, with Content-Disposition: attachment), streamed, not the JSON envelope; refusals and bad input answer the envelope.`
        : describeAccess(call),
      tags: [call.tag],
      ...(call.access === 'public' ? {} : { security: [{ token: [] }] }),
      ...(call.query ? { querystring: call.query } : {}),
      ...(call.body && !call.multipart ? { body: call.body } : {}),
      ...(call.download ? {} : { response: { 200: envelope } }),
    },
    onRequest: async (req: FastifyRequest) => {
      const meta = requestMeta(req);
      req.ksp = { actor: null, meta, token: null };
      if (!call.beforeInit) {
        const state = await gate.readiness();
        if (!state.ready) throw new KspError(Code.NOT_INITIALIZED, state.reason, state.params);
      }
      const raw = req.headers[TOKEN_HEADER];
      const token = typeof raw === 'string' && raw.length > 0 ? raw : null;
      req.ksp.token = token;
      if (call.access === 'public') return;
      if (!token) throw new UnauthorizedError('auth.tokenMissing');
      const actor = await gate.authenticate(token, meta);
      req.ksp.actor = actor;
      await authorizeCall(gate, call, actor, meta);
    },
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      let data;
      try {
        data = await handler({
          query: req.query as Out<C['query']>,
          body: (call.multipart ? undefined : req.body) as Out<C['body']>,
          actor: req.ksp.actor as CallContext<C>['actor'],
          meta: req.ksp.meta,
          token: req.ksp.token,
          request: req,
        });
      } catch (err) {
        // Refusals decided inside a service (another domain's user, a scoped token) are audited too.
        if (err instanceof KspError && err.code === Code.FORBIDDEN && req.ksp.actor) {
          await gate.refused({
            actor: req.ksp.actor,
            meta: req.ksp.meta,
            path: call.path,
            reason: err.messageKey,
            params: err.params,
          });
        }
        throw err;
      } finally {
        if (changesAccess) gate.accessChanged();
      }
      if (call.download) {
        if (!(data instanceof StreamedFile)) throw new Error(`${call.path} answered no file`);
        const ascii = data.filename.replace(/[^\w.-]/g, '_');
        return reply
          .type(data.contentType)
          .header('content-disposition', `attachment; filename="${ascii}"`)
          .header('cache-control', 'no-store')
          .send(data.stream);
      }
      return { code: Code.OK, msg: formatMessage('ok', req.ksp.meta.lang), data };
    },
  });
}

/** Who may make a call, in the words of the OpenAPI description (`/docs`). */
export function describeAccess(call: CallDef): string {
  if (call.access === 'public') {
    return call.beforeInit ? 'Public: no token; answers before initialization.' : 'Public: no token.';
  }
  const permission = call.access === 'session' ? 'any signed-in user' : `permission \`${call.access}\``;
  const scope =
    scopeOf(call) === 'system'
      ? 'system scope (a session in the root domain; refused with 4030 elsewhere)'
      : "the caller's current domain";
  const kinds = tokensOf(call).join(', ');
  return `Who: ${permission}; scope: ${scope}; token kinds: ${kinds}. A refusal answers code 4030 and is audited.`;
}

/** The call takes a JSON body that may be left out (the "no payload" calls of docs/api.md#conventions). */
export function bodyIsOptional(call: CallDef): boolean {
  return Boolean(call.body && !call.multipart && call.body.safeParse(undefined).success);
}
