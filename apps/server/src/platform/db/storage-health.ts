/**
 * Telling "the database cannot be reached" apart from every other fault, so that the caller
 * gets HTTP 503 + Retry-After (the same call may succeed later) instead of a generic 500, and
 * the log gets one line per outage instead of one stack trace per request.
 */

/** Seconds a caller should wait before retrying while storage is unavailable. */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

/** Socket-level failures (node:net, pg connect). */
const networkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception), 57P01..57P03 (admin/crash shutdown,
 * cannot connect now), 53300 (too many connections), 3D000 (the database is gone), 25006 (a
 * write refused by a server that is read-only: a primary demoted in a failover, until the pool
 * finds the new one).
 */
const pgCodes = /^(08[0-9A-Z]{3}|57P0[1-3]|53300|3D000|25006)$/;

/** SQLite: the file is locked past busy_timeout, cannot be read or written, or cannot be opened. */
const sqliteCodes = /^SQLITE_(BUSY|IOERR|CANTOPEN|FULL)(_|$)/;

/** node-postgres reports a dropped connection or a pool timeout with these messages only. */
const pgMessages =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended)/i;

function classify(err: unknown, depth: number): boolean {
  if (depth > 4 || typeof err !== 'object' || err === null) return false;
  const { code, message, cause, errors } = err as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (networkCodes.has(code) || pgCodes.test(code) || sqliteCodes.test(code)))
    return true;
  if (typeof message === 'string' && pgMessages.test(message)) return true;
  // Node reports a refused connection to a host with several addresses as an AggregateError.
  if (Array.isArray(errors) && errors.some((e) => classify(e, depth + 1))) return true;
  return classify(cause, depth + 1);
}

/** True when the error says storage is unreachable (a retry may work), not that the query is wrong. */
export function isStorageUnavailable(err: unknown): boolean {
  return classify(err, 0);
}

/** What the storage error said, short and without secrets (for the one log line). */
export function storageErrorSummary(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const message = typeof e?.message === 'string' ? e.message.slice(0, 200) : String(err).slice(0, 200);
  return code ? `${code}: ${message}` : message;
}

export interface StorageHealthLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * Remembers whether storage is down, so that an outage is logged once when it starts and
 * once when it ends. Recovery is declared only after a probe query succeeds, never because
 * some call that did not touch the database (a cached session, say) happened to succeed.
 */
export function createStorageHealth(deps: { probe: () => Promise<unknown>; log: StorageHealthLog }) {
  let downSince: Date | null = null;
  let probing: Promise<void> | null = null;

  return {
    get unavailable(): boolean {
      return downSince !== null;
    },
    /** A call failed because storage is unreachable. */
    failed(err: unknown): void {
      if (downSince) return;
      downSince = new Date();
      deps.log.warn(
        { storageError: storageErrorSummary(err), retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS },
        'storage unavailable: answering 503 until it recovers',
      );
    },
    /** A call succeeded: if storage was down, check with a probe whether it is back. */
    succeeded(): void {
      if (!downSince || probing) return;
      probing = deps
        .probe()
        .then(
          () => {
            if (!downSince) return;
            const seconds = Math.round((Date.now() - downSince.getTime()) / 1000);
            downSince = null;
            deps.log.info({ outageSeconds: seconds }, 'storage available again');
          },
          () => undefined,
        )
        .finally(() => {
          probing = null;
        });
    },
    /** Resolves once a probe under way has finished (tests, shutdown). */
    async settled(): Promise<void> {
      await probing;
    },
  };
}

export type StorageHealth = ReturnType<typeof createStorageHealth>;
