import { CompiledQuery } from 'kysely';
import type { Db, Engine, Executor } from './database.js';
import type { AuditTable, KeyTable, KeyVersionTable } from './schema.js';

/**
 * What one caller needs written: new rows (parents before children) and key usage counts.
 * Only plain inserts and counter increments, so writes of many callers merge into a few
 * multi-row statements.
 */
export interface JournalWrites {
  keys?: KeyTable[];
  versions?: KeyVersionTable[];
  audit?: AuditTable[];
  /** Ids of keys whose operation counter goes up by one. */
  counted?: string[];
}

interface Pending {
  writes: JournalWrites;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Rows per INSERT: well under SQLite's and PostgreSQL's limits on bound parameters. */
const ROWS_PER_INSERT = 200;

/** The columns the journal writes, in statement order (every row carries all of them). */
const columns = {
  kms_key: [
    'id',
    'domain_id',
    'name',
    'algorithm',
    'object_type',
    'usage_mask',
    'state',
    'current_version',
    'owner_id',
    'owner_name',
    'exportable',
    'deletable',
    'linked_key_id',
    'description',
    'labels',
    'cte',
    'kmip_total',
    'operations',
    'activation_date',
    'deactivation_date',
    'revocation_reason',
    'revocation_message',
    'destroyed_at',
    'created_at',
    'updated_at',
  ],
  kms_key_version: [
    'key_id',
    'version',
    'material_wrapped',
    'public_key',
    'kcv',
    'fingerprint',
    'created_at',
  ],
  audit_log: [
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
  ],
} satisfies {
  kms_key: (keyof KeyTable)[];
  kms_key_version: (keyof KeyVersionTable)[];
  audit_log: (keyof AuditTable)[];
};
type JournalTable = keyof typeof columns;

/**
 * The journal runs on every cryptographic call, so its statements are written once per
 * table and row count instead of being built by the query builder each time; only the
 * placeholders differ between the engines.
 */
function insertStatements(engine: Engine) {
  const cache = new Map<string, string>();
  return (table: JournalTable, rows: number): string => {
    const id = `${table}/${rows}`;
    let text = cache.get(id);
    if (!text) {
      const cols = columns[table];
      let n = 0;
      const tuple = () => `(${cols.map(() => (engine === 'postgres' ? `$${++n}` : '?')).join(', ')})`;
      const tuples = Array.from({ length: rows }, tuple).join(', ');
      text = `insert into "${table}" (${cols.map((c) => `"${c}"`).join(', ')}) values ${tuples}`;
      cache.set(id, text);
    }
    return text;
  };
}

function applier(engine: Engine) {
  const statement = insertStatements(engine);
  const countStatement =
    engine === 'postgres'
      ? 'update "kms_key" set "operations" = "operations" + $1 where "id" = $2'
      : 'update "kms_key" set "operations" = "operations" + ? where "id" = ?';

  async function insert(trx: Executor, table: JournalTable, rows: readonly object[]) {
    const cols = columns[table] as readonly string[];
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
      const chunk = rows.slice(i, i + ROWS_PER_INSERT) as Record<string, unknown>[];
      const parameters = chunk.flatMap((row) => cols.map((c) => row[c] ?? null));
      await trx.executeQuery(CompiledQuery.raw(statement(table, chunk.length), parameters));
    }
  }

  return async function apply(trx: Executor, batch: readonly JournalWrites[]): Promise<void> {
    const keys = batch.flatMap((w) => w.keys ?? []);
    const versions = batch.flatMap((w) => w.versions ?? []);
    const audit = batch.flatMap((w) => w.audit ?? []);
    const counts = new Map<string, number>();
    for (const w of batch) for (const id of w.counted ?? []) counts.set(id, (counts.get(id) ?? 0) + 1);
    if (keys.length) await insert(trx, 'kms_key', keys);
    if (versions.length) await insert(trx, 'kms_key_version', versions);
    if (audit.length) await insert(trx, 'audit_log', audit);
    // Always in the same order, so two nodes' batches cannot deadlock on PostgreSQL.
    for (const [id, n] of [...counts].sort(([a], [b]) => (a < b ? -1 : 1))) {
      await trx.executeQuery(CompiledQuery.raw(countStatement, [n, id]));
    }
  };
}

/**
 * Group commit. The hot paths (every cryptographic operation, key creation) hand their rows
 * to the journal instead of opening a transaction each: whatever arrives while a commit is
 * under way is written by the next one, in one transaction. A caller's promise settles only
 * once its rows are committed, so nothing is answered that a crash could lose.
 *
 * If a merged commit fails (a unique name taken twice in the same batch, say), each caller's
 * writes are retried alone, so only the caller at fault sees the error.
 */
export function createJournal(db: Db, engine: Engine) {
  const apply = applier(engine);
  let queue: Pending[] = [];
  let running: Promise<void> | null = null;

  async function commit(batch: Pending[]): Promise<void> {
    try {
      await db.transaction().execute((trx) =>
        apply(
          trx,
          batch.map((p) => p.writes),
        ),
      );
      for (const p of batch) p.resolve();
      return;
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
    }
    for (const p of batch) {
      try {
        await db.transaction().execute((trx) => apply(trx, [p.writes]));
        p.resolve();
      } catch (err) {
        p.reject(err);
      }
    }
  }

  async function drainQueue(): Promise<void> {
    // Let the requests already read from the sockets join the first batch.
    await new Promise<void>((r) => setImmediate(r));
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      await commit(batch);
    }
    running = null;
  }

  return {
    /** Resolves once the writes are committed; rejects with the database's error otherwise. */
    write(writes: JournalWrites): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        queue.push({ writes, resolve, reject });
        running ??= drainQueue();
      });
    },
    /** Waits for every write handed over so far (at shutdown). */
    async flush(): Promise<void> {
      while (running) await running;
    },
  };
}

export type Journal = ReturnType<typeof createJournal>;
