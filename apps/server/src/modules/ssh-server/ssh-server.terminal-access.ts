import type { Client } from 'ssh2';
import { forbidden, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import { hostKeyChanged } from './ssh-server.probes.js';
import { about, type ServerParts } from './ssh-server.scope.js';
import { holdsRole } from './ssh-server.store.js';

/** Who may open a terminal on a server, its login, and the records of terminal sessions. */
export function createTerminalAccess(deps: ServerParts) {
  const { db, audit, scope, connections } = deps;
  return {
    /**
     * The server a terminal may be opened on by this caller: of the caller's domain (another
     * domain's is "not found"), and the caller's user name in its terminal users or one of the
     * caller's roles in its terminal roles; pinned and with a credential. Refusals are audited.
     */
    async terminalTarget(actor: Actor, meta: RequestMeta, id: string): Promise<{ id: string; name: string }> {
      const row = await scope.find(actor, id);
      const users = JSON.parse(row.terminal_users) as string[];
      const roles = JSON.parse(row.terminal_roles) as string[];
      let allowed = users.includes(actor.username);
      if (!allowed && roles.length > 0) allowed = await holdsRole(db, actor.userId, roles);
      try {
        if (!allowed) throw forbidden('server.terminalNotAllowed', { name: row.name });
        if (!row.credential_id) throw stateForbids('server.noCredential', { name: row.name });
        if (!row.host_key_fingerprint) throw stateForbids('server.notPinned', { name: row.name });
      } catch (err) {
        throw await scope.failed(actor, meta, 'server.terminal.refused', row, err);
      }
      return { id: row.id, name: row.name };
    },

    /** Logs in for a terminal (stored credential, pinned host key); a refusal is audited. */
    async terminalConnect(actor: Actor, meta: RequestMeta, id: string): Promise<Client> {
      const row = await scope.find(actor, id);
      try {
        return await connections.connect(actor, row);
      } catch (err) {
        throw await scope.failed(
          actor,
          meta,
          'server.terminal.refused',
          row,
          err,
          hostKeyChanged(err) ? 'ERROR' : undefined,
        );
      }
    },

    /** Audits a terminal refused at the WebSocket, with the refusal's message key as the reason. */
    terminalRefused: (
      actor: Actor,
      meta: RequestMeta,
      server: { id: string; name: string },
      reason: string,
    ) => audit.byCaller(db, actor, meta, about('server.terminal.refused', server, { reason }, 'failure')),

    /** Audits a terminal session's start or end, or the replay of its recording. */
    terminalAudit: (
      actor: Actor,
      meta: RequestMeta,
      action: 'server.terminal.start' | 'server.terminal.end' | 'server.session.replay',
      server: { id: string; name: string },
      details: Record<string, string | number>,
    ) => audit.byCaller(db, actor, meta, about(action, server, details)),
  };
}
