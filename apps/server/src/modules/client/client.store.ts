import { sql, type ExpressionBuilder } from 'kysely';
import { escapeLike, type Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type { ClientTable, Database } from '../../platform/db/schema.js';
import { AGENT_ROW_SQL, type AgentRowResult } from './agent-auth.js';

/** The heartbeat thresholds as times: a last heartbeat before `warn` is a warning, before `error` an error. */
export interface Cuts {
  warn: string;
  error: string;
}

/** A client status the list filters by. */
export type StatusFilter = 'healthy' | 'warning' | 'error' | 'revoked' | 'deleted';

/** What the clients list filters by besides the domain and the type. */
export interface ClientFilter {
  name?: string | undefined;
  os?: string | undefined;
  group?: string | undefined;
  status?: StatusFilter | undefined;
}

/** What an agent's call may report about its host (absent: kept as stored). */
export type AgentFacts = Partial<Pick<ClientTable, 'os' | 'agent_version' | 'mac' | 'host'>>;

/** An accepted agent call to record: its timestamp, when it came, what it reported. */
export interface TouchRow {
  id: string;
  timestamp: number;
  at: string;
  facts: AgentFacts;
}

type ClientEb = ExpressionBuilder<Database, 'client'>;

/** The condition of each status, for the list's filter and the status bar's counts alike. */
function statusIs(eb: ClientEb, status: StatusFilter, { warn, error }: Cuts) {
  switch (status) {
    case 'healthy':
      return eb.and([eb('state', '=', 'active'), eb('last_seen_at', '>=', warn)]);
    case 'warning':
      return eb.and([
        eb('state', '=', 'active'),
        eb('last_seen_at', '<', warn),
        eb('last_seen_at', '>=', error),
      ]);
    case 'error':
      return eb.and([eb('state', '=', 'active'), eb('last_seen_at', '<', error)]);
    case 'revoked':
      return eb('state', '=', 'revoked');
    case 'deleted':
      return eb('state', 'in', ['deleting', 'deleted']);
  }
}

/** How many rows meet `status`, as a sum over the selection. */
const countOf = (eb: ClientEb, status: StatusFilter, cuts: Cuts) =>
  eb.fn.sum<string | number | null>(
    eb
      .case()
      .when(statusIs(eb, status, cuts))
      .then(1)
      .else(0)
      .end(),
  );

/** A client of the type in the domain. */
export async function findClient(db: Executor, domainId: string, id: string, type: string) {
  return db
    .selectFrom('client')
    .selectAll()
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .where('type', '=', type)
    .executeTakeFirst();
}

export async function readClient(db: Executor, id: string) {
  return db.selectFrom('client').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The client with its certificate's revocation and its CA's end, for an agent call's checks. */
export async function readAgentRow(db: Executor, id: string) {
  const { rows } = await sql<AgentRowResult>`${sql.raw(AGENT_ROW_SQL)}${id}`.execute(db);
  return rows[0];
}

/** The status bar's counts of a domain's clients of a type (filters aside). */
export async function clientCounts(db: Executor, domainId: string, type: string, cuts: Cuts) {
  const counted = await db
    .selectFrom('client')
    .where('domain_id', '=', domainId)
    .where('type', '=', type)
    .select((eb) => [
      eb.fn.countAll<string | number>().as('total'),
      countOf(eb, 'error', cuts).as('errors'),
      countOf(eb, 'warning', cuts).as('warnings'),
      countOf(eb, 'healthy', cuts).as('healthy'),
    ])
    .executeTakeFirst();
  return {
    total: Number(counted?.total ?? 0),
    errors: Number(counted?.errors ?? 0),
    warnings: Number(counted?.warnings ?? 0),
    healthy: Number(counted?.healthy ?? 0),
  };
}

/** A page of a domain's clients of a type, newest registration first, with the filtered total. */
export async function listClients(
  db: Executor,
  domainId: string,
  type: string,
  filter: ClientFilter,
  cuts: Cuts,
  page: PageQuery,
) {
  let q = db.selectFrom('client').where('domain_id', '=', domainId).where('type', '=', type);
  if (filter.name) {
    const like = `%${escapeLike(filter.name)}%`;
    q = q.where((eb) => eb.or([eb('name', 'like', like), eb('host', 'like', like)]));
  }
  if (filter.os) {
    const os = `%${escapeLike(filter.os.toLowerCase())}%`;
    q = q.where((eb) => eb(eb.fn<string>('lower', ['os']), 'like', os));
  }
  // `groups` is the JSON list of group ids: an id is a quoted string in it.
  if (filter.group) q = q.where('groups', 'like', `%${escapeLike(JSON.stringify(filter.group))}%`);
  const { status } = filter;
  if (status) q = q.where((eb) => statusIs(eb, status, cuts));
  return pagedRows(q, page, (p) => p.selectAll().orderBy('registered_at', 'desc').orderBy('id'));
}

/** A certificate issued for a client, as its row keeps it. */
export const certificateColumns = (issued: {
  id: string;
  serial: string;
  certificatePem: string;
  notBefore: string;
  notAfter: string;
  ca: { name: string };
}) => ({
  cert_id: issued.id,
  cert_serial: issued.serial,
  cert_pem: issued.certificatePem,
  cert_not_before: issued.notBefore,
  cert_not_after: issued.notAfter,
  cert_ca_name: issued.ca.name,
});

export async function insertClient(db: Executor, row: ClientTable): Promise<void> {
  await db.insertInto('client').values(row).execute();
}

export async function updateClient(db: Executor, id: string, changes: Partial<ClientTable>): Promise<void> {
  await db.updateTable('client').set(changes).where('id', '=', id).execute();
}

export async function deleteClient(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('client').where('id', '=', id).execute();
}

/**
 * Moves the clients holding a certificate from state `from` to `to` (a revoked certificate
 * revokes its active client; a lifted hold brings a revoked one back).
 */
export async function moveClientsOfCertificate(
  db: Executor,
  certId: string,
  from: string,
  to: string,
  at: string,
): Promise<void> {
  await db
    .updateTable('client')
    .set({ state: to, updated_at: at })
    .where('cert_id', '=', certId)
    .where('state', '=', from)
    .execute();
}

/** Revokes a client if it is still active. */
export async function revokeActiveClient(db: Executor, id: string, at: string): Promise<void> {
  await db
    .updateTable('client')
    .set({ state: 'revoked', updated_at: at })
    .where('id', '=', id)
    .where('state', '=', 'active')
    .execute();
}

/**
 * Records an agent call's timestamp (with `changes`) if it is newer than the client's last:
 * false when a call with the same or a newer one came first (a replay).
 */
export async function spendTimestamp(
  db: Executor,
  id: string,
  timestamp: number,
  changes: Partial<ClientTable>,
): Promise<boolean> {
  const updated = await db
    .updateTable('client')
    .set({ ...changes, last_request_ms: timestamp })
    .where('id', '=', id)
    .where('last_request_ms', '<', timestamp)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/**
 * Records accepted agent calls (one per client) in one statement: a row is updated only when
 * its timestamp is newer than the stored one. The ids updated.
 */
export async function touchClients(db: Executor, calls: TouchRow[]): Promise<string[]> {
  const rows = calls.map(
    (t) =>
      sql`(cast(${t.id} as text), cast(${t.timestamp} as bigint), cast(${t.at} as text), cast(${t.facts.os ?? null} as text), cast(${t.facts.agent_version ?? null} as text), cast(${t.facts.mac ?? null} as text), cast(${t.facts.host ?? null} as text))`,
  );
  // Written out rather than built: every accepted agent call passes here.
  const { rows: updated } = await sql<{ id: string }>`
    update client set
      last_request_ms = v.column2,
      last_seen_at = v.column3,
      updated_at = v.column3,
      os = coalesce(v.column4, client.os),
      agent_version = coalesce(v.column5, client.agent_version),
      mac = coalesce(v.column6, client.mac),
      host = coalesce(v.column7, client.host)
    from (values ${sql.join(rows)}) as v
    where client.id = v.column1 and client.last_request_ms < v.column2
    returning client.id`.execute(db);
  return updated.map((u) => u.id);
}

/** The config epochs of the domains (a domain without a row has none yet). */
export async function configEpochs(db: Executor, domainIds: string[]) {
  return db
    .selectFrom('client_config_epoch')
    .select(['domain_id', 'seq'])
    .where('domain_id', 'in', domainIds)
    .execute();
}

/* ---- KMIP clients (client.kmip.ts) ---- */

/** The KMIP client of a domain holding the certificate of this serial (hex), if any. */
export async function findKmipClientByCertificate(db: Executor, domainId: string, serial: string) {
  return db
    .selectFrom('client')
    .selectAll()
    .where('domain_id', '=', domainId)
    .where('type', '=', 'kmip')
    .where('cert_serial', '=', serial)
    .executeTakeFirst();
}

/** Whether a domain has a KMIP client of this name (names are unique per domain among KMIP clients). */
export async function kmipClientNamed(db: Executor, domainId: string, name: string): Promise<boolean> {
  const row = await db
    .selectFrom('client')
    .select('id')
    .where('domain_id', '=', domainId)
    .where('type', '=', 'kmip')
    .where('name', '=', name)
    .executeTakeFirst();
  return !!row;
}

/** A page of a domain's KMIP clients, by name. */
export async function listKmipClients(
  db: Executor,
  domainId: string,
  name: string | undefined,
  page: PageQuery,
) {
  let q = db.selectFrom('client').where('domain_id', '=', domainId).where('type', '=', 'kmip');
  if (name) q = q.where('name', 'like', `%${escapeLike(name)}%`);
  return pagedRows(q, page, (p) => p.selectAll().orderBy('name').orderBy('id'));
}
