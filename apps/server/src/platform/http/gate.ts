import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { auditRow, subjectOf } from '../audit.js';
import type { Clock, SessionService } from '../auth/session.service.js';
import type { KspConfig } from '../config.js';
import type { Journal } from '../db/journal.js';
import type { Gatekeeper, Readiness } from './route.js';

/** The username a sign-in body names (`username`, or `name` for a UKEY verification), for its limit. */
function signInName(req: FastifyRequest): string {
  const body = (req.body ?? {}) as { username?: unknown; name?: unknown; token?: unknown };
  // Online certificate issuing signs in with a registration token: counted per token (by
  // its hash, so the limiter's memory holds no secret).
  if (typeof body.token === 'string')
    return `token:${createHash('sha256').update(body.token.trim()).digest('hex').slice(0, 32)}`;
  const name = typeof body.username === 'string' ? body.username : body.name;
  return typeof name === 'string' ? name.trim().toLowerCase().slice(0, 512) : '';
}

/**
 * Sign-in limits (docs/security-model.md): counted in memory, per node. The plugin runs one
 * limiter per request and registration, so each limit gets its own encapsulated registration.
 */
async function signInLimits(
  app: FastifyInstance,
  rate: KspConfig['loginRate'],
): Promise<preHandlerAsyncHookHandler[]> {
  const limit = async (max: number, keyOf: (req: FastifyRequest) => string) => {
    let hook: preHandlerAsyncHookHandler | undefined;
    await app.register(async (scope) => {
      await scope.register(rateLimit, { global: false });
      hook = scope.rateLimit({
        max,
        timeWindow: 60_000,
        keyGenerator: keyOf,
        errorResponseBuilder: (_req, ctx) => ({ statusCode: 429, message: `retry in ${ctx.after}` }),
      });
    });
    return hook!;
  };
  return [await limit(rate.perUser, signInName), await limit(rate.perAddress, (req) => req.ip)];
}

/**
 * The gate every call passes (see `registerCall`): readiness, the session behind a token,
 * forgetting cached sessions, the sign-in limits, and the audited refusal.
 */
export async function createGatekeeper(deps: {
  app: FastifyInstance;
  loginRate: KspConfig['loginRate'];
  /** Read on each call, so the module that answers it may register after the gate is built. */
  readiness(): Promise<Readiness>;
  sessions: Pick<SessionService, 'authenticate' | 'forget'>;
  journal: Journal;
  clock: Clock;
}): Promise<Gatekeeper> {
  const { sessions, journal, clock } = deps;
  return {
    readiness: () => deps.readiness(),
    authenticate: (t, m) => sessions.authenticate(t, m),
    accessChanged: () => sessions.forget(),
    signInLimits: await signInLimits(deps.app, deps.loginRate),
    // Refusals ride the group commit: batched with other writes, answered once durable.
    refused: ({ actor, meta, path, reason, params }) =>
      journal.write({
        audit: [
          auditRow(
            {
              who: subjectOf(actor),
              action: 'access.denied',
              target: path,
              result: 'failure',
              ip: meta.ip,
              details: {
                reason,
                ...Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])),
                token_kind: actor.kind,
              },
            },
            clock(),
          ),
        ],
      }),
  };
}
