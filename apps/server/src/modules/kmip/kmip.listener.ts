import { createHash } from 'node:crypto';
import { createServer, type TLSSocket } from 'node:tls';
import type { FastifyBaseLogger } from 'fastify';
import type { Language } from '@ksp/contracts';
import type { ModuleServices } from '../../platform/module.js';
import { KmipError } from './kmip.message.js';
import type { KmipCaller, KmipProcessor } from './kmip.server.js';
import { messageLength, TtlvError } from './kmip.ttlv.js';

type KmipIdentity = Awaited<ReturnType<ModuleServices['clients']['kmip']['identify']>>;

/** The listener's limits (docs/kmip.md#limits). */
export interface KmipLimits {
  maxMessageBytes: number;
  /** A connection with no complete message for this long is closed. */
  idleSeconds: number;
  connectionsPerClient: number;
  connectionsTotal: number;
}

export const DEFAULT_KMIP_LIMITS: KmipLimits = {
  maxMessageBytes: 1024 * 1024,
  idleSeconds: 120,
  connectionsPerClient: 64,
  connectionsTotal: 1024,
};

/** How long a connection without a client certificate may stay open without a message. */
const NO_CERTIFICATE_IDLE_MS = 10_000;

/** How long a connection trusts what it read about its client (disabled, revoked, role changed). */
export const IDENTITY_FRESH_MS = 1000;

export interface KmipListener {
  port: number;
  stop(): Promise<void>;
}

/** Why a connection is refused, as the audit record and the KMIP answer say it. */
const REFUSAL_TEXT: Record<Exclude<KmipIdentity, { ok: true }>['reason'] | 'noCertificate', string> = {
  noCertificate: 'a client certificate is required',
  certificate: 'the client certificate cannot be read',
  unknownCa: 'the client certificate was not issued by a CA of this KSP',
  certValidity: 'the client certificate is expired or not yet valid',
  revoked: 'the client certificate or the client is revoked',
  notClient: 'the certificate is not a client certificate',
  unknownClient: 'no KMIP client holds this certificate',
  disabled: 'the KMIP client is disabled',
  noRole: 'the KMIP client has no role yet: an administrator gives it one in the console',
};

/**
 * The KMIP listener (docs/kmip.md#listener): TTLV over TLS 1.2+ with client certificates, on its
 * own port. Each connection is identified by its certificate (read again at most every
 * `IDENTITY_FRESH_MS`), reads whole messages by their announced length (one over the limit is
 * answered Invalid Message and the connection closed), answers them in order, and is closed
 * after `idleSeconds` without a message. A refused certificate is answered Permission Denied
 * for every item, audited once per connection, and the connection closed.
 */
export async function startKmipListener(options: {
  host: string;
  port: number;
  cert: string;
  key: string;
  limits: KmipLimits;
  processor: KmipProcessor;
  identify: (der: Buffer) => Promise<KmipIdentity>;
  /** Builds the caller of an identified client. */
  callerOf: (identity: Extract<KmipIdentity, { ok: true }>, ip: string, serial: string) => KmipCaller;
  /** Audits a refused connection (certificate, limit). */
  refused: (reason: string, ip: string, identity: KmipIdentity | null) => Promise<void>;
  seen: (clientId: string) => void;
  log: FastifyBaseLogger;
}): Promise<KmipListener> {
  const { limits, processor, log } = options;
  const perClient = new Map<string, number>();
  const sockets = new Set<TLSSocket>();

  /**
   * What each certificate was judged, shared by every connection that presents it and read again
   * once it is older than `IDENTITY_FRESH_MS` (callers that ask together share one reading).
   */
  const judged = new Map<string, { at: number; identity: Promise<KmipIdentity> }>();
  function identityOf(der: Buffer): Promise<KmipIdentity> {
    const id = createHash('sha256').update(der).digest('base64');
    const now = Date.now();
    const known = judged.get(id);
    if (known && now - known.at <= IDENTITY_FRESH_MS) return known.identity;
    const identity = options.identify(der);
    judged.set(id, { at: now, identity });
    // A certificate no connection presents any more is forgotten.
    if (judged.size > 4 * limits.connectionsTotal)
      for (const [k, v] of judged) if (now - v.at > IDENTITY_FRESH_MS) judged.delete(k);
    identity.catch(() => judged.delete(id));
    return identity;
  }

  const server = createServer(
    {
      cert: options.cert,
      key: options.key,
      requestCert: true,
      // The certificate is judged by KSP itself (its own CAs, revocation, the client's state),
      // so that a refusal can be answered and audited rather than a bare handshake failure.
      rejectUnauthorized: false,
      minVersion: 'TLSv1.2',
      handshakeTimeout: 10_000,
    },
    (socket) => serve(socket),
  );
  server.on('tlsClientError', (err) => log.debug({ err: err.message }, 'kmip: TLS handshake failed'));

  /**
   * Whether a refusal of this kind for this source is to be audited: once a minute each, so a
   * flood of connections does not flood the log (the first of each minute is recorded).
   */
  const lastAudited = new Map<string, number>();
  function throttled(kind: string, source: string): boolean {
    const key = `${kind}\u0000${source}`;
    const now = Date.now();
    if (now - (lastAudited.get(key) ?? -Infinity) < 60_000) return false;
    if (lastAudited.size > 10_000) lastAudited.clear();
    lastAudited.set(key, now);
    return true;
  }

  function serve(socket: TLSSocket) {
    const ip = socket.remoteAddress ?? '';
    if (sockets.size >= limits.connectionsTotal) {
      if (throttled('connections', ip)) void options.refused('connections', ip, null);
      socket.destroy();
      return;
    }
    sockets.add(socket);
    // Requests and answers are small and wait on each other: no Nagle delay.
    socket.setNoDelay(true);
    socket.setTimeout(limits.idleSeconds * 1000, () => socket.destroy());
    const peer = socket.getPeerCertificate(true);
    const der = peer && 'raw' in peer && Buffer.isBuffer(peer.raw) ? peer.raw : null;
    // Without a certificate nothing will be answered but a refusal: the connection may not hold
    // a place of the node's limit for long.
    if (!der) socket.setTimeout(NO_CERTIFICATE_IDLE_MS);
    let counted: string | null = null;
    let pending: Buffer = Buffer.alloc(0);
    let busy = false;
    let auditedRefusal = false;

    const release = () => {
      sockets.delete(socket);
      if (counted) {
        const n = (perClient.get(counted) ?? 1) - 1;
        if (n <= 0) perClient.delete(counted);
        else perClient.set(counted, n);
        counted = null;
      }
    };
    socket.on('close', release);
    socket.on('error', () => socket.destroy());

    async function who(): Promise<KmipCaller | { refused: KmipError; close: boolean }> {
      if (!der) {
        if (!auditedRefusal) await options.refused('noCertificate', ip, null);
        auditedRefusal = true;
        return { refused: new KmipError('PermissionDenied', REFUSAL_TEXT.noCertificate), close: true };
      }
      const identity = await identityOf(der);
      if (!identity.ok) {
        if (!auditedRefusal) await options.refused(identity.reason, ip, identity);
        auditedRefusal = true;
        return { refused: new KmipError('PermissionDenied', REFUSAL_TEXT[identity.reason]), close: true };
      }
      const serial = identity.client.cert_serial;
      if (counted !== serial) {
        const n = perClient.get(serial) ?? 0;
        if (n >= limits.connectionsPerClient) {
          if (throttled('clientConnections', serial))
            await options.refused('clientConnections', ip, identity);
          return {
            refused: new KmipError('PermissionDenied', `the client has ${n} connections open, the limit`),
            close: true,
          };
        }
        perClient.set(serial, n + 1);
        counted = serial;
      }
      options.seen(identity.client.id);
      return options.callerOf(identity, ip, serial);
    }

    async function drain() {
      if (busy) return;
      busy = true;
      try {
        for (;;) {
          let length: number | null;
          try {
            length = messageLength(pending, { maxBytes: limits.maxMessageBytes });
          } catch (err) {
            if (!(err instanceof TtlvError)) throw err;
            socket.end(processor.refuseMessage(null, new KmipError('InvalidMessage', err.message)));
            pending = Buffer.alloc(0);
            return;
          }
          if (length === null || pending.length < length) return;
          const message = pending.subarray(0, length);
          pending = pending.subarray(length);
          const caller = await who();
          const out = await processor.process(Buffer.from(message), caller);
          if (socket.destroyed) return;
          if ('close' in caller && caller.close) {
            socket.end(out);
            return;
          }
          socket.write(out);
        }
      } catch (err) {
        log.error({ err }, 'kmip: connection failed');
        socket.destroy();
      } finally {
        busy = false;
        if (socket.isPaused() && !socket.destroyed) socket.resume();
      }
    }

    socket.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      // A client that sends faster than it is answered waits: at most two messages are held.
      if (pending.length > 2 * limits.maxMessageBytes) socket.pause();
      void drain().then(() => {
        if (pending.length && !busy) void drain();
      });
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The language of KMIP answers: English (KMIP has no way to ask for another). */
export const KMIP_LANGUAGE: Language = 'en';
