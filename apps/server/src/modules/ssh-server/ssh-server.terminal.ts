import { createHash, randomBytes } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import type { FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import type { WebSocket } from 'ws';
import type { ClientChannel } from 'ssh2';
import { formatMessage } from '@ksp/contracts';
import { KspError, stateForbids } from '../../platform/errors.js';
import { requestLanguage } from '../../platform/http/language.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { Recorder, Recordings } from './ssh-server.recording.js';
import type { SshServerService } from './ssh-server.service.js';

/** Seconds a terminal ticket stays valid. */
export const TICKET_TTL_S = 30;
/** A session with no input nor output for this long is closed. */
export const TERMINAL_IDLE_MS = 15 * 60 * 1000;
/** A session is closed after this long, busy or not. */
export const TERMINAL_MAX_MS = 8 * 60 * 60 * 1000;
/** Terminal sessions one user may have open at once, across the cluster. */
export const TERMINAL_PER_USER = 3;
/** The path of the WebSocket; the ticket comes in its first message, never in the URL. */
export const TERMINAL_PATH = '/ws/ssh';
/** Milliseconds the browser has to send its ticket once the WebSocket is open. */
const FIRST_MESSAGE_MS = 10_000;

interface Ticket {
  actor: Actor;
  meta: RequestMeta;
  server: { id: string; name: string };
  expiresAt: number;
}

const hashOf = (ticket: string) => createHash('sha256').update(ticket).digest('hex');

/**
 * Terminal tickets, kept in memory under their SHA-256 (the ticket itself is only ever in the
 * caller's answer), and the sessions they open. A ticket is used on the node that issued it.
 */
export function createTerminals(
  servers: SshServerService,
  now: () => number,
  /** Whether the session a ticket was issued to is still alive (not signed out, switched, …). */
  sessionAlive: (sessionId: string) => Promise<boolean>,
) {
  const tickets = new Map<string, Ticket>();
  const open = new Map<string, number>();

  const sweep = () => {
    const t = now();
    for (const [hash, ticket] of tickets) if (ticket.expiresAt <= t) tickets.delete(hash);
  };

  return {
    async issue(actor: Actor, meta: RequestMeta, id: string) {
      const server = await servers.terminalTarget(actor, meta, id);
      sweep();
      const ticket = randomBytes(32).toString('base64url');
      tickets.set(hashOf(ticket), { actor, meta, server, expiresAt: now() + TICKET_TTL_S * 1000 });
      return { ticket, expires_in: TICKET_TTL_S };
    },

    /** The ticket's holder, once: a second use, or a use after it expired, answers undefined. */
    consume(ticket: string): Ticket | undefined {
      const hash = hashOf(ticket);
      const found = tickets.get(hash);
      tickets.delete(hash);
      if (!found || found.expiresAt <= now()) return undefined;
      return found;
    },

    /**
     * Refuses (audited) a ticket whose session ended since it was issued: logout, refresh,
     * domain switch, password change, or removal from the domain.
     */
    async assertSessionAlive(ticket: Ticket): Promise<void> {
      if (await sessionAlive(ticket.actor.sessionId)) return;
      const err = stateForbids('server.terminalSessionEnded');
      await servers.terminalRefused(ticket.actor, ticket.meta, ticket.server, err.messageKey);
      throw err;
    },

    /** Takes one of the user's session places; false when the user has them all. */
    take(userId: string): boolean {
      const n = open.get(userId) ?? 0;
      if (n >= TERMINAL_PER_USER) return false;
      open.set(userId, n + 1);
      return true;
    },
    release(userId: string): void {
      const n = (open.get(userId) ?? 1) - 1;
      if (n <= 0) open.delete(userId);
      else open.set(userId, n);
    },
  };
}
export type Terminals = ReturnType<typeof createTerminals>;

/** Messages the browser sends (JSON text frames). */
type ClientMessage =
  | { type: 'auth'; ticket: string; cols?: number; rows?: number }
  | { type: 'data'; data: string }
  | { type: 'resize'; cols: number; rows: number };

const size = (n: unknown, fallback: number) =>
  typeof n === 'number' && Number.isInteger(n) && n > 0 && n <= 1000 ? n : fallback;

function parse(raw: unknown): ClientMessage | undefined {
  try {
    const m = JSON.parse(String(raw)) as Record<string, unknown>;
    if (m.type === 'auth' && typeof m.ticket === 'string') return m as ClientMessage;
    if (m.type === 'data' && typeof m.data === 'string') return m as ClientMessage;
    if (m.type === 'resize') return m as ClientMessage;
  } catch {
    // not JSON: ignored below
  }
  return undefined;
}

/**
 * The WebSocket relay (docs/modules.md#web-ssh-terminal). Protocol, JSON text frames:
 * browser → `{type:'auth',ticket,cols,rows}` first, then `{type:'data',data}` and
 * `{type:'resize',cols,rows}`; server → `{type:'ready'}`, `{type:'data',data}`, and
 * `{type:'error',message}` or `{type:'exit',reason}` before it closes.
 */
export function terminalRoutes(
  app: FastifyInstance,
  servers: SshServerService,
  terminals: Terminals,
  recordings: Recordings,
  now: () => number = Date.now,
): void {
  void app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  void app.register((scope, _opts, done) => {
    scope.get(TERMINAL_PATH, { websocket: true }, (socket, req) => {
      const lang = requestLanguage(req);
      const send = (m: Record<string, unknown>) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(m));
      };
      const refuse = (err: unknown) => {
        const message =
          err instanceof KspError
            ? formatMessage(err.messageKey, lang, err.params)
            : formatMessage('server.terminalTicket', lang);
        send({ type: 'error', message });
        socket.close(4000, 'refused');
      };
      const waiting = setTimeout(() => refuse(undefined), FIRST_MESSAGE_MS);
      socket.once('message', (raw) => {
        clearTimeout(waiting);
        const first = parse(raw);
        const ticket = first?.type === 'auth' ? terminals.consume(first.ticket) : undefined;
        if (!first || first.type !== 'auth' || !ticket) return refuse(undefined);
        // The cap holds on this node at once (sessions still starting count), and across the
        // cluster through the sessions' records.
        if (!terminals.take(ticket.actor.userId))
          return refuse(stateForbids('server.terminalLimit', { limit: TERMINAL_PER_USER }));
        void terminals
          .assertSessionAlive(ticket)
          .then(() => recordings.openCount(ticket.actor.userId))
          .then((open) => {
            if (open >= TERMINAL_PER_USER)
              throw stateForbids('server.terminalLimit', { limit: TERMINAL_PER_USER });
            return session(socket, ticket, first, send);
          })
          .catch((err: unknown) => {
            terminals.release(ticket.actor.userId);
            refuse(err);
          });
      });

      async function session(
        ws: WebSocket,
        ticket: Ticket,
        first: { cols?: number; rows?: number },
        reply: typeof send,
      ) {
        const { actor, meta, server } = ticket;
        const client = await servers.terminalConnect(actor, { ...meta, lang }, server.id);
        const stream = await new Promise<ClientChannel>((resolve, reject) => {
          client.shell(
            { term: 'xterm-256color', cols: size(first.cols, 80), rows: size(first.rows, 24) },
            (err, s) => (err ? reject(err) : resolve(s)),
          );
        }).catch((err: unknown) => {
          client.end();
          throw err;
        });
        const started = now();
        let bytesIn = 0;
        let bytesOut = 0;
        let reason = 'closed';
        let ended = false;
        const cols = size(first.cols, 80);
        const rows = size(first.rows, 24);
        // No session goes unaudited nor unrecorded: if its start cannot be stored, it does not start.
        let recorder: Recorder;
        try {
          recorder = await recordings.start(actor, meta, server, { cols, rows });
          await servers.terminalAudit(actor, meta, 'server.terminal.start', server, { session: recorder.id });
        } catch (err) {
          stream.close();
          client.end();
          throw err;
        }
        reply({ type: 'ready', session: recorder.id });

        let idle = setTimeout(() => end('idle'), TERMINAL_IDLE_MS);
        const touch = () => {
          clearTimeout(idle);
          idle = setTimeout(() => end('idle'), TERMINAL_IDLE_MS);
        };
        const max = setTimeout(() => end('max-length'), TERMINAL_MAX_MS);

        function end(why: string) {
          if (ended) return;
          ended = true;
          reason = why;
          clearTimeout(idle);
          clearTimeout(max);
          terminals.release(actor.userId);
          reply({ type: 'exit', reason });
          stream.close();
          client.end();
          ws.close(1000, reason);
          void servers
            .terminalAudit(actor, meta, 'server.terminal.end', server, {
              session: recorder.id,
              reason,
              duration_s: Math.round((now() - started) / 1000),
              bytes_in: bytesIn,
              bytes_out: bytesOut,
            })
            .catch(() => undefined);
          void recorder.end(reason, bytesIn, bytesOut).catch(() => undefined);
        }

        // One decoder per stream: a character split across two packets is sent whole.
        const output = (decoder: StringDecoder) => (d: Buffer) => {
          bytesOut += d.length;
          touch();
          const text = decoder.write(d);
          if (!text) return;
          recorder.output(text);
          reply({ type: 'data', data: text });
        };
        stream.on('data', output(new StringDecoder('utf8')));
        stream.stderr.on('data', output(new StringDecoder('utf8')));
        stream.on('close', () => end('shell-exit'));
        client.on('close', () => end('connection-closed'));
        ws.on('close', () => end('browser-closed'));
        // The browser may have gone while the login ran: its close event is already past.
        if (ws.readyState !== ws.OPEN) end('browser-closed');
        ws.on('message', (raw) => {
          const m = parse(raw);
          if (m?.type === 'data') {
            bytesIn += Buffer.byteLength(m.data);
            touch();
            stream.write(m.data);
          } else if (m?.type === 'resize') {
            stream.setWindow(size(m.rows, 24), size(m.cols, 80), 0, 0);
            recorder.resize(size(m.cols, 80), size(m.rows, 24));
          }
        });
      }
    });
    done();
  });
}
