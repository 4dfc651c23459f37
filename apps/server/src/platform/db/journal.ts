import { CompiledQuery, sql, type Transaction } from 'kysely';
import type { DatabaseHandle, Engine, Executor } from './database.js';
import type { AuditTable, Database } from './schema.js';

/** Tables whose rows callers hand to the journal. */
export type JournalTable = keyof Database;
type RowsOf<T extends JournalTable> = readonly Database[T][];

/**
 * What one caller needs written: new rows (by table) and counters going up by one. Only
 * plain inserts and counter increments, so writes of many callers merge into a few
 * multi-row statements.
 */
export interface JournalWrites {
  /** New rows by table; tables are written in the order they were registered (parents first). */
  rows?: { [T in JournalTable]?: RowsOf<T> };
  /** Audit records (the platform's own table, written after the registered ones). */
  audit?: AuditTable[];
  /**
   * Records of repeatable operations (successful cryptographic calls). Identical ones in one
   * commit (same caller, address, action, target, result, object and details) are written as
   * one record whose `count` says how many operations it stands for; each keeps its own
   * answer and its counter. At tens of thousands of operations a second this is what keeps
   * the audit trail from costing more than the operations.
   */
  operations?: AuditTable[];
  /** Per table with a counter column: ids of the rows whose counter goes up by one. */
  counted?: { [T in JournalTable]?: readonly string[] };
  /**
   * A counted quantity this writer adds (new keys against the licence): checked in the
   * batch's own transaction, before its rows are written, by the check registered for its
   * kind (`registerClaims`). A writer refused there writes nothing and is rejected with the
   * check's error; the others of the batch are written.
   */
  claim?: JournalClaim;
}

/** What a writer adds to a counted quantity. */
export interface JournalClaim {
  kind: string;
  adding: number;
}

/**
 * Decides, inside the batch's transaction and before anything of the batch is written, which
 * of the quantities asked (in the writers' order) fit: undefined grants one, an error refuses it.
 */
export type ClaimCheck = (
  trx: Transaction<Database>,
  kind: string,
  asks: readonly number[],
) => Promise<readonly unknown[]>;

/** A table the journal may write: its columns in statement order, and its counter column if any. */
export interface JournalTableSpec<T extends JournalTable = JournalTable> {
  table: T;
  /** Every row handed over carries all of these (a missing value is written as null). */
  columns: readonly (keyof Database[T] & string)[];
  /** The column `counted` increments, matched on `id`. */
  counter?: keyof Database[T] & string;
  /**
   * The order rows of one batch are inserted in. Where triggers update shared rows (the
   * key tally), batches of two nodes then lock those rows in one order and cannot deadlock.
   */
  order?: (a: Database[T], b: Database[T]) => number;
}

/** A registered table as the statements see it: names only. */
interface TableColumns {
  table: JournalTable;
  columns: readonly string[];
  counter?: string | undefined;
  order?: ((a: never, b: never) => number) | undefined;
}

/**
 * When a writer is answered. `disk` (the default): once its rows are committed and flushed to
 * disk, so a power loss cannot take back what was answered. `commit`: once committed (a crash
 * of the KSP process loses nothing); the flush follows at once, and on PostgreSQL the server's
 * WAL writer flushes within its `wal_writer_delay` (200 ms by default, at most three times that).
 */
export type Durability = 'disk' | 'commit';

interface Pending {
  writes: JournalWrites;
  until: Durability;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Rows per INSERT: well under SQLite's and PostgreSQL's limits on bound parameters. */
const ROWS_PER_INSERT = 200;

/** The columns of an audit record the journal writes (its place in the chain is the sealing job's). */
export const AUDIT_COLUMNS = [
  'id',
  'at',
  'user_id',
  'username',
  'domain_id',
  'domain_name',
  'action',
  'target',
  'result',
  'source_ip',
  'details',
  'object_id',
  'count',
  'severity',
  'source',
  'area',
] as const satisfies readonly (keyof AuditTable)[];

/** The platform's own table; modules register theirs (`ModuleContext.journal.registerTable`). */
const auditTable: JournalTableSpec<'audit_log'> = { table: 'audit_log', columns: AUDIT_COLUMNS };

/** One record per identical operation in a commit, counting how many it stands for. */
function mergeOperations(batch: readonly JournalWrites[]): AuditTable[] {
  const merged = new Map<string, AuditTable>();
  for (const w of batch) {
    for (const r of w.operations ?? []) {
      const same = [
        r.user_id,
        r.domain_id,
        r.username,
        r.action,
        r.target,
        r.result,
        r.source_ip,
        r.object_id,
        r.details,
        r.severity,
        r.source,
      ].join('\u0000');
      const found = merged.get(same);
      if (found) found.count += r.count;
      else merged.set(same, { ...r });
    }
  }
  return [...merged.values()];
}

/**
 * The journal runs on every cryptographic call, so its statements are written once per
 * table and row count instead of being built by the query builder each time; only the
 * placeholders differ between the engines.
 */
function applier(engine: Engine, tables: ReadonlyMap<JournalTable, TableColumns>) {
  const cache = new Map<string, string>();
  const placeholder = (n: number) => (engine === 'postgres' ? `$${n}` : '?');

  function insertStatement(spec: TableColumns, rows: number): string {
    const id = `${spec.table}/${rows}`;
    let text = cache.get(id);
    if (!text) {
      let n = 0;
      const tuple = () => `(${spec.columns.map(() => placeholder(++n)).join(', ')})`;
      const tuples = Array.from({ length: rows }, tuple).join(', ');
      text = `insert into "${spec.table}" (${spec.columns.map((c) => `"${c}"`).join(', ')}) values ${tuples}`;
      cache.set(id, text);
    }
    return text;
  }

  function countStatement(spec: TableColumns): string {
    const id = `${spec.table}/count`;
    let text = cache.get(id);
    if (!text) {
      const c = `"${spec.counter!}"`;
      text = `update "${spec.table}" set ${c} = ${c} + ${placeholder(1)} where "id" = ${placeholder(2)}`;
      cache.set(id, text);
    }
    return text;
  }

  async function insert(trx: Executor, spec: TableColumns, rows: readonly object[]) {
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
      const chunk = rows.slice(i, i + ROWS_PER_INSERT) as Record<string, unknown>[];
      const parameters = chunk.flatMap((row) => spec.columns.map((c) => row[c] ?? null));
      await trx.executeQuery(CompiledQuery.raw(insertStatement(spec, chunk.length), parameters));
    }
  }

  /** What a batch writes: rows by table (registered tables first, then audit), and counts. */
  function plan(batch: readonly JournalWrites[]) {
    const inserts: { spec: TableColumns; rows: readonly object[] }[] = [];
    for (const spec of tables.values()) {
      const rows = batch.flatMap((w) => (w.rows?.[spec.table] ?? []) as readonly object[]);
      if (spec.order && rows.length > 1) rows.sort(spec.order as (a: object, b: object) => number);
      if (rows.length) inserts.push({ spec, rows });
    }
    const audit = [...batch.flatMap((w) => w.audit ?? []), ...mergeOperations(batch)];
    if (audit.length) inserts.push({ spec: auditTable, rows: audit });
    const counts: { spec: TableColumns; ids: [string, number][] }[] = [];
    for (const spec of tables.values()) {
      if (!spec.counter) continue;
      const byId = new Map<string, number>();
      for (const w of batch)
        for (const id of w.counted?.[spec.table] ?? []) byId.set(id, (byId.get(id) ?? 0) + 1);
      // Always in the same order, so two nodes' batches cannot deadlock on PostgreSQL.
      if (byId.size) counts.push({ spec, ids: [...byId].sort(([a], [b]) => (a < b ? -1 : 1)) });
    }
    return { inserts, counts };
  }

  /** Every statement of a batch on its own (SQLite, where a statement costs no round trip). */
  async function apply(trx: Executor, batch: readonly JournalWrites[]): Promise<void> {
    const { inserts, counts } = plan(batch);
    for (const { spec, rows } of inserts) await insert(trx, spec, rows);
    for (const { spec, ids } of counts) {
      for (const [id, n] of ids) await trx.executeQuery(CompiledQuery.raw(countStatement(spec), [n, id]));
    }
  }

  /**
   * The whole batch as one PostgreSQL statement (data-modifying WITH clauses), which commits
   * on its own: one round trip instead of one per statement plus BEGIN and COMMIT. Relaxed
   * batches set synchronous_commit off for that one transaction. Undefined when the batch is
   * too large for one statement's parameters.
   */
  function oneStatement(batch: readonly JournalWrites[], relaxed: boolean): CompiledQuery | undefined {
    const { inserts, counts } = plan(batch);
    const parameters: unknown[] = [];
    const param = (value: unknown, cast = '') => {
      parameters.push(value);
      return `$${parameters.length}${cast}`;
    };
    const parts: string[] = [];
    for (const { spec, rows } of inserts) {
      const tuples = (rows as Record<string, unknown>[]).map(
        (row) => `(${spec.columns.map((c) => param(row[c] ?? null)).join(', ')})`,
      );
      const columns = spec.columns.map((c) => `"${c}"`).join(', ');
      parts.push(`insert into "${spec.table}" (${columns}) values ${tuples.join(', ')}`);
    }
    for (const { spec, ids } of counts) {
      const c = `"${spec.counter!}"`;
      const values = ids.map(([id, n]) => `(${param(id, '::text')}, ${param(n, '::integer')})`).join(', ');
      parts.push(
        `update "${spec.table}" set ${c} = "${spec.table}".${c} + v.n from (values ${values}) as v (id, n) ` +
          `where "${spec.table}"."id" = v.id`,
      );
    }
    if (parameters.length > PG_MAX_PARAMETERS) return undefined;
    const main = relaxed ? `select set_config('synchronous_commit', 'off', true)` : 'select 1';
    if (!parts.length) return undefined;
    const sqlText = `with ${parts.map((p, i) => `w${i} as (${p})`).join(', ')} ${main}`;
    return CompiledQuery.raw(sqlText, parameters);
  }

  return { apply, oneStatement };
}

/** Bound parameters in one PostgreSQL statement: the protocol allows 65,535. */
const PG_MAX_PARAMETERS = 30_000;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Group commit. The hot paths (every cryptographic operation, key creation) hand their rows
 * to the journal instead of opening a transaction each: whatever arrives while a commit is
 * under way is written by the next one, in one transaction. A caller's promise settles only
 * once its rows are committed, and, unless it asked for `commit` durability, flushed to disk
 * (and then nobody reads them before they are). A batch of `commit` writers starts its flush
 * and the next batch commits while it runs.
 *
 * If a merged commit fails (a unique name taken twice in the same batch, say), each caller's
 * writes are retried alone, so only the caller at fault sees the error.
 */
export function createJournal(
  database: Pick<DatabaseHandle, 'db' | 'engine' | 'walSync' | 'deferFlush'>,
  log: { error(message: string): void } = console,
) {
  const { db, engine, walSync, deferFlush } = database;
  const tables = new Map<JournalTable, TableColumns>();
  const claimChecks = new Map<string, ClaimCheck>();
  const { apply, oneStatement } = applier(engine, tables);
  let queue: Pending[] = [];
  let running: Promise<void> | null = null;
  const flushing = new Set<Promise<void>>();

  /**
   * The batch's claims, checked first in its transaction (so the check's lock is taken before
   * anything else): the writers refused, with their errors.
   */
  async function claim(
    trx: Transaction<Database>,
    batch: readonly Pending[],
  ): Promise<Map<Pending, unknown>> {
    const refused = new Map<Pending, unknown>();
    const byKind = new Map<string, Pending[]>();
    for (const p of batch) {
      const c = p.writes.claim;
      if (!c) continue;
      const list = byKind.get(c.kind);
      if (list) list.push(p);
      else byKind.set(c.kind, [p]);
    }
    // Kinds in one order: two batches cannot deadlock on their locks.
    for (const kind of [...byKind.keys()].sort()) {
      const claimants = byKind.get(kind)!;
      const check = claimCheck(kind);
      const verdicts = await check(
        trx,
        kind,
        claimants.map((p) => p.writes.claim!.adding),
      );
      claimants.forEach((p, i) => {
        if (verdicts[i] !== undefined) refused.set(p, verdicts[i]);
      });
    }
    return refused;
  }

  function claimCheck(kind: string): ClaimCheck {
    const check = claimChecks.get(kind);
    if (!check) throw new Error(`Journal claim '${kind}' has no check registered`);
    return check;
  }

  /** Commits one transaction; resolves at commit with the promise of its flush and the writers refused. */
  async function transaction(
    batch: readonly Pending[],
  ): Promise<{ onDisk: Promise<void>; refused: Map<Pending, unknown> }> {
    const relaxed = batch.every((p) => p.until === 'commit');
    const claiming = batch.some((p) => p.writes.claim);
    let refused = new Map<Pending, unknown>();
    const admitted = () => batch.filter((p) => !refused.has(p)).map((p) => p.writes);
    if (engine === 'postgres') {
      // A batch with claims needs its check and its rows in one transaction (the check's
      // count must see what committed before its lock): not one statement.
      const statement = claiming ? undefined : oneStatement(admitted(), relaxed);
      if (statement) {
        await db.executeQuery(statement);
        return { onDisk: Promise.resolve(), refused };
      }
      await db.transaction().execute(async (trx) => {
        // The server flushes this commit with its next WAL write instead of before answering.
        if (relaxed) await sql`set local synchronous_commit to off`.execute(trx);
        if (claiming) refused = await claim(trx, batch);
        await apply(trx, admitted());
      });
      return { onDisk: Promise.resolve(), refused };
    }
    // A batch with a writer that waits for the disk flushes before the connection is free
    // (nobody reads its rows before they are durable); a batch of operation records only
    // starts its flush.
    let deferred: { changed: boolean } | undefined;
    await db.transaction().execute(async (trx) => {
      if (relaxed) deferred = deferFlush?.();
      if (claiming) refused = await claim(trx, batch);
      await apply(trx, admitted());
    });
    return { onDisk: deferred?.changed && walSync ? walSync() : Promise.resolve(), refused };
  }

  /** Answers each caller at its durability; the flush is awaited by the callers that wait for it. */
  function settle(batch: readonly Pending[], onDisk: Promise<void>): void {
    const waiting = batch.filter((p) => p.until === 'disk');
    for (const p of batch) if (p.until === 'commit') p.resolve();
    const done = onDisk.then(
      () => {
        for (const p of waiting) p.resolve();
      },
      (err: unknown) => {
        if (waiting.length) for (const p of waiting) p.reject(err);
        else log.error(`Committed records could not be flushed to disk: ${String(err)}`);
      },
    );
    flushing.add(done);
    void done.finally(() => flushing.delete(done));
  }

  /** Commits a batch: its refused writers are rejected, the others answered as `settle` says. */
  async function commitOnce(batch: Pending[]): Promise<void> {
    const { onDisk, refused } = await transaction(batch);
    for (const [p, err] of refused) p.reject(err);
    settle(refused.size ? batch.filter((p) => !refused.has(p)) : batch, onDisk);
  }

  async function commit(batch: Pending[]): Promise<void> {
    try {
      await commitOnce(batch);
      return;
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
    }
    for (const p of batch) {
      try {
        await commitOnce([p]);
      } catch (err) {
        p.reject(err);
      }
    }
  }

  async function drainQueue(): Promise<void> {
    // Let the requests already read from the sockets join the first batch.
    await nextTurn();
    while (queue.length > 0) {
      // And once more before each batch: the callers answered by the last commit send their
      // next requests over several turns of the event loop. Measured (bench, SQLite, encrypt):
      // batches of about 9 at 16 clients without this turn; with it, 20–30 % more operations
      // a second and 20 % less CPU per operation, at 16 and at 64 clients.
      await nextTurn();
      const batch = queue;
      queue = [];
      await commit(batch);
    }
    running = null;
  }

  return {
    /** Lets callers hand over rows of one more table (at registration, before any write). */
    registerTable<T extends JournalTable>(spec: JournalTableSpec<T>): void {
      if (tables.has(spec.table) || spec.table === auditTable.table) {
        throw new Error(`Journal table '${spec.table}' is registered twice`);
      }
      tables.set(spec.table, spec);
    },
    /** Sets the check of one kind of claim (at registration, before any write). */
    registerClaims(kind: string, check: ClaimCheck): void {
      if (claimChecks.has(kind)) throw new Error(`Journal claim '${kind}' is registered twice`);
      claimChecks.set(kind, check);
    },
    /**
     * Resolves once the writes are committed and, by default, on disk (see `Durability`);
     * rejects with the database's error otherwise.
     */
    write(writes: JournalWrites, until: Durability = 'disk'): Promise<void> {
      const unknown = [...Object.keys(writes.rows ?? {}), ...Object.keys(writes.counted ?? {})].find(
        (t) => !tables.has(t as JournalTable),
      );
      if (unknown) return Promise.reject(new Error(`Journal table '${unknown}' is not registered`));
      if (writes.claim && !claimChecks.has(writes.claim.kind))
        return Promise.reject(new Error(`Journal claim '${writes.claim.kind}' has no check registered`));
      return new Promise<void>((resolve, reject) => {
        queue.push({ writes, until, resolve, reject });
        running ??= drainQueue();
      });
    },
    /**
     * Runs `work` in one transaction whose rows others may read before they are on disk (on
     * SQLite the connection is free again at commit, while the WAL flush runs), and resolves
     * with its result once they are on disk. For frequent small writes that readers may see
     * early and lose to a power cut without harm, whose writer still answers only when they
     * are durable (the agents' heartbeats). PostgreSQL: an ordinary transaction.
     */
    async commitThenFlush<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
      let deferred: { changed: boolean } | undefined;
      const result = await db.transaction().execute((trx) => {
        deferred = deferFlush?.();
        return work(trx);
      });
      if (deferred?.changed && walSync) await walSync();
      return result;
    },
    /** Waits for every write handed over so far, and its flush (at shutdown). */
    async flush(): Promise<void> {
      while (running) await running;
      await Promise.all(flushing);
    },
  };
}

export type Journal = ReturnType<typeof createJournal>;
