import { sql, type ExpressionBuilder } from 'kysely';
import type { Engine, Executor } from '../../platform/db/database.js';
import type { AuditTable, Database } from '../../platform/db/schema.js';

/**
 * The SQL of the audit hash chain (`log.chain.ts`): its heads in `audit_chain`, the places and
 * MACs of the records in `audit_log`. Every function takes the database or an open transaction.
 */

/** Records placed per statement (3 parameters each: far below either engine's limit). */
const SEAL_STATEMENT_ROWS = 1000;

/** Any constant: the PostgreSQL advisory lock that makes sealing one at a time over the cluster. */
const SEAL_LOCK = 7_453_101;

/** A chain's place in the sealing: a record's id, its place and its MAC. */
export interface Place {
  id: string;
  seq: number;
  mac: string;
}

/** The condition that narrows `audit_log` to one chain ('' is the server's own records, without a domain). */
const inChain = (chain: string) => (eb: ExpressionBuilder<Database, 'audit_log'>) =>
  chain === '' ? eb('domain_id', 'is', null) : eb('domain_id', '=', chain);

/** The chain's head row, if the chain has one. */
export function headRow(db: Executor, chain: string) {
  return db.selectFrom('audit_chain').selectAll().where('chain', '=', chain).executeTakeFirst();
}

/** On PostgreSQL, holds the cluster-wide sealing lock until the transaction ends. */
export async function lockSealing(trx: Executor, engine: Engine): Promise<void> {
  if (engine === 'postgres') await sql`select pg_advisory_xact_lock(${SEAL_LOCK})`.execute(trx);
}

/** The oldest records not yet sealed, in the order they are given their places. */
export function unsealed(trx: Executor, limit: number): Promise<AuditTable[]> {
  return trx
    .selectFrom('audit_log')
    .selectAll()
    .where('chain_seq', 'is', null)
    .orderBy('at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Writes the records' places and MACs. In a few statements rather than one per record: under a
 * steady load of cryptographic calls the sealing job seals thousands of records every few
 * seconds, and one statement (a round trip on PostgreSQL) each took the API's event loop and
 * the database measurably away from the calls themselves.
 */
export async function placeRecords(trx: Executor, places: Place[]): Promise<void> {
  for (let i = 0; i < places.length; i += SEAL_STATEMENT_ROWS) {
    const values = places
      .slice(i, i + SEAL_STATEMENT_ROWS)
      .map((p) => sql`(cast(${p.id} as text), cast(${p.seq} as bigint), cast(${p.mac} as text))`);
    await sql`update audit_log set chain_seq = v.column2, chain_mac = v.column3
      from (values ${sql.join(values)}) as v
      where audit_log.id = v.column1 and audit_log.chain_seq is null`.execute(trx);
  }
}

/** Moves an existing chain's head. */
export async function updateHead(trx: Executor, chain: string, seq: number, mac: string, at: string) {
  await trx.updateTable('audit_chain').set({ seq, mac, updated_at: at }).where('chain', '=', chain).execute();
}

/** Starts a chain's head, anchored at the chain's start. */
export async function insertHead(
  trx: Executor,
  head: { chain: string; seq: number; mac: string; anchorMac: string },
  at: string,
) {
  await trx
    .insertInto('audit_chain')
    .values({
      chain: head.chain,
      seq: head.seq,
      mac: head.mac,
      anchor_seq: 0,
      anchor_mac: head.anchorMac,
      updated_at: at,
    })
    .execute();
}

/** Up to `limit` sealed records of the chain with places in [from, to], by place. */
export function sealedPage(db: Executor, chain: string, from: number, to: number, limit: number) {
  return db
    .selectFrom('audit_log')
    .selectAll()
    .where('chain_seq', '>=', from)
    .where('chain_seq', '<=', to)
    .orderBy('chain_seq')
    .limit(limit)
    .where(inChain(chain))
    .execute();
}

/** Every chain's name (domain ids, '' for the server's own records). */
export async function chains(db: Executor): Promise<string[]> {
  return (await db.selectFrom('audit_chain').select('chain').orderBy('chain').execute()).map((r) => r.chain);
}

/** Records not yet sealed: all (`undefined`), the server's own (`null`) or one domain's. */
export async function unsealedCount(db: Executor, domainId: string | null | undefined): Promise<number> {
  let q = db.selectFrom('audit_log').where('chain_seq', 'is', null);
  if (domainId !== undefined)
    q = domainId === null ? q.where('domain_id', 'is', null) : q.where('domain_id', '=', domainId);
  const row = await q.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The chain's last sealed record made before `before`: its place and MAC. */
export function lastSealedBefore(trx: Executor, chain: string, before: string) {
  return trx
    .selectFrom('audit_log')
    .select(['chain_seq', 'chain_mac'])
    .where('chain_seq', 'is not', null)
    .where('at', '<', before)
    .orderBy('chain_seq', 'desc')
    .limit(1)
    .where(inChain(chain))
    .executeTakeFirst();
}

/** Deletes the chain's records up to place `seq`; answers how many. */
export async function deleteUpTo(trx: Executor, chain: string, seq: number): Promise<number> {
  const result = await trx
    .deleteFrom('audit_log')
    .where('chain_seq', '<=', seq)
    .where(inChain(chain))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Moves the chain's anchor to place `seq` with its MAC. */
export async function moveAnchor(trx: Executor, chain: string, seq: number, mac: string, at: string) {
  await trx
    .updateTable('audit_chain')
    .set({ anchor_seq: seq, anchor_mac: mac, updated_at: at })
    .where('chain', '=', chain)
    .execute();
}
