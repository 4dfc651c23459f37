import { sql } from 'kysely';
import { escapeLike, type Executor } from '../../platform/db/database.js';
import { pagedRows, type PageQuery } from '../../platform/db/paged.js';
import type { SshServerRotationTable, SshServerTable, SshSessionTable } from '../../platform/db/schema.js';

/** A server with its credential's name. */
export type ServerRecord = SshServerTable & { credential_name: string | null };

const selectServers = (db: Executor) =>
  db
    .selectFrom('ssh_server')
    .leftJoin('credential', 'credential.id', 'ssh_server.credential_id')
    .selectAll('ssh_server')
    .select('credential.name as credential_name');

/** A server of the domain, with its credential's name. */
export async function findServer(
  db: Executor,
  domainId: string,
  id: string,
): Promise<ServerRecord | undefined> {
  return selectServers(db)
    .where('ssh_server.id', '=', id)
    .where('ssh_server.domain_id', '=', domainId)
    .executeTakeFirst();
}

/** A page of the domain's servers by name; `name` matches a part of the name or of the host. */
export async function listServers(db: Executor, domainId: string, name: string | undefined, page: PageQuery) {
  let q = db
    .selectFrom('ssh_server')
    .leftJoin('credential', 'credential.id', 'ssh_server.credential_id')
    .where('ssh_server.domain_id', '=', domainId);
  if (name) {
    const like = `%${escapeLike(name)}%`;
    q = q.where((eb) => eb.or([eb('ssh_server.name', 'like', like), eb('ssh_server.host', 'like', like)]));
  }
  return pagedRows(q, page, (p) =>
    p.selectAll('ssh_server').select('credential.name as credential_name').orderBy('ssh_server.name'),
  );
}

/** The name of the server (other than `exceptId`) that logs in with the credential, if any. */
export async function serverOfCredential(db: Executor, credentialId: string, exceptId?: string) {
  const other = await db
    .selectFrom('ssh_server')
    .select('name')
    .where('credential_id', '=', credentialId)
    .$if(exceptId !== undefined, (q) => q.where('id', '!=', exceptId ?? ''))
    .executeTakeFirst();
  return other?.name;
}

export async function insertServer(db: Executor, row: SshServerTable): Promise<void> {
  await db.insertInto('ssh_server').values(row).execute();
}

export async function updateServer(
  db: Executor,
  id: string,
  changes: Partial<SshServerTable>,
): Promise<void> {
  await db.updateTable('ssh_server').set(changes).where('id', '=', id).execute();
}

/** Deletes the servers and their rotation history; the number of servers deleted. */
export async function deleteServers(db: Executor, ids: string[]): Promise<number> {
  await db.deleteFrom('ssh_server_rotation').where('server_id', 'in', ids).execute();
  const result = await db.deleteFrom('ssh_server').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Marks a rotation of the server running since `at` unless one is, counting a mark older than
 * `staleBefore` as left by a node that stopped; false when another rotation holds it.
 */
export async function claimRotation(
  db: Executor,
  id: string,
  at: string,
  staleBefore: string,
): Promise<boolean> {
  const claimed = await db
    .updateTable('ssh_server')
    .set({ rotating_since: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('rotating_since', 'is', null), eb('rotating_since', '<', staleBefore)]))
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

export async function insertRotation(db: Executor, row: SshServerRotationTable): Promise<void> {
  await db.insertInto('ssh_server_rotation').values(row).execute();
}

/** A page of a server's rotations, latest first. */
export async function listRotations(db: Executor, serverId: string, page: PageQuery) {
  return pagedRows(db.selectFrom('ssh_server_rotation').where('server_id', '=', serverId), page, (q) =>
    q.selectAll().orderBy('at', 'desc').orderBy('id', 'desc'),
  );
}

/** The servers whose scheduled rotation is due at `at`, with their domain's name, the most overdue first. */
export async function dueRotations(db: Executor, at: string) {
  return db
    .selectFrom('ssh_server')
    .innerJoin('domain', 'domain.id', 'ssh_server.domain_id')
    .select(['ssh_server.id', 'ssh_server.domain_id', 'domain.name as domain_name'])
    .where('ssh_server.rotation_enabled', '=', 1)
    .where('ssh_server.next_rotation_at', '<=', at)
    .orderBy('ssh_server.next_rotation_at')
    .execute();
}

/** Whether the user holds one of the roles. */
export async function holdsRole(db: Executor, userId: string, roleIds: string[]): Promise<boolean> {
  const mine = await db
    .selectFrom('user_role')
    .select('role_id')
    .where('user_id', '=', userId)
    .where('role_id', 'in', roleIds)
    .executeTakeFirst();
  return mine !== undefined;
}

/** A page of the roles a server may name (built-in and the domain's), by type and name. */
export async function listRoleOptions(
  db: Executor,
  domainId: string,
  filter: { name?: string | undefined; ids?: string | undefined },
  page: PageQuery,
) {
  let q = db
    .selectFrom('role')
    .where((eb) => eb.or([eb('domain_id', 'is', null), eb('domain_id', '=', domainId)]));
  // Case-insensitive on both engines (PostgreSQL's LIKE is not).
  const part = filter.name?.toLowerCase();
  if (part) q = q.where(sql<boolean>`lower(name) like ${`%${escapeLike(part)}%`} escape '\\'`);
  if (filter.ids) q = q.where('id', 'in', filter.ids.toLowerCase().split(','));
  return pagedRows(q, page, (p) =>
    p.select(['id', 'name', 'type']).orderBy('type').orderBy('name').orderBy('id'),
  );
}

export async function insertSession(db: Executor, row: SshSessionTable): Promise<void> {
  await db.insertInto('ssh_session').values(row).execute();
}

export async function updateSession(
  db: Executor,
  id: string,
  changes: Partial<SshSessionTable>,
): Promise<void> {
  await db.updateTable('ssh_session').set(changes).where('id', '=', id).execute();
}

export async function findSession(db: Executor, domainId: string, id: string) {
  return db
    .selectFrom('ssh_session')
    .selectAll()
    .where('id', '=', id)
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
}

/** The user's sessions not ended and raised since `aliveSince`. */
export async function openSessionCount(db: Executor, userId: string, aliveSince: string): Promise<number> {
  const row = await db
    .selectFrom('ssh_session')
    .where('user_id', '=', userId)
    .where('ended_at', 'is', null)
    .where('alive_at', '>=', aliveSince)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** A page of a server's sessions, latest first. */
export async function listSessions(db: Executor, serverId: string, page: PageQuery) {
  return pagedRows(db.selectFrom('ssh_session').where('server_id', '=', serverId), page, (q) =>
    q.selectAll().orderBy('started_at', 'desc').orderBy('id', 'desc'),
  );
}

export async function insertChunk(
  db: Executor,
  sessionId: string,
  seq: number,
  sealed: string,
): Promise<void> {
  await db
    .insertInto('ssh_session_chunk')
    .values({ session_id: sessionId, seq, data_sealed: sealed })
    .execute();
}

/** A session's recording chunks, in order. */
export async function listChunks(db: Executor, sessionId: string) {
  return db
    .selectFrom('ssh_session_chunk')
    .select(['seq', 'data_sealed'])
    .where('session_id', '=', sessionId)
    .orderBy('seq')
    .execute();
}
