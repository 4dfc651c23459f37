import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Db, Engine, Executor } from '../../platform/db/database.js';
import type { AuditTable } from '../../platform/db/schema.js';
import * as store from './log.chain.store.js';

/**
 * Tamper evidence for the audit trail: a hash chain per domain, sealed behind the writers.
 *
 * Each record gets the next place in its domain's chain (`chain_seq`; the server's own
 * records, without a domain, form the chain '') and `chain_mac` = HMAC-SHA256 under a key
 * derived from the root key over the previous MAC, the place and the record's content. A
 * changed, removed or inserted record, or a cut tail, breaks the chain where it happened; and
 * without the root key nobody can rebuild a chain that checks.
 *
 * Records are sealed by a job a moment after they are written, not inside the writing
 * transaction: a chain head in every transaction would serialize all writers of a domain
 * (every node, every cryptographic call's record) behind one row lock. The job runs on one
 * node at a time (the jobs service's lease) and seals in commit-independent order: a record
 * that commits late simply takes a later place. Until sealed, a record is counted as such.
 */

/** The MAC of the chain's start (and of an empty chain). */
export const GENESIS = '0'.repeat(64);
/** Records sealed per transaction. */
const SEAL_BATCH = 2000;

export const chainOf = (domainId: string | null): string => domainId ?? '';

/** The bytes a record's MAC covers: every column but the chain's own, in a fixed order. */
function content(row: AuditTable): string {
  return JSON.stringify([
    row.id,
    row.at,
    row.user_id,
    row.username,
    row.domain_id,
    row.domain_name,
    row.action,
    row.target,
    row.result,
    row.source_ip,
    row.details,
    row.object_id,
    Number(row.count),
    row.severity,
    row.source,
    row.area,
  ]);
}

export function macOf(key: Buffer, previous: string, seq: number, row: AuditTable): string {
  return createHmac('sha256', key)
    .update(`${previous}\n${seq}\n${content(row)}`)
    .digest('hex');
}

const sameMac = (a: string, b: string | null | undefined) =>
  typeof b === 'string' && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

async function head(db: Executor, chain: string) {
  const row = await store.headRow(db, chain);
  return row
    ? {
        seq: Number(row.seq),
        mac: row.mac,
        anchorSeq: Number(row.anchor_seq),
        anchorMac: row.anchor_mac,
        exists: true,
      }
    : { seq: 0, mac: GENESIS, anchorSeq: 0, anchorMac: GENESIS, exists: false };
}

/**
 * Seals the records written since the last run; answers how many it sealed. One sealer at a
 * time: callers in this process queue (`sealer`), and on PostgreSQL each batch holds an
 * advisory lock, so two nodes never give two records the same place.
 */
export async function sealPending(db: Db, key: Buffer, now: () => Date, engine: Engine): Promise<number> {
  let sealed = 0;
  for (;;) {
    const done = await db.transaction().execute(async (trx) => {
      await store.lockSealing(trx, engine);
      const rows = await store.unsealed(trx, SEAL_BATCH);
      const heads = new Map<string, Awaited<ReturnType<typeof head>>>();
      const places: store.Place[] = [];
      for (const row of rows) {
        const chain = chainOf(row.domain_id);
        let h = heads.get(chain);
        if (!h) {
          h = await head(trx, chain);
          heads.set(chain, h);
        }
        const seq = h.seq + 1;
        const mac = macOf(key, h.mac, seq, row);
        places.push({ id: row.id, seq, mac });
        h.seq = seq;
        h.mac = mac;
      }
      await store.placeRecords(trx, places);
      const at = now().toISOString();
      for (const [chain, h] of heads) {
        if (h.exists) await store.updateHead(trx, chain, h.seq, h.mac, at);
        else await store.insertHead(trx, { chain, seq: h.seq, mac: h.mac, anchorMac: GENESIS }, at);
      }
      return rows.length;
    });
    sealed += done;
    if (done < SEAL_BATCH) return sealed;
  }
}

export interface BrokenLink {
  seq: number;
  /** The record at that place, when there is one. */
  id: string | null;
  at: string | null;
  reason: 'changed' | 'missing' | 'cut';
}

export interface ChainReport {
  chain: string;
  /** Sealed records checked (from the anchor on). */
  records: number;
  first_seq: number;
  last_seq: number;
  ok: boolean;
  broken: BrokenLink | null;
}

/**
 * Walks one chain from its anchor: every place must hold a record whose MAC is the one the
 * key computes from the previous MAC, and the last must be the head. Reads in pages.
 */
export async function verifyChain(db: Executor, key: Buffer, chain: string): Promise<ChainReport> {
  const h = await head(db, chain);
  let previous = h.anchorMac;
  let expected = h.anchorSeq + 1;
  let records = 0;
  const report = (broken: BrokenLink | null): ChainReport => ({
    chain,
    records,
    first_seq: h.anchorSeq + 1,
    last_seq: expected - 1,
    ok: broken === null,
    broken,
  });
  for (;;) {
    // Up to the head read above: what the sealer adds meanwhile is for the next check.
    const rows = await store.sealedPage(db, chain, expected, h.seq, 1000);
    for (const row of rows) {
      const seq = Number(row.chain_seq);
      if (seq !== expected) return report({ seq: expected, id: null, at: null, reason: 'missing' });
      const mac = macOf(key, previous, seq, row);
      if (!sameMac(mac, row.chain_mac)) return report({ seq, id: row.id, at: row.at, reason: 'changed' });
      previous = mac;
      expected++;
      records++;
    }
    if (rows.length < 1000) break;
  }
  // The tail: the head says how far the chain went; fewer records means some were cut.
  if (expected - 1 < h.seq) return report({ seq: expected, id: null, at: null, reason: 'cut' });
  if (h.exists && !sameMac(previous, h.mac))
    return report({ seq: expected - 1, id: null, at: null, reason: 'changed' });
  return report(null);
}

/**
 * Retention: removes the sealed records made before `before`, whole prefixes of each chain,
 * and moves the chain's anchor to the last one removed, so what remains still verifies.
 * Answers how many it removed.
 */
export async function dropBefore(db: Db, before: string, now: () => Date): Promise<number> {
  let removed = 0;
  for (const chain of await store.chains(db)) {
    removed += await db.transaction().execute(async (trx) => {
      const cut = await store.lastSealedBefore(trx, chain, before);
      if (!cut?.chain_mac) return 0;
      // Only a prefix: up to the last old record, even if a newer one sits before it.
      const deleted = await store.deleteUpTo(trx, chain, Number(cut.chain_seq));
      await store.moveAnchor(trx, chain, Number(cut.chain_seq), cut.chain_mac, now().toISOString());
      return deleted;
    });
  }
  return removed;
}
