/**
 * The agent listener's thread (agent-listener.ts starts it): an HTTP(S) server on the agent
 * port that answers agents' heartbeats off the API's event loop. It reads the client row on
 * its own connection (read-only) and judges the call with the same code as the API port
 * (agent-auth.ts); everything that writes or needs another module (recording the accepted
 * call, the audit record of a refusal, a certificate's full check, a deletion's
 * acknowledgement) is asked of the main thread, whose answers it waits for.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttp, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import { randomUUID } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import {
  api,
  CLIENT_HEARTBEAT_SECONDS,
  Code,
  formatMessage,
  HeartbeatPayload,
  PRODUCT_VERSION,
  VERSION_HEADER,
  type Language,
  type MessageKey,
} from '@ksp/contracts';
import { headersLanguage } from '../../platform/http/language.js';
import { RefusalCounter } from '../../platform/http/refusal-counter.js';
import { describeIssues } from '../../platform/http/validation-message.js';
import {
  AGENT_ROW_SQL,
  agentRead,
  CheckedCertificates,
  HEARTBEAT_REFUSALS_PER_MINUTE,
  judgeAgentCall,
  type AgentRowResult,
  type RefusalReason,
} from './agent-auth.js';
import type { ClientTable } from '../../platform/db/schema.js';
import { createPgPool } from '../../platform/db/pg-failover.js';
import type { ListenerData, MainAnswer, Touch, WorkerAsk } from './agent-listener.js';

const data = workerData as ListenerData;

const port = parentPort!;
const HEARTBEAT_PATH = api.client.heartbeat.path;
const HeartbeatBody = api.client.heartbeat.body!;
/** A signed heartbeat is a few KB at most (its payload ≤ 16 KB): more is refused unread. */
const BODY_LIMIT = 64 * 1024;
/** How long a readiness answer of the main thread is relied on. */
const READINESS_MS = 1000;

// ---- asking the main thread -------------------------------------------------------------

let nextAsk = 1;
const asked = new Map<number, (answer: MainAnswer) => void>();
/** Asks the main thread; every question has an answer (`data`, or the `error` to answer). */
function ask(question: WorkerAsk): Promise<MainAnswer> {
  const id = nextAsk++;
  return new Promise<MainAnswer>((resolve) => {
    asked.set(id, resolve);
    port.postMessage({ ...question, id });
  });
}

/**
 * Accepted calls are sent to the main thread to be recorded in batches: the first at once, and
 * those judged while a batch is with the main thread (its group commit takes up to
 * `TOUCH_BATCH_MS`) together in the next message. A fleet's heartbeats then cost the API's
 * event loop a message per batch, not one per heartbeat.
 */
let touchQueue: { call: Touch; resolve: (answer: MainAnswer) => void }[] = [];
let touching = false;
function touch(call: Touch): Promise<MainAnswer> {
  return new Promise<MainAnswer>((resolve) => {
    touchQueue.push({ call, resolve });
    // After this turn: the calls of one batch of reads (below) are judged in the same turn,
    // and go to the main thread as one message.
    if (!touching) {
      touching = true;
      setImmediate(() => void sendTouches());
    }
  });
}
async function sendTouches() {
  touching = true;
  try {
    while (touchQueue.length) {
      const batch = touchQueue;
      touchQueue = [];
      const answer = await ask({ op: 'touches', calls: batch.map((t) => t.call) });
      batch.forEach((t, i) =>
        t.resolve('error' in answer ? answer : { data: (answer.data as boolean[])[i] === true }),
      );
    }
  } finally {
    touching = false;
  }
}

const refusals = new RefusalCounter(HEARTBEAT_REFUSALS_PER_MINUTE, () => Date.now());
const closers: (() => unknown)[] = [];
let listeningPort = 0;
const checked = new CheckedCertificates();

// ---- the client row, on this thread's own connection -----------------------------------

/** The client rows of several calls, read together. */
const readRows: (ids: string[]) => Promise<Map<string, AgentRowResult>> = (() => {
  if (data.connection.engine === 'sqlite') {
    const sqlite = new BetterSqlite3(data.connection.file, { readonly: true, fileMustExist: true });
    sqlite.pragma('busy_timeout = 5000');
    const statement = sqlite.prepare(`${AGENT_ROW_SQL}?`);
    closers.push(() => sqlite.close());
    return (ids: string[]) => {
      const rows = new Map<string, AgentRowResult>();
      const read = sqlite.transaction(() => {
        for (const id of ids) {
          const row = statement.get(id) as AgentRowResult | undefined;
          if (row) rows.set(id, row);
        }
      });
      read();
      return Promise.resolve(rows);
    };
  }
  // The same pool as the API's: one host, or the primary of several (platform/db/pg-failover.ts).
  const pool = createPgPool(data.connection.url, { max: 2 });
  pool.on('error', () => undefined);
  closers.push(() => pool.end());
  // A named statement: each connection parses and plans it once, not on every batch.
  const query = { name: 'ksp-agent-rows', text: `${AGENT_ROW_SQL}any($1::text[])` };
  return async (ids: string[]) => {
    const client = await pool.connect();
    try {
      const result = await client.query<AgentRowResult>({ ...query, values: [ids] });
      return new Map(result.rows.map((row) => [row.id, row]));
    } finally {
      client.release();
    }
  };
})();

/**
 * How long the first call of a batch waits for others before the rows are read. Each time this
 * thread wakes (a call arriving, a database answer, the main thread's answer) costs it more
 * than most of a call's own work; a fleet's calls read together, judged in one turn and
 * recorded in one message cost one database answer and one main-thread answer per batch
 * instead of per call. The main thread's group commit of accepted calls (one every 100 ms)
 * already bounds an answer's wait; this adds at most this much to it.
 */
const READ_BATCH_MS = 40;
/** Calls of one batch at most (the rest wait for the next). */
const READ_BATCH_MAX = 500;
let reads: {
  id: string;
  resolve: (row: AgentRowResult | undefined) => void;
  reject: (err: unknown) => void;
}[] = [];
let readTimer: NodeJS.Timeout | null = null;
function readBatch() {
  readTimer = null;
  const batch = reads.slice(0, READ_BATCH_MAX);
  reads = reads.slice(READ_BATCH_MAX);
  if (reads.length) readTimer = setTimeout(readBatch, 0);
  readRows([...new Set(batch.map((r) => r.id))]).then(
    (rows) => batch.forEach((r) => r.resolve(rows.get(r.id))),
    (err: unknown) => batch.forEach((r) => r.reject(err)),
  );
}
/** The client row of one call, read with the other calls of its batch. */
function readRow(id: string): Promise<AgentRowResult | undefined> {
  return new Promise((resolve, reject) => {
    reads.push({ id, resolve, reject });
    readTimer ??= setTimeout(readBatch, READ_BATCH_MS);
  });
}

// ---- answers ----------------------------------------------------------------------------

class Answer {
  constructor(
    readonly status: number,
    readonly code: number,
    readonly msg: string,
    readonly data: unknown = null,
  ) {}
}
const fail = (
  lang: Language,
  code: number,
  key: MessageKey,
  params?: Record<string, string | number>,
  status = 200,
) => new Answer(status, code, formatMessage(key, lang, params), null);

function send(res: ServerResponse, answer: Answer) {
  const body = JSON.stringify({ code: answer.code, msg: answer.msg, data: answer.data });
  res.writeHead(answer.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    [VERSION_HEADER]: PRODUCT_VERSION,
  });
  res.end(body);
}

let readiness: { at: number; answer: Promise<MainAnswer> } | null = null;
function ready(): Promise<MainAnswer> {
  const now = Date.now();
  if (!readiness || now - readiness.at > READINESS_MS) readiness = { at: now, answer: ask({ op: 'ready' }) };
  return readiness.answer;
}

// ---- a heartbeat ------------------------------------------------------------------------

async function heartbeat(req: IncomingMessage, raw: string, lang: Language): Promise<Answer> {
  const meta = {
    ip: (req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''),
    lang,
    userAgent: String(req.headers['user-agent'] ?? '').slice(0, 256),
  };
  const state = await ready();
  if ('error' in state) return fromMain(state, lang);
  let parsed: unknown;
  try {
    parsed = raw.trim() === '' ? undefined : JSON.parse(raw);
  } catch {
    return fail(lang, Code.INVALID, 'error.badJson');
  }
  const checkedBody = HeartbeatBody.safeParse(parsed ?? {});
  if (!checkedBody.success) {
    const issues = checkedBody.error.issues.map((issue) => {
      const { path, code, message, ...params } = issue;
      return { keyword: code, instancePath: `/${path.join('/')}`, message, params };
    });
    return new Answer(200, Code.INVALID, describeIssues(issues, 'body', lang));
  }
  const body = checkedBody.data;
  // Past the address's refusals of the minute: 429 before any check (the first one audited).
  // Decided in the same turn as the judgement that follows it and the refusal's count: the
  // calls of one batch of reads are judged in one turn, so that parallel forged calls cannot
  // all pass the limit.
  const limited = (): Promise<Answer> | null => {
    const over = refusals.overLimit(meta.ip);
    if (over === 'no') return null;
    const answer = fail(lang, 429, 'error.rateLimited', undefined, 429);
    return over === 'first' ? ask({ op: 'rateLimited', meta }).then(() => answer) : Promise.resolve(answer);
  };
  // A refusal: counted at once, audited by the main thread before it is answered.
  const refuse = async (reason: RefusalReason | 'payload', row?: ClientTable, why?: string) => {
    refusals.count(meta.ip);
    await ask({
      op: 'refused',
      meta,
      clientId: body.client_id,
      ...(row ? { row: { id: row.id, name: row.name, domain_id: row.domain_id } } : {}),
      reason: reason === 'payload' ? 'client.auth.payload' : reason,
    });
    return reason === 'payload'
      ? fail(lang, Code.INVALID, 'client.auth.payload', { reason: why ?? 'error' })
      : fail(lang, Code.BAD_CREDENTIALS, `client.auth.${reason}`);
  };
  const before = limited();
  if (before) return before;
  const read = agentRead(await readRow(body.client_id));
  const after = limited();
  if (after) return after;
  const at = Date.now();
  const judged = judgeAgentCall(read, body, at, checked);
  if ('refused' in judged) return refuse(judged.refused, judged.row);
  const { row, fullCheck } = judged;
  if (fullCheck) {
    const full = await ask({ op: 'fullCheck', row, der: fullCheck.der });
    if ('error' in full) return fromMain(full, lang);
    if (full.data !== true) return refuse('certificate', row);
    checked.remember(row, fullCheck.publicKey);
  }
  let payload: ReturnType<typeof HeartbeatPayload.parse>;
  try {
    payload = HeartbeatPayload.parse(JSON.parse(body.payload));
  } catch (err) {
    const why =
      err instanceof SyntaxError ? 'JSON' : err instanceof Error ? err.message.slice(0, 200) : 'error';
    return refuse('payload', row, why);
  }
  if (row.state === 'deleting' && payload.acknowledge_delete === true) {
    // The acknowledgement of a deletion ends the client (a transaction, its certificate
    // revoked): the API's own heartbeat does it, checking the call again.
    return fromMain(await ask({ op: 'heartbeat', meta, body }), lang);
  }
  const facts = {
    ...(payload.os !== undefined ? { os: payload.os } : {}),
    ...(payload.agent_version !== undefined ? { agent_version: payload.agent_version } : {}),
    ...(payload.mac !== undefined ? { mac: payload.mac } : {}),
    ...(payload.host !== undefined ? { host: payload.host } : {}),
  };
  const touched = await touch({ clientId: row.id, timestamp: body.timestamp, at, facts });
  if ('error' in touched) return fromMain(touched, lang);
  if (touched.data !== true) return refuse('stale', row);
  return new Answer(200, 0, 'ok', {
    state: row.state === 'active' ? 'enrolled' : 'deleted',
    heartbeat_seconds: CLIENT_HEARTBEAT_SECONDS,
    certificate_pem: row.cert_pem,
    serial: row.cert_serial,
    not_after: row.cert_not_after,
    heartbeat_port: listeningPort,
  });
}

function fromMain(answer: MainAnswer, lang: Language): Answer {
  if ('data' in answer) return new Answer(200, 0, 'ok', answer.data);
  const e = answer.error;
  if (e.status === 429) return fail(lang, 429, 'error.rateLimited', undefined, 429);
  if (e.messageKey) return new Answer(200, e.code, formatMessage(e.messageKey, lang, e.params ?? {}));
  return fail(lang, Code.INTERNAL, 'error.internal', { errorId: e.errorId ?? '-' }, 500);
}

// ---- the server -------------------------------------------------------------------------

async function handle(req: IncomingMessage, res: ServerResponse) {
  const lang = headersLanguage(req.headers);
  const path = (req.url ?? '').split('?')[0];
  if (path !== HEARTBEAT_PATH || req.method !== 'POST') {
    req.resume();
    send(
      res,
      fail(lang, Code.NOT_FOUND, 'error.notFoundRoute', { method: req.method ?? '', url: path ?? '' }, 404),
    );
    return;
  }
  const type = String(req.headers['content-type'] ?? '');
  if (!/^application\/json\b/i.test(type)) {
    req.resume();
    send(res, fail(lang, 415, 'error.unsupportedMedia', undefined, 415));
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = Number(req.headers['content-length'] ?? 0) > BODY_LIMIT;
  if (tooLarge) req.resume();
  else
    for await (const chunk of req as AsyncIterable<Buffer>) {
      // Past the limit the rest is read and dropped (the request timeout bounds it), so that
      // the answer reaches the caller rather than a reset connection.
      size += chunk.length;
      if (size > BODY_LIMIT) tooLarge = true;
      else chunks.push(chunk);
    }
  if (tooLarge) {
    res.setHeader('connection', 'close');
    send(res, fail(lang, 413, 'error.bodyTooLarge', undefined, 413));
    return;
  }
  try {
    send(res, await heartbeat(req, Buffer.concat(chunks).toString('utf8'), lang));
  } catch (err) {
    const errorId = randomUUID();
    port.postMessage({
      id: 0,
      op: 'log',
      errorId,
      message: err instanceof Error ? err.message : String(err),
    } satisfies { id: number } & WorkerAsk);
    send(res, fail(lang, Code.INTERNAL, 'error.internal', { errorId }, 500));
  }
}

const server = data.tls
  ? createHttps({ cert: readFileSync(data.tls.cert), key: readFileSync(data.tls.key) }, (req, res) => {
      void handle(req, res);
    })
  : createHttp((req, res) => {
      void handle(req, res);
    });
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.requestTimeout = 30_000;

port.on('message', (message: { id?: number; op?: string; ip?: string } & Partial<MainAnswer>) => {
  if (message.op === 'counted' && message.ip) {
    refusals.count(message.ip);
    return;
  }
  if (message.op === 'stop') {
    server.close(() => {
      void Promise.all(closers.map((close) => close())).finally(() => port.close());
    });
    server.closeIdleConnections();
    return;
  }
  const waiting = message.id !== undefined ? asked.get(message.id) : undefined;
  if (!waiting) return;
  asked.delete(message.id!);
  waiting(message as MainAnswer);
});

server.on('error', (err) => port.postMessage({ id: 0, op: 'failed', message: err.message }));
server.listen(data.wantedPort, data.host, () => {
  const address = server.address();
  const listening = typeof address === 'object' && address ? address.port : data.wantedPort;
  listeningPort = listening;
  port.postMessage({ id: 0, op: 'listening', port: listening });
});
