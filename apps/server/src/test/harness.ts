import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { expect, inject } from 'vitest';
import type { z } from 'zod';
import { api, type BodyOf, type CallDef, type QueryOf } from '@ksp/contracts';
import { buildApp, type KspServer } from '../app.js';
import { loadConfig, type KspConfig } from '../platform/config.js';
import type { ModuleServices } from '../platform/module.js';
import { migrate, openDatabase, type DatabaseHandle, type Executor } from '../platform/db/database.js';
import { ONE_ENGINE_SUITES, suiteKey } from './engine-rule.js';

export type EngineName = 'sqlite' | 'postgres';

const PG_ADMIN_URL = process.env.KSP_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
let pgReachable: boolean | null = null;

async function postgresReachable(): Promise<boolean> {
  if (pgReachable !== null) return pgReachable;
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    pgReachable = true;
  } catch {
    pgReachable = false;
  } finally {
    await client.end().catch(() => undefined);
  }
  return pgReachable;
}

/**
 * The engines to run a suite on: SQLite and PostgreSQL, or SQLite alone for a suite whose
 * assertions the engine cannot change (listed with its reason in engine-rule.ts,
 * docs/testing.md#which-engine). PostgreSQL is always required in CI; elsewhere a missing
 * server is announced loudly and every suite runs on SQLite only.
 */
export async function engines(): Promise<EngineName[]> {
  const both = await postgresReachable();
  if (!both && process.env.CI === 'true')
    throw new Error(`PostgreSQL is required in CI and is not reachable at ${PG_ADMIN_URL}`);
  if (ONE_ENGINE_SUITES[suiteKey(expect.getState().testPath)] !== undefined) return ['sqlite'];
  if (both) return ['sqlite', 'postgres'];
  console.warn(
    `\n!!! PostgreSQL not reachable at ${PG_ADMIN_URL}: PostgreSQL variants NOT run (set KSP_TEST_PG_URL) !!!\n`,
  );
  return ['sqlite'];
}

export interface TestServer extends KspServer {
  dataDir: string;
  /** KSP_DATABASE_URL of this server (null: SQLite in the data directory), for tools run beside it. */
  databaseUrl: string | null;
  database: DatabaseHandle;
  engine: EngineName;
  clock: { now: Date; advance(seconds: number): void };
  /** Rebuilds the app on the same data (a restart). */
  restart(): Promise<TestServer>;
  /** Another node of a cluster: a second app on the same database and seal file (its own node name if given). */
  startNode(o?: { nodeName?: string }): Promise<KspServer & { close(): Promise<void> }>;
  close(): Promise<void>;
}

interface Resources {
  dataDir: string;
  dbUrl: string | null;
  dropDb?: () => Promise<void>;
}

/** What the run's global setup prepared (src/test/global-setup.ts); empty outside it. */
const prepared = {
  runId: inject('kspTestRunId') ?? '',
  sqliteTemplate: inject('kspSqliteTemplate') ?? '',
  pgTemplate: inject('kspPgTemplate') ?? '',
};

async function adminQuery(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end().catch(() => undefined);
  }
}

/**
 * A new PostgreSQL database: a copy of the run's migrated template when there is one. The next
 * one is copied while the current test runs (a copy takes a second or more), and a closed one is
 * dropped in the background; the global setup's teardown drops whatever is left of the run.
 */
let spare: Promise<string> | null = null;

function copyTemplate(): Promise<string> {
  const name = `ksp_test_${prepared.runId}_${randomBytes(6).toString('hex')}`;
  return adminQuery(`CREATE DATABASE ${name} TEMPLATE ${prepared.pgTemplate}`).then(() => name);
}

async function newPgDatabase(): Promise<{ name: string; background: boolean }> {
  if (!prepared.pgTemplate) {
    const name = `ksp_test_${randomBytes(6).toString('hex')}`;
    await adminQuery(`CREATE DATABASE ${name}`);
    return { name, background: false };
  }
  const next = spare ?? copyTemplate();
  spare = copyTemplate();
  // A spare nobody takes is dropped by the teardown; its failure surfaces when it is taken.
  spare.catch(() => undefined);
  return { name: await next, background: true };
}

async function makeResources(engine: EngineName): Promise<Resources> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ksp-test-'));
  if (engine === 'sqlite') {
    if (prepared.sqliteTemplate) copyFileSync(prepared.sqliteTemplate, join(dataDir, 'ksp.sqlite'));
    return { dataDir, dbUrl: null };
  }
  const { name, background } = await newPgDatabase();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const drop = () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  return {
    dataDir,
    dbUrl: url.toString(),
    // Nothing waits for a dropped database: the teardown drops it if this does not.
    dropDb: background ? () => (void drop().catch(() => undefined), Promise.resolve()) : drop,
  };
}

/**
 * A migrated database of its own, without an app (for platform tests): a temporary SQLite
 * file or a throwaway PostgreSQL database, dropped by `close`.
 */
export async function throwawayDatabase(engine: EngineName): Promise<DatabaseHandle> {
  const res = await makeResources(engine);
  const handle = openDatabase({ url: res.dbUrl, dataDir: res.dataDir });
  await migrate(handle.db);
  return {
    ...handle,
    close: async () => {
      await handle.close();
      await res.dropDb?.();
      rmSync(res.dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The scrypt cost (log2 N) of the passwords test servers store: a hash takes about 0.05 ms
 * instead of 0.1 s. password.test.ts checks production's cost; KSP_TEST_PASSWORD_COST in a
 * test's own environment overrides this.
 */
export const TEST_PASSWORD_COST = '4';

/** What a test may change about how the app is built (beyond the environment). */
export interface StartOptions {
  /** Receives the server's log lines (JSON); the logger is off otherwise. */
  logStream?: { write(line: string): void };
  /** Rewrites the PostgreSQL URL the app uses (e.g. to go through a proxy the test controls). */
  databaseUrl?: (url: string) => string;
  /** SQLite with FULL: how the WAL is flushed (a test holds the flush to see who waits for it). */
  flushWal?: () => Promise<void>;
  /** Changes the loaded configuration (e.g. a non-loopback host, which loadConfig refuses without TLS). */
  config?: (config: KspConfig) => KspConfig;
  /** Services standing in for what modules would provide (AppOptions.services). */
  services?: Partial<ModuleServices>;
}

export async function startServer(
  engine: EngineName,
  env: Record<string, string> = {},
  resources?: Resources,
  clockState?: TestServer['clock'],
  options: StartOptions = {},
): Promise<TestServer> {
  const res = resources ?? (await makeResources(engine));
  const clock = clockState ?? {
    now: new Date(),
    advance(seconds: number) {
      this.now = new Date(this.now.getTime() + seconds * 1000);
    },
  };
  // Post-quantum work runs inline here: workers loaded through tsx are slow (worker-pool.test.ts covers them).
  const dbUrl = res.dbUrl && options.databaseUrl ? options.databaseUrl(res.dbUrl) : res.dbUrl;
  const loaded = loadConfig({
    KSP_DATA_DIR: res.dataDir,
    KSP_LOG_LEVEL: options.logStream ? 'info' : 'silent',
    KSP_CRYPTO_WORKERS: '0',
    // Suites sign in hundreds of times a minute from one address; lockout.test.ts sets its own limits.
    KSP_LOGIN_RATE_PER_USER: '100000',
    KSP_LOGIN_RATE_PER_ADDRESS: '100000',
    // Thousands of sign-ins per run: hashes at N = 2^4, not production's 2^15 (docs/testing.md#sign-in-cost).
    NODE_ENV: 'test',
    KSP_TEST_PASSWORD_COST: TEST_PASSWORD_COST,
    ...(dbUrl ? { KSP_DATABASE_URL: dbUrl } : {}),
    ...env,
  });
  const config = options.config ? options.config(loaded) : loaded;
  const open = async (nodeName?: string) => {
    const nodeConfig = nodeName ? { ...config, nodeName } : config;
    const database = openDatabase({
      url: config.databaseUrl,
      dataDir: config.dataDir,
      sqliteSynchronous: config.sqliteSynchronous,
      ...(options.flushWal ? { flushWal: options.flushWal } : {}),
    });
    const built = await buildApp({
      config: nodeConfig,
      database,
      clock: () => clock.now,
      ...(options.services ? { services: options.services } : {}),
      ...(options.logStream ? { logStream: options.logStream } : { logger: false }),
    });
    return { built, database };
  };
  const { built: server, database } = await open();
  const closeApp = async () => {
    await server.app.close();
    await database.close();
  };
  return {
    ...server,
    dataDir: res.dataDir,
    databaseUrl: res.dbUrl,
    database,
    engine,
    clock,
    startNode: async (o = {}) => {
      const node = await open(o.nodeName);
      return {
        ...node.built,
        close: async () => {
          await node.built.app.close();
          await node.database.close();
        },
      };
    },
    restart: async () => {
      await closeApp();
      return startServer(engine, env, res, clock, options);
    },
    close: async () => {
      await closeApp();
      await res.dropDb?.();
      rmSync(res.dataDir, { recursive: true, force: true });
    },
  };
}

export interface Answer<T> {
  status: number;
  code: number;
  msg: string;
  data: T;
  headers: Record<string, unknown>;
}

interface RequestExtras {
  token?: string | null;
  lang?: string;
  headers?: Record<string, string>;
}

/** Calls a contract call through HTTP (Fastify inject), with the body and query its contract takes. */
export function call<C extends CallDef>(
  server: KspServer,
  def: C,
  opts: RequestExtras & { body?: BodyOf<C>; query?: QueryOf<C> } = {},
): Promise<Answer<z.output<C['data']>>> {
  return send(server, def, opts);
}

/**
 * Sends what the contract refuses (a missing field, a wrong type), to test the refusal, or a
 * body whose schema input type is looser than what the test means to send.
 */
export function callUnchecked<C extends CallDef>(
  server: KspServer,
  def: C,
  opts: RequestExtras & { body?: unknown; query?: Record<string, string | number> } = {},
): Promise<Answer<z.output<C['data']>>> {
  return send(server, def, opts);
}

async function send<C extends CallDef>(
  server: KspServer,
  def: C,
  opts: RequestExtras & { body?: unknown; query?: unknown },
): Promise<Answer<z.output<C['data']>>> {
  const query = opts.query as Record<string, string | number | boolean> | undefined;
  const qs = query
    ? `?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)] as [string, string])).toString()}`
    : '';
  const res = await server.app.inject({
    method: def.method,
    url: def.path + qs,
    headers: {
      ...(opts.token ? { token: opts.token } : {}),
      ...(opts.lang ? { 'accept-language': opts.lang } : {}),
      ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...opts.headers,
    },
    ...(opts.body !== undefined ? { payload: JSON.stringify(opts.body) } : {}),
  });
  // A download call answers its file (code 0, `data` the text), or the envelope when refused.
  if (def.download && res.statusCode === 200 && !res.payload.startsWith('{"code"'))
    return { status: res.statusCode, code: 0, msg: '', data: res.payload as never, headers: res.headers };
  const json = res.json<{ code: number; msg: string; data: z.output<C['data']> }>();
  return { status: res.statusCode, code: json.code, msg: json.msg, data: json.data, headers: res.headers };
}

/** The answer, when it is a success (code 0); otherwise throws its code and message: for set-up steps a test is not about. */
export function ok<T extends { code: number; msg: string }>(answer: T): T {
  if (answer.code !== 0) throw new Error(`${answer.code} ${answer.msg}`);
  return answer;
}

export const encodeUsername = (name: string) => Buffer.from(name, 'utf8').toString('base64');
export const hashForLogin = async (password: string) => {
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(password, 'utf8').digest('base64');
};

export const ADMIN = { username: 'admin', password: 'Admin-Pass-1', email: 'admin@example.test' };

/** Initializes (3 components), activates and signs in the first administrator. */
export async function initialize(
  server: KspServer,
): Promise<{ token: string; components: { component: string; kcv: string }[] }> {
  const components = [];
  for (let i = 0; i < 3; i++) {
    const c = await call(server, api.system.initComponent, { body: {} });
    if (c.code !== 0) throw new Error(`component: ${c.msg}`);
    components.push(c.data);
  }
  const fin = await call(server, api.system.initFinish, { body: {} });
  if (fin.code !== 0) throw new Error(`finish: ${fin.msg}`);
  const act = await call(server, api.system.activate, { body: ADMIN });
  if (act.code !== 0) throw new Error(`activate: ${act.msg}`);
  const token = await login(server, ADMIN.username, ADMIN.password);
  return { token, components };
}

export async function login(server: KspServer, username: string, password: string): Promise<string> {
  const res = await call(server, api.user.login, {
    body: { username: encodeUsername(username), password: await hashForLogin(password) },
  });
  if (res.code !== 0) throw new Error(`login ${username}: ${res.code} ${res.msg}`);
  return res.data.token;
}

/**
 * The id of a role by name, read from the role table: platform tests name no module, so
 * they look built-in roles up here rather than through the role module's store.
 */
export async function roleIdByName(db: Executor, name: string): Promise<string> {
  const row = await db.selectFrom('role').select('id').where('name', '=', name).executeTakeFirstOrThrow();
  return row.id;
}

/**
 * A new domain with an administrator of its own, signed in: the other side of every
 * cross-domain case. Answers the domain's id and the administrator's token.
 */
export async function domainWithAdmin(
  server: TestServer,
  rootToken: string,
  o: { domain: string; username: string; password: string },
): Promise<{ domainId: string; token: string }> {
  const domain = await call(server, api.domain.create, { token: rootToken, body: { name: o.domain } });
  if (domain.code !== 0) throw new Error(`domain ${o.domain}: ${domain.code} ${domain.msg}`);
  const created = await call(server, api.user.create, {
    token: rootToken,
    body: {
      username: o.username,
      password: o.password,
      email: `${o.username}@example.test`,
      role_ids: [await roleIdByName(server.database.db, 'Administrator')],
      domain_ids: [domain.data.id],
      must_change_password: false,
    },
  });
  if (created.code !== 0) throw new Error(`user ${o.username}: ${created.code} ${created.msg}`);
  return { domainId: domain.data.id, token: await login(server, o.username, o.password) };
}
