import { v7 as uuidv7 } from 'uuid';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db, Executor } from '../../platform/db/database.js';
import type { SshSessionTable } from '../../platform/db/schema.js';
import { notFound } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { DomainSealer } from '../../platform/keyring/domain-sealer.js';
import {
  findSession,
  insertChunk,
  insertSession,
  listChunks,
  listSessions,
  openSessionCount,
  updateSession,
} from './ssh-server.store.js';

/** Buffered output is sealed and stored at least this often (ms): a node that dies loses at most this much. */
export const RECORDING_FLUSH_MS = 2_000;
/** …or as soon as this much is buffered (bytes of asciicast lines). */
export const RECORDING_FLUSH_BYTES = 64 * 1024;
/** A recording stops growing here (bytes of asciicast lines); the session goes on, marked truncated. */
export const RECORDING_MAX_BYTES = 32 * 1024 * 1024;
/** An open session raises `alive_at` this often (ms). */
export const SESSION_ALIVE_MS = 30_000;
/** A session not raised for this long (ms) and never ended was cut off (its node stopped). */
const SESSION_LOST_MS = 3 * SESSION_ALIVE_MS;

const aad = (sessionId: string, seq: number) => `ssh_session:${sessionId}:${seq}`;

export type SessionStatus = 'active' | 'ended' | 'interrupted';

/** One session as the detail page lists it. */
export interface SessionView {
  id: string;
  user_name: string;
  ip: string;
  started_at: string;
  ended_at: string | null;
  status: SessionStatus;
  end_reason: string | null;
  duration_s: number | null;
  bytes_in: number;
  bytes_out: number;
  recording_bytes: number;
  recording_truncated: boolean;
}

/** What the terminal relay feeds while a session runs. */
export interface Recorder {
  readonly id: string;
  /** Terminal output, as the browser receives it. */
  output(data: string): void;
  resize(cols: number, rows: number): void;
  /** Stores what is buffered and closes the session's row. */
  end(reason: string, bytesIn: number, bytesOut: number): Promise<void>;
}

/**
 * Terminal session records and their asciicast v2 recordings (https://docs.asciinema.org/
 * manual/asciicast/v2/): output ("o") and resize ("r") events, and a marker ("m") where the
 * recording stopped. Keystrokes are not recorded: a password typed at a prompt (sudo, su)
 * would otherwise be kept. Events are buffered, then sealed under the domain's KEK in chunks.
 */
export function createRecordings(deps: {
  db: Db;
  sealer: DomainSealer;
  clock: Clock;
  maxBytes?: number;
  flushMs?: number;
}) {
  const { db, sealer, clock } = deps;
  const maxBytes = deps.maxBytes ?? RECORDING_MAX_BYTES;

  function view(row: SshSessionTable): SessionView {
    const alive = Date.parse(row.alive_at);
    const status: SessionStatus = row.ended_at
      ? 'ended'
      : clock().getTime() - alive > SESSION_LOST_MS
        ? 'interrupted'
        : 'active';
    const end = row.ended_at ?? (status === 'interrupted' ? row.alive_at : null);
    return {
      id: row.id,
      user_name: row.user_name,
      ip: row.ip,
      started_at: row.started_at,
      ended_at: row.ended_at,
      status,
      end_reason: row.end_reason ?? (status === 'interrupted' ? 'interrupted' : null),
      duration_s: end ? Math.max(0, Math.round((Date.parse(end) - Date.parse(row.started_at)) / 1000)) : null,
      bytes_in: Number(row.bytes_in),
      bytes_out: Number(row.bytes_out),
      recording_bytes: Number(row.recording_bytes),
      recording_truncated: row.recording_truncated === 1,
    };
  }

  async function sessionOf(domainId: string, sessionId: string): Promise<SshSessionTable> {
    const row = await findSession(db, domainId, sessionId);
    if (!row) throw notFound('server.sessionNotFound', { id: sessionId });
    return row;
  }

  return {
    /** Opens a session's row; a session whose row cannot be written does not start. */
    async start(
      actor: Actor,
      meta: RequestMeta,
      server: { id: string; name: string },
      size: { cols: number; rows: number },
    ): Promise<Recorder> {
      const id = uuidv7();
      const started = clock();
      await insertSession(db, {
        id,
        domain_id: actor.domainId,
        server_id: server.id,
        user_id: actor.userId,
        user_name: actor.username,
        ip: meta.ip,
        cols: size.cols,
        rows: size.rows,
        started_at: started.toISOString(),
        alive_at: started.toISOString(),
        ended_at: null,
        end_reason: null,
        bytes_in: 0,
        bytes_out: 0,
        recording_bytes: 0,
        recording_truncated: 0,
      });

      let pending: string[] = [];
      let pendingBytes = 0;
      let recorded = 0;
      let seq = 0;
      let truncated = false;
      let lastAlive = started.getTime();
      // Chunks are written one after another, in order; a failed write truncates the recording.
      let writing: Promise<void> = Promise.resolve();

      const elapsed = () => Math.max(0, (clock().getTime() - started.getTime()) / 1000);
      const event = (code: 'o' | 'r' | 'm', data: string) => {
        if (truncated) return;
        let line = `${JSON.stringify([Number(elapsed().toFixed(6)), code, data])}\n`;
        if (recorded + Buffer.byteLength(line) > maxBytes) {
          truncated = true;
          line = `${JSON.stringify([Number(elapsed().toFixed(6)), 'm', 'recording size limit reached'])}\n`;
        }
        const n = Buffer.byteLength(line);
        pending.push(line);
        pendingBytes += n;
        recorded += n;
        if (pendingBytes >= RECORDING_FLUSH_BYTES) void flush();
      };

      const store = async (trx: Executor, n: number, text: string) => {
        const sealed = await sealer.seal(trx, actor.domainId, aad(id, n), Buffer.from(text, 'utf8'));
        await insertChunk(trx, id, n, sealed);
      };
      function flush(): Promise<void> {
        const now = clock().getTime();
        const raise = now - lastAlive >= SESSION_ALIVE_MS;
        if (pending.length === 0 && !raise) return writing;
        const text = pending.join('');
        const n = pending.length > 0 ? seq++ : -1;
        pending = [];
        pendingBytes = 0;
        if (raise) lastAlive = now;
        writing = writing
          .then(async () => {
            if (n >= 0) await store(db, n, text);
            if (raise) {
              await updateSession(db, id, {
                alive_at: new Date(now).toISOString(),
                recording_bytes: recorded,
              });
            }
          })
          .catch(() => {
            truncated = true;
          });
        return writing;
      }
      const timer = setInterval(() => void flush(), deps.flushMs ?? RECORDING_FLUSH_MS);
      timer.unref();

      return {
        id,
        output: (data) => event('o', data),
        resize: (cols, rows) => event('r', `${cols}x${rows}`),
        async end(reason, bytesIn, bytesOut) {
          clearInterval(timer);
          await flush();
          await updateSession(db, id, {
            ended_at: clock().toISOString(),
            alive_at: clock().toISOString(),
            end_reason: reason,
            bytes_in: bytesIn,
            bytes_out: bytesOut,
            recording_bytes: recorded,
            recording_truncated: truncated ? 1 : 0,
          });
        },
      };
    },

    /** The user's sessions open now on any node (ended or cut off ones do not count). */
    async openCount(userId: string): Promise<number> {
      return openSessionCount(db, userId, new Date(clock().getTime() - SESSION_LOST_MS).toISOString());
    },

    /** A server's sessions, latest first (the server was checked to be the caller's). */
    async list(serverId: string, page: number, pageSize: number) {
      const { rows, total } = await listSessions(db, serverId, { page, page_size: pageSize });
      return { data: rows.map(view), total };
    },

    /** The session (of the caller's domain) and its server id, or 4040. */
    async find(actor: Actor, sessionId: string) {
      const row = await sessionOf(actor.domainId, sessionId);
      return { session: view(row), serverId: row.server_id };
    },

    /** The whole recording as an asciicast v2 file: the header line, then the events. */
    async cast(actor: Actor, sessionId: string, title: string): Promise<string> {
      const row = await sessionOf(actor.domainId, sessionId);
      const chunks = await listChunks(db, row.id);
      const header = {
        version: 2,
        width: row.cols,
        height: row.rows,
        timestamp: Math.floor(Date.parse(row.started_at) / 1000),
        title,
        env: { TERM: 'xterm-256color' },
      };
      const parts = [`${JSON.stringify(header)}\n`];
      for (const chunk of chunks) {
        const plain = await sealer.open(db, row.domain_id, aad(row.id, chunk.seq), chunk.data_sealed);
        parts.push(plain.toString('utf8'));
      }
      return parts.join('');
    },
  };
}

export type Recordings = ReturnType<typeof createRecordings>;
