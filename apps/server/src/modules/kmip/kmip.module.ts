import { readFileSync } from 'node:fs';
import { api } from '@ksp/contracts';
import { auditRow } from '../../platform/audit.js';
import { registerCall } from '../../platform/http/route.js';
import type { KspModule, ModuleContext, ModuleServices } from '../../platform/module.js';
import { DEFAULT_KMIP_LIMITS, KMIP_LANGUAGE, startKmipListener, type KmipListener } from './kmip.listener.js';
import { SUPPORTED_VERSIONS } from './kmip.message.js';
import { createKmipProcessor } from './kmip.server.js';
import { DEFAULT_TTLV_LIMITS } from './kmip.ttlv.js';

type KmipIdentity = Awaited<ReturnType<ModuleServices['clients']['kmip']['identify']>>;

/** What each running server's KMIP side holds (tests run several servers in one process). */
interface Running {
  listener: KmipListener | null;
  certificatePem: string;
  flush: () => Promise<void>;
  timer: NodeJS.Timeout;
}
const running = new WeakMap<object, Running>();

/**
 * The "KMIP total" of keys and clients' last-seen times, added up in memory and written about once
 * a second (a crash loses at most that second's counts; docs/kmip.md#audit).
 */
function createTally(ctx: ModuleContext) {
  let keys = new Map<string, number>();
  let seen = new Set<string>();
  return {
    touched(ids: Iterable<string>) {
      for (const id of ids) keys.set(id, (keys.get(id) ?? 0) + 1);
    },
    seen(id: string) {
      seen.add(id);
    },
    async flush() {
      const [k, s] = [keys, seen];
      keys = new Map();
      seen = new Set();
      try {
        if (k.size) await ctx.use('keys').addKmipTotals(k);
        if (s.size) await ctx.use('clients').kmip.seen([...s], ctx.clock().toISOString());
      } catch (err) {
        ctx.log.warn({ err }, 'kmip: the KMIP totals could not be written');
      }
    },
  };
}

/** KMIP (docs/kmip.md): the KMIP clients' console calls and the KMIP listener. */
export const kmipModule: KspModule = {
  name: 'kmip',
  register(ctx) {
    const clients = () => ctx.use('clients');
    const { gate, app } = ctx;
    registerCall(app, gate, api.kmip.status, () => {
      const state = running.get(app);
      return Promise.resolve({
        listening: !!state?.listener,
        port: state?.listener?.port ?? null,
        versions: SUPPORTED_VERSIONS.map((v) => `${v.major}.${v.minor}`),
        server_certificate_pem: state?.listener ? state.certificatePem : '',
        limits: {
          max_message_bytes: DEFAULT_KMIP_LIMITS.maxMessageBytes,
          idle_seconds: ctx.config.kmip?.idleSeconds ?? DEFAULT_KMIP_LIMITS.idleSeconds,
          connections_per_client: DEFAULT_KMIP_LIMITS.connectionsPerClient,
          connections_total: DEFAULT_KMIP_LIMITS.connectionsTotal,
        },
      });
    });
    registerCall(app, gate, api.kmip.list, ({ actor, query }) => clients().kmip.list(actor, query));
    registerCall(app, gate, api.kmip.create, ({ actor, meta, body }) =>
      clients().kmip.create(actor, meta, body),
    );
    registerCall(app, gate, api.kmip.update, ({ actor, meta, body }) =>
      clients().kmip.update(actor, meta, body),
    );
    registerCall(app, gate, api.kmip.renew, ({ actor, meta, body }) =>
      clients().kmip.renew(actor, meta, body),
    );
    registerCall(app, gate, api.kmip.delete, ({ actor, meta, body }) =>
      clients().forceRemove(actor, meta, body.id, 'kmip'),
    );
  },

  async start(ctx) {
    const kmip = ctx.config.kmip;
    const tally = createTally(ctx);
    const timer = setInterval(() => void tally.flush(), 1000);
    timer.unref();
    const state: Running = { listener: null, certificatePem: '', flush: () => tally.flush(), timer };
    running.set(ctx.app, state);
    if (!kmip) return;
    if (!kmip.tls) {
      ctx.log.error(
        'KSP_KMIP_PORT is ignored: KMIP needs TLS (KSP_KMIP_CERT and KSP_KMIP_KEY, or KSP_TLS_CERT and KSP_TLS_KEY)',
      );
      return;
    }
    const cert = readFileSync(kmip.tls.cert, 'utf8');
    const processor = createKmipProcessor({
      gate: ctx.gate,
      keys: () => ctx.use('keys'),
      crypto: () => ctx.use('crypto'),
      certs: () => ctx.use('certs'),
      credentials: () => ctx.use('credentials'),
      limits: { ...DEFAULT_TTLV_LIMITS, maxBytes: DEFAULT_KMIP_LIMITS.maxMessageBytes },
      log: ctx.log,
      now: () => ctx.clock(),
      touched: (ids) => tally.touched(ids),
    });
    state.certificatePem = cert;
    state.listener = await startKmipListener({
      host: ctx.config.host,
      port: kmip.port,
      cert,
      key: readFileSync(kmip.tls.key, 'utf8'),
      limits: { ...DEFAULT_KMIP_LIMITS, idleSeconds: kmip.idleSeconds },
      processor,
      identify: (der) => ctx.use('clients').kmip.identify(der),
      callerOf: (identity, ip, serial) => ({
        actor: {
          userId: identity.client.id,
          username: identity.client.name,
          domainId: identity.client.domain_id,
          domainName: identity.domainName,
          sessionId: serial,
          permissions: identity.permissions,
          mustChangePassword: false,
          directory: null,
          kind: 'kmip',
          systemScope: false,
        },
        meta: { ip, lang: KMIP_LANGUAGE, userAgent: 'KMIP' },
      }),
      refused: (reason, ip, identity) => auditRefusal(ctx, reason, ip, identity),
      seen: (id) => tally.seen(id),
      log: ctx.log,
    });
    ctx.log.info({ port: state.listener.port }, 'KMIP listener');
  },

  async stop(ctx) {
    const state = running.get(ctx.app);
    if (!state) return;
    clearInterval(state.timer);
    await state.listener?.stop();
    await state.flush();
    running.delete(ctx.app);
  },
};

/** A refused KMIP connection's record: the reason, the certificate's serial and the client when known. */
async function auditRefusal(ctx: ModuleContext, reason: string, ip: string, identity: KmipIdentity | null) {
  const known = identity && !identity.ok ? identity : null;
  const client = identity?.ok ? identity.client : known?.client;
  await ctx.journal.write(
    {
      audit: [
        auditRow(
          {
            who: {
              userId: client?.id ?? null,
              username: client?.name ?? 'kmip',
              domainId: client?.domain_id ?? known?.domainId ?? null,
              domainName: '',
              source: 'kmip',
            },
            action: 'kmip.connect',
            target: client?.name ?? '-',
            result: 'failure',
            ip,
            details: { reason, ...(known?.serial ? { certificate: known.serial } : {}) },
          },
          ctx.clock(),
        ),
      ],
    },
    'disk',
  );
}

/** The KMIP listener's port of a running server (tests), or null. */
export const kmipPortOf = (app: object): number | null => running.get(app)?.listener?.port ?? null;
