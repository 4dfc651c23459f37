import { v7 as uuidv7 } from 'uuid';
import type { LogSeverity, LogSource, TokenKind } from '@ksp/contracts';
import { nonceBytes } from './crypto/random.js';
import type { Executor } from './db/database.js';
import type { AuditTable } from './db/schema.js';
import { KspError } from './errors.js';
import type { Actor, RequestMeta } from './http/route.js';

export interface AuditSubject {
  userId: string | null;
  username: string;
  domainId: string | null;
  domainName: string;
  /** Where the action came from (the log's "source platform"); default `web`. */
  source?: LogSource;
}

export interface AuditEntry {
  who: AuditSubject | null;
  action: string;
  target: string;
  result: 'success' | 'failure';
  ip: string;
  /** Never secrets: names, ids, counts and reasons only. */
  details?: Record<string, string | number | boolean | null>;
  /** The object the record is about (a key, say), kept indexed for that object's trail. */
  objectId?: string | null;
  /** Default: WARNING for a failure, INFO otherwise. Alarms say ERROR or CRITICAL. */
  severity?: LogSeverity;
}

export const SYSTEM_SUBJECT: AuditSubject = {
  userId: null,
  username: 'system',
  domainId: null,
  domainName: '',
  source: 'scheduler',
};

/**
 * Who a record is about when a call came without a token and before any user exists (the
 * first run: initialization and activation): no user, and the source of a console call,
 * as for sign-ins. It is not the server's own work (`scheduler`).
 */
export const FIRST_RUN_SUBJECT: AuditSubject = { ...SYSTEM_SUBJECT, source: 'web' };

/** The log's source platform of a call made with a token of `kind`. */
export const sourceOfToken = (kind: TokenKind): LogSource =>
  kind === 'session' ? 'web' : kind === 'kmip' ? 'kmip' : kind === 'database' ? 'database' : 'api';

/** Longest name a record keeps from what a caller typed (the rest is cut, marked with "…"). */
export const AUDIT_TYPED_MAX = 128;

/**
 * A name a caller typed (not yet a known account's), made safe to record: control, format
 * (zero-width, bidirectional overrides), separator and lone-surrogate characters are written
 * as `\u{…}` escapes, so a record can neither break a line of an export nor pass for another
 * name, and the text is cut at `AUDIT_TYPED_MAX` characters.
 */
export function auditTypedName(text: string): string {
  const escaped = text.replace(
    /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu,
    (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`,
  );
  const chars = [...escaped];
  return chars.length > AUDIT_TYPED_MAX ? `${chars.slice(0, AUDIT_TYPED_MAX - 1).join('')}…` : escaped;
}

/** Who a record is about when the signed-in caller acted. */
export function subjectOf(actor: Actor): AuditSubject {
  return {
    // The system acting for a domain (a CA made on demand) has no user.
    userId: actor.userId || null,
    username: actor.username,
    domainId: actor.domainId,
    domainName: actor.domainName,
    source: actor.userId ? sourceOfToken(actor.kind) : 'scheduler',
  };
}

/**
 * Writes one audit record. Mutating services call it with their open transaction, so the
 * record and the change commit (or roll back) together.
 */
export async function writeAudit(db: Executor, entry: AuditEntry, at = new Date()): Promise<void> {
  await db.insertInto('audit_log').values(auditRow(entry, at)).execute();
}

/** Millisecond and counter of the last audit id this process made. */
const lastId = { msecs: -Infinity, seq: 0 };

/**
 * A time-ordered id (UUIDv7) for a record stamped `at`. New records append to the index instead
 * of landing on random pages, and within a process each id is greater than the one before, even
 * in the same millisecond: lists ordered by (at, id) show records of one instant in the order they
 * were made (a signature before the verification that followed it).
 */
function auditId(at: Date): string {
  const random = nonceBytes(16);
  const msecs = at.getTime();
  if (msecs > lastId.msecs) {
    lastId.msecs = msecs;
    // A random start in the lower half of the 31-bit counter leaves room to count up.
    lastId.seq = random.readUInt32BE(6) & 0x3fffffff;
  } else if (++lastId.seq > 0x7fffffff) {
    lastId.msecs += 1;
    lastId.seq = 0;
  }
  return uuidv7({ random, msecs: lastId.msecs, seq: lastId.seq });
}

/** The row of one audit record (for writers that batch records, such as the journal). */
export function auditRow(entry: AuditEntry, at = new Date()): AuditTable {
  const who = entry.who ?? SYSTEM_SUBJECT;
  return {
    id: auditId(at),
    at: at.toISOString(),
    user_id: who.userId,
    username: who.username,
    domain_id: who.domainId,
    domain_name: who.domainName,
    action: entry.action,
    target: entry.target,
    result: entry.result,
    source_ip: entry.ip,
    details: JSON.stringify(entry.details ?? {}),
    object_id: entry.objectId ?? null,
    count: 1,
    severity: entry.severity ?? (entry.result === 'failure' ? 'WARNING' : 'INFO'),
    area: entry.action.split('.')[0] ?? '',
    source: who.source ?? 'web',
  };
}

/** What a record of a caller's action says besides who made the call and from where. */
export interface CallerRecord {
  action: string;
  target: string;
  /** Default: `success`. */
  result?: 'success' | 'failure';
  details?: AuditEntry['details'];
  objectId?: string | null;
  severity?: LogSeverity;
}

/** The record of what the signed-in `actor` did, from the address in `meta`. */
export const callerEntry = (
  actor: Actor,
  meta: Pick<RequestMeta, 'ip'>,
  record: CallerRecord,
): AuditEntry => ({
  who: subjectOf(actor),
  ip: meta.ip,
  result: 'success',
  ...record,
  // A KMIP client's records name the certificate it connected with (docs/kmip.md#audit).
  ...(actor.kind === 'kmip' ? { details: { ...record.details, certificate: actor.sessionId } } : {}),
});

/**
 * The details of a refused call's record: the refusal's message key as `reason` and its
 * parameters (names, ids, limits; never secrets), after the record's own details.
 */
export const refusalDetails = (
  err: KspError,
  details: AuditEntry['details'] = {},
): AuditEntry['details'] => ({
  ...details,
  reason: err.messageKey,
  ...(err.params as Record<string, string | number | boolean | null>),
});

/** The audit writer modules receive: records stamped with the injected clock. */
export function createAuditWriter(clock: () => Date) {
  const write = (db: Executor, entry: AuditEntry) => writeAudit(db, entry, clock());
  return {
    /** Writes one record with the caller's transaction (or the database). */
    write,
    /** The row of one record, for writers that batch (the journal). */
    row: (entry: AuditEntry) => auditRow(entry, clock()),
    /**
     * Writes the record of what the signed-in caller did, in `db` (the transaction of the
     * change, so both commit or neither): who and the source address come from the call.
     */
    byCaller: (db: Executor, actor: Actor, meta: Pick<RequestMeta, 'ip'>, record: CallerRecord) =>
      write(db, callerEntry(actor, meta, record)),
    /**
     * Runs `work`; when it is refused (a `KspError`), writes a failure record with the refusal's
     * reason (`refusalDetails`) through `db`, then rethrows. Other errors pass unrecorded (the
     * error handler logs them). `toRefusal` turns a lower layer's error into the caller's
     * refusal first (e.g. a token's failure into its field's error).
     */
    async refusalAudited<T>(
      db: Executor,
      actor: Actor,
      meta: Pick<RequestMeta, 'ip'>,
      record: Omit<CallerRecord, 'result'>,
      work: () => Promise<T>,
      toRefusal: (err: unknown) => unknown = (err) => err,
    ): Promise<T> {
      try {
        return await work();
      } catch (err) {
        const answer = toRefusal(err);
        if (answer instanceof KspError)
          await write(
            db,
            callerEntry(actor, meta, {
              ...record,
              result: 'failure',
              details: refusalDetails(answer, record.details),
            }),
          );
        throw answer;
      }
    },
  };
}

export type AuditWriter = ReturnType<typeof createAuditWriter>;
