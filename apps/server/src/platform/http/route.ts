import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Code, formatMessage, TOKEN_HEADER, type CallDef, type Language } from '@ksp/contracts';
import { KspError, UnauthorizedError } from '../errors.js';
import { requestLanguage } from './language.js';

/** Who is calling, resolved from the session token. */
export interface Actor {
  userId: string;
  username: string;
  domainId: string;
  domainName: string;
  sessionId: string;
  permissions: ReadonlySet<string>;
  mustChangePassword: boolean;
  directory: string | null;
  /** 'console', or the sub-console a scoped token is limited to. */
  scope: string;
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
      reason: 'system.notInitialized' | 'system.notActivated' | 'system.sealed';
      params?: Record<string, string>;
    };

export interface Gatekeeper {
  readiness(): Promise<Readiness>;
  authenticate(token: string, meta: RequestMeta): Promise<Actor>;
  /** Something that sessions depend on may have changed: forget what was cached about them. */
  accessChanged(): void;
}

/**
 * Calls of these areas cannot change sessions, users, roles or domains; every other call
 * that is not a GET makes the node forget its cached sessions before it answers.
 */
const accessNeutralTags: ReadonlySet<string> = new Set(['crypto', 'key']);

/** Calls a user who must change the password may still make (the rest answer 4003). */
const allowedBeforePasswordChange = new Set([
  '/v1/ksp/user/info',
  '/v1/ksp/user/logout',
  '/v1/ksp/user/update-my-password',
  '/v1/ksp/user/password-rules',
  '/v1/ksp/token/refresh',
]);

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

/**
 * Registers one contract call: the guard (readiness, token, permission), the schemas,
 * and the envelope. The handler receives plain values and returns the `data`.
 */
export function registerCall<C extends CallDef>(
  app: FastifyInstance,
  gate: Gatekeeper,
  call: C,
  handler: (ctx: CallContext<C>) => Promise<z.output<C['data']>>,
): void {
  const envelope = z.object({ code: z.number(), msg: z.string(), data: call.data });
  const changesAccess = call.method !== 'GET' && !accessNeutralTags.has(call.tag);
  app.withTypeProvider<ZodTypeProvider>().route({
    method: call.method,
    url: call.path,
    config: { access: call.access },
    schema: {
      summary: call.summary,
      tags: [call.tag],
      ...(call.access === 'public' ? {} : { security: [{ token: [] }] }),
      ...(call.query ? { querystring: call.query } : {}),
      ...(call.body && !call.multipart ? { body: call.body } : {}),
      response: { 200: envelope },
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
      if (actor.mustChangePassword && !allowedBeforePasswordChange.has(call.path)) {
        throw new KspError(Code.PASSWORD_CHANGE_REQUIRED, 'auth.passwordChangeRequired');
      }
      if (call.access !== 'session' && !actor.permissions.has(call.access)) {
        throw new KspError(Code.FORBIDDEN, 'auth.forbidden', { permission: call.access });
      }
    },
    handler: async (req: FastifyRequest) => {
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
      } finally {
        if (changesAccess) gate.accessChanged();
      }
      return { code: Code.OK, msg: formatMessage('ok', req.ksp.meta.lang), data };
    },
  });
}
