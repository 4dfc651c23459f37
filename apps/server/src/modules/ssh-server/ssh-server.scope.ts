import type { LogSeverity } from '@ksp/contracts';
import type { AuditWriter, CallerRecord } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import { KspError, notFound } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import type { Connections } from './ssh-server.connection.js';
import { findServer, type ServerRecord } from './ssh-server.store.js';

/** A server as the records name it: unsaved ones have no id. */
export type ServerTarget = { id: string | null; name: string };

/** The record of `action` on a server: named by its name, kept under its id. */
export const about = (
  action: string,
  row: ServerTarget,
  details: Record<string, string | number> = {},
  result: 'success' | 'failure' = 'success',
  severity?: LogSeverity,
): CallerRecord => ({
  action,
  target: row.name,
  objectId: row.id,
  result,
  details,
  ...(severity ? { severity } : {}),
});

/**
 * What every part of the servers service shares: a server of the caller's domain (another
 * domain's is "not found"), and the record of a refusal or failure.
 */
export function createServerScope(deps: { db: Db; audit: AuditWriter }) {
  const { db, audit } = deps;
  return {
    async find(actor: Actor, id: string): Promise<ServerRecord> {
      const row = await findServer(db, actor.domainId, id);
      if (!row) throw notFound('server.notFound', { id });
      return row;
    },

    /** Audits a refusal or failure (its message key as the reason), then answers the error to throw. */
    async failed(
      actor: Actor,
      meta: RequestMeta,
      action: string,
      row: ServerTarget,
      err: unknown,
      severity?: LogSeverity,
    ): Promise<unknown> {
      const reason = err instanceof KspError ? err.messageKey : 'internal error';
      await audit.byCaller(db, actor, meta, about(action, row, { reason }, 'failure', severity));
      return err;
    },
  };
}

export type ServerScope = ReturnType<typeof createServerScope>;

/** What each part of the servers service is built from. */
export interface ServerParts {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  scope: ServerScope;
  connections: Connections;
  credentials: () => ModuleServices['credentials'];
}
