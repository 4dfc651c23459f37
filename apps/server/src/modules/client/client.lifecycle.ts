import type { api, ClientType, QueryInput } from '@ksp/contracts';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db, Executor } from '../../platform/db/database.js';
import type { ClientTable } from '../../platform/db/schema.js';
import { notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import {
  certificateColumns,
  clientCounts,
  deleteClient,
  findClient,
  listClients,
  moveClientsOfCertificate,
  updateClient,
} from './client.store.js';
import { clientView, cuts, type State } from './client.view.js';

/**
 * The console's side of clients (README.md): the list with the status bar's counts, detail,
 * revoke, delete (acknowledged by the agent), force-delete and certificate renewal.
 */
export function createClientLifecycle(deps: {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  certs: () => ModuleServices['certs'];
}) {
  const { db, clock, audit } = deps;
  const now = () => clock().getTime();

  /** A client of the type in the actor's domain; another domain's (or type's) is "not found". */
  async function find(actor: Actor, id: string, type: ClientType) {
    const row = await findClient(db, actor.domainId, id, type);
    if (!row) throw notFound('client.notFound', { id });
    return row;
  }

  const view = async (actor: Actor, id: string, type: ClientType) =>
    clientView(await find(actor, id, type), now());

  /** The record of `action` on a client, named by its name, kept under its id. */
  const record = (action: string, row: ClientTable, details: Record<string, string>) => ({
    action,
    target: row.name,
    objectId: row.id,
    details,
  });

  /** Refuses a change to a client that is not active (revoked, or deleted). */
  function assertActive(row: ClientTable) {
    if (row.state === 'revoked') throw stateForbids('client.revoked', { name: row.name });
    if (row.state !== 'active') throw stateForbids('client.deleted', { name: row.name });
  }

  async function setState(actor: Actor, meta: RequestMeta, row: ClientTable, state: State, action: string) {
    await db.transaction().execute(async (trx) => {
      await updateClient(trx, row.id, { state, updated_at: clock().toISOString() });
      await audit.byCaller(trx, actor, meta, record(action, row, { serial: row.cert_serial }));
    });
  }

  return {
    /**
     * The clients of a type (KADP by default; the TDE and RDM pages pass theirs, with the OS and
     * group filters they add) and the status bar's counts, which ignore the filters.
     */
    async list(
      actor: Actor,
      query: QueryInput<typeof api.client.list> & { os?: string | undefined; group?: string | undefined },
      type: ClientType = 'kadp',
    ) {
      const at = now();
      const bounds = cuts(at);
      const counts = await clientCounts(db, actor.domainId, type, bounds);
      const { rows, total } = await listClients(db, actor.domainId, type, query, bounds, query);
      return { data: rows.map((r) => clientView(r, at)), total, counts };
    },

    async detail(actor: Actor, id: string, type: ClientType = 'kadp') {
      return view(actor, id, type);
    },

    async revoke(actor: Actor, meta: RequestMeta, id: string, type: ClientType = 'kadp') {
      const row = await find(actor, id, type);
      assertActive(row);
      await deps.certs().revokeClientCertificate(row.domain_id, row.cert_id, 'cessationOfOperation');
      await setState(actor, meta, row, 'revoked', 'client.revoke');
      return view(actor, id, type);
    },

    async remove(actor: Actor, meta: RequestMeta, id: string, type: ClientType = 'kadp') {
      const row = await find(actor, id, type);
      if (row.state === 'deleting' || row.state === 'deleted')
        throw stateForbids('client.deleted', { name: row.name });
      // A revoked agent cannot authenticate to acknowledge: its deletion is final at once.
      await setState(actor, meta, row, row.state === 'revoked' ? 'deleted' : 'deleting', 'client.delete');
      return view(actor, id, type);
    },

    async forceRemove(actor: Actor, meta: RequestMeta, id: string, type: ClientType = 'kadp') {
      const row = await find(actor, id, type);
      await deps.certs().revokeClientCertificate(row.domain_id, row.cert_id, 'cessationOfOperation');
      await db.transaction().execute(async (trx) => {
        await deleteClient(trx, row.id);
        await audit.byCaller(
          trx,
          actor,
          meta,
          record('client.force-delete', row, { serial: row.cert_serial }),
        );
      });
      return { deleted: 1 };
    },

    async renew(actor: Actor, meta: RequestMeta, id: string, type: ClientType = 'kadp') {
      const row = await find(actor, id, type);
      assertActive(row);
      const issued = await deps
        .certs()
        .prepareClientCertificate(row.domain_id, { renew: row.cert_id }, row.cert_validity_days);
      await db.transaction().execute(async (trx) => {
        await issued.store(trx);
        await updateClient(trx, row.id, {
          ...certificateColumns(issued),
          updated_at: clock().toISOString(),
        });
        await audit.byCaller(
          trx,
          actor,
          meta,
          record('client.renew', row, { serial: issued.serial, previous: row.cert_serial }),
        );
      });
      // The old certificate is superseded: the client answers only with the new one from now on.
      await deps.certs().revokeClientCertificate(row.domain_id, row.cert_id, 'superseded');
      return view(actor, id, type);
    },

    /**
     * The certificates page revoked a client's certificate (or lifted its hold): the client is
     * revoked (or active again) in the same transaction. Only an active client is revoked, and
     * only a revoked one whose certificate this still is comes back.
     */
    async certificateChanged(trx: Executor, certId: string, revoked: boolean, at: string) {
      await moveClientsOfCertificate(
        trx,
        certId,
        revoked ? 'active' : 'revoked',
        revoked ? 'revoked' : 'active',
        at,
      );
    },
  };
}
