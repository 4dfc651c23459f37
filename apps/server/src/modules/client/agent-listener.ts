import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import { Code, type MessageKey } from '@ksp/contracts';
import type { DatabaseConnection } from '../../platform/db/database.js';
import type { ClientTable } from '../../platform/db/schema.js';
import { KspError } from '../../platform/errors.js';
import type { Readiness, RequestMeta } from '../../platform/http/route.js';
import type { SignedCall } from './agent-auth.js';
import type { ClientService } from './client.service.js';

/** tsx's ESM loader, for a thread started from the TypeScript sources. */
const tsxApi = () =>
  pathToFileURL(
    join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs'),
  ).href;

/** What the listener's thread is started with. */
export interface ListenerData {
  host: string;
  wantedPort: number;
  tls: { cert: string; key: string } | null;
  connection: DatabaseConnection;
}

type Facts = Partial<Pick<ClientTable, 'os' | 'agent_version' | 'mac' | 'host'>>;
/** An accepted call to record: the client's id, the call's timestamp, when it was judged, what it reported. */
export interface Touch {
  clientId: string;
  timestamp: number;
  at: number;
  facts: Facts;
}

/** What the listener's thread asks of the main thread (sent with an `id`; 0: a notice, no answer). */
export type WorkerAsk =
  | { op: 'ready' }
  | { op: 'rateLimited'; meta: RequestMeta }
  | {
      op: 'refused';
      meta: RequestMeta;
      clientId: string;
      row?: Pick<ClientTable, 'id' | 'name' | 'domain_id'>;
      reason: string;
    }
  | { op: 'fullCheck'; row: ClientTable; der: Uint8Array }
  | { op: 'heartbeat'; meta: RequestMeta; body: SignedCall }
  /** Accepted calls to record, in one message: answered with a boolean per call (false: a replay). */
  | { op: 'touches'; calls: Touch[] }
  | { op: 'log'; errorId: string; message: string }
  | { op: 'failed'; message: string }
  | { op: 'listening'; port: number };

/** The main thread's answer: the data, or the error the listener answers the agent with. */
export type MainAnswer =
  | { data: unknown }
  | {
      error: {
        status?: number;
        code: number;
        messageKey?: MessageKey;
        params?: Record<string, string | number>;
        errorId?: string;
      };
    };

export interface AgentListener {
  port: number;
  stop(): Promise<void>;
}

function asAnswerError(err: unknown, log: FastifyBaseLogger): MainAnswer {
  if (err instanceof KspError)
    return {
      error: {
        code: err.code,
        messageKey: err.messageKey,
        params: err.params,
      },
    };
  if ((err as { statusCode?: number } | null)?.statusCode === 429)
    return { error: { status: 429, code: 429 } };
  const errorId = crypto.randomUUID();
  log.error({ err, errorId }, 'agent listener: unexpected error');
  return { error: { code: Code.INTERNAL, errorId } };
}

/**
 * Starts the agent listener (docs/api.md "Agent listener"): a worker thread serving agents' heartbeats on
 * their own port, so that a fleet's heartbeats do not take the event loop that answers the
 * API. The thread reads and judges each call; this thread records accepted calls (the client
 * service's group commit), audits refusals, runs certificates' full checks and takes
 * deletions' acknowledgements. Resolves once the port is listening.
 */
export async function startAgentListener(options: {
  data: ListenerData;
  clients: ClientService;
  readiness: () => Promise<Readiness>;
  log: FastifyBaseLogger;
}): Promise<AgentListener> {
  const { clients, log } = options;
  const compiled = fileURLToPath(new URL('./agent-listener.worker.js', import.meta.url));
  const source = fileURLToPath(new URL('./agent-listener.worker.ts', import.meta.url));
  const fromSource = !existsSync(compiled);
  const bridge = clients.listener;

  const answer = async (question: WorkerAsk): Promise<MainAnswer> => {
    switch (question.op) {
      case 'ready': {
        const state = await options.readiness();
        return state.ready
          ? { data: null }
          : {
              error: {
                code: Code.NOT_INITIALIZED,
                messageKey: state.reason,
                ...(state.params ? { params: state.params } : {}),
              },
            };
      }
      case 'rateLimited':
        await bridge.rateLimited(question.meta);
        return { data: null };
      case 'refused':
        await bridge.refused(question.meta, question.clientId, question.row, question.reason);
        return { data: null };
      case 'fullCheck':
        return { data: await bridge.fullCheck(question.row, Buffer.from(question.der)) };
      case 'heartbeat':
        return { data: await clients.heartbeat(question.meta, question.body) };
      case 'touches': {
        // Checked again at the write: a system sealed since the thread's last look refuses.
        const state = await options.readiness();
        if (!state.ready) return answer({ op: 'ready' });
        // They join the client service's group commit together (one transaction, one flush).
        return {
          data: await Promise.all(
            question.calls.map((t) => bridge.touch(t.clientId, t.timestamp, t.at, t.facts)),
          ),
        };
      }
      default:
        return { data: null };
    }
  };

  /** One thread; resolves with its port once it listens, rejects if it cannot. */
  const spawn = (wantedPort: number) => {
    // From the sources (tests, `npm run dev`) the thread loads tsx first, then the module.
    const worker = fromSource
      ? new Worker(
          `import(${JSON.stringify(tsxApi())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(pathToFileURL(source).href)}); })`,
          { eval: true, workerData: { ...options.data, wantedPort }, execArgv: ['--conditions=source'] },
        )
      : new Worker(compiled, { workerData: { ...options.data, wantedPort } });
    let listening: (port: number) => void;
    let failed: (err: Error) => void;
    const started = new Promise<number>((resolve, reject) => {
      listening = resolve;
      failed = reject;
    });
    worker.on('message', (message: { id: number } & WorkerAsk) => {
      if (message.op === 'listening') return listening(message.port);
      if (message.op === 'failed') return failed(new Error(`agent listener: ${message.message}`));
      if (message.op === 'log') {
        log.error({ errorId: message.errorId, err: message.message }, 'agent listener: unexpected error');
        return;
      }
      void answer(message)
        .catch((err: unknown) => asAnswerError(err, log))
        .then((reply) => worker.postMessage({ id: message.id, ...reply }));
    });
    const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
    worker.on('error', (err) => {
      failed(err);
      log.error({ err }, 'agent listener: the thread failed');
    });
    return { worker, started, exited };
  };

  let current = spawn(options.data.wantedPort);
  let port: number;
  try {
    port = await current.started;
  } catch (err) {
    await current.worker.terminate();
    throw err;
  }
  bridge.setPort(port);
  let stopping = false;
  const stopCounting = bridge.onRefusalCounted((ip) => current.worker.postMessage({ op: 'counted', ip }));
  // A thread that ends unasked (an uncaught error) is started again on the same port, a second
  // later; meanwhile agents heartbeat on the API port (the reference agent falls back).
  const watch = (thread: typeof current) => {
    void thread.exited.then(async (code) => {
      if (stopping) return;
      log.error({ code }, 'agent listener: the thread ended; starting it again');
      bridge.setPort(null);
      for (;;) {
        await new Promise((r) => setTimeout(r, 1000));
        if (stopping) return;
        const next = spawn(port);
        try {
          await next.started;
          current = next;
          bridge.setPort(port);
          watch(next);
          return;
        } catch (err) {
          log.error({ err }, 'agent listener: could not start again');
          await next.worker.terminate();
        }
      }
    });
  };
  watch(current);
  return {
    get port() {
      return port;
    },
    async stop() {
      stopping = true;
      stopCounting();
      bridge.setPort(null);
      current.worker.postMessage({ op: 'stop' });
      const timer = setTimeout(() => void current.worker.terminate(), 5000);
      await current.exited;
      clearTimeout(timer);
    },
  };
}
