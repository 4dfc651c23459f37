import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { api, type tokenUsages } from '@ksp/contracts';
import { configClientOf } from '../platform/agent-config.js';
import type { Executor } from '../platform/db/database.js';
import type { Actor } from '../platform/http/route.js';
import {
  call,
  domainWithAdmin,
  initialize,
  login,
  ok,
  roleIdByName,
  startServer,
  type EngineName,
  type StartOptions,
  type TestServer,
} from './harness.js';

/** A server the fixture started and initialized, and the first administrator's token. */
export interface SignedInServer {
  server: TestServer;
  token: string;
}

/** How `signedInServer` starts its server. */
export interface SignedInOptions {
  /** A fresh server before each test (closed after it) instead of one for the whole block. */
  each?: boolean;
  /** The server's environment (startServer's `env`). */
  env?: Record<string, string>;
  /** How the app is built beyond the environment (startServer's `options`). */
  start?: StartOptions;
  /** The set-up hook's time limit in milliseconds (vitest's default otherwise). */
  timeout?: number;
}

/**
 * The preamble most server suites share: registers the hooks that start a server on `engine`,
 * initialize it (the first administrator signed in) and close it afterwards — once for the
 * enclosing `describe`, or around each test with `each`. `use` receives the server and the
 * token in the same set-up hook, after the sign-in, and may go on setting up (it may be async).
 */
export function signedInServer(
  engine: EngineName,
  use: (started: SignedInServer) => unknown,
  o: SignedInOptions = {},
): void {
  let server: TestServer | undefined;
  const [before, after] = o.each ? [beforeEach, afterEach] : [beforeAll, afterAll];
  before(async () => {
    server = await startServer(engine, o.env, undefined, undefined, o.start);
    const { token } = await initialize(server);
    await use({ server, token });
  }, o.timeout);
  after(async () => {
    await server?.close();
    server = undefined;
  });
}

/**
 * A user of the root domain holding one built-in role (looked up by name through the role list),
 * created by `token`'s holder and signed in: answers the role's id and the user's token. The
 * creation is expected to succeed.
 */
export async function userWithRole(
  server: TestServer,
  token: string,
  o: { role: string; username: string; password: string; email?: string },
): Promise<{ roleId: string; token: string }> {
  const roles = await call(server, api.role.list, { token, query: { page: 1, page_size: 50 } });
  const roleId = roles.data.data.find((r) => r.name === o.role)!.id;
  const made = await call(server, api.user.create, {
    token,
    body: {
      username: o.username,
      password: o.password,
      email: o.email ?? `${o.username}@example.test`,
      role_ids: [roleId],
      must_change_password: false,
    },
  });
  expect(made.code, made.msg).toBe(0);
  return { roleId, token: await login(server, o.username, o.password) };
}

/** The id of the root domain, read from the domain table. */
export async function rootDomainId(db: Executor): Promise<string> {
  return (await db.selectFrom('domain').select('id').where('name', '=', 'root').executeTakeFirstOrThrow()).id;
}

/**
 * The other side of the client suites' cross-domain and read-only cases: a `tenant` domain with
 * an administrator of its own, and a root-domain Auditor (`auditor`), both signed in.
 */
export async function tenantAndAuditor(
  server: TestServer,
  token: string,
): Promise<{ other: { domainId: string; token: string }; auditor: string }> {
  const other = await domainWithAdmin(server, token, {
    domain: 'tenant',
    username: 'tenant-admin',
    password: 'Tenant-Pass-1',
  });
  ok(
    await call(server, api.user.create, {
      token,
      body: {
        username: 'auditor',
        password: 'Auditor-Pass-1',
        email: 'auditor@example.test',
        role_ids: [await roleIdByName(server.database.db, 'Auditor')],
        must_change_password: false,
      },
    }),
  );
  return { other, auditor: await login(server, 'auditor', 'Auditor-Pass-1') };
}

/** The audit records of `action`, oldest first (every column). */
export function auditRecords(server: Pick<TestServer, 'database'>, action: string) {
  return server.database.db
    .selectFrom('audit_log')
    .selectAll()
    .where('action', '=', action)
    .orderBy('at')
    .execute();
}

/** The agent configuration document the server composes for a stored client now. */
export async function agentConfigOf(server: Pick<TestServer, 'database' | 'services'>, clientId: string) {
  const row = await server.database.db
    .selectFrom('client')
    .selectAll()
    .where('id', '=', clientId)
    .executeTakeFirstOrThrow();
  return server.services.agentConfig.configFor(server.database.db, configClientOf(row));
}

/** A registration token of unlimited capacity for agents of `usage` (its secret enrols them). */
export async function registrationToken(
  server: TestServer,
  token: string,
  name: string,
  usage: (typeof tokenUsages)[number],
) {
  return ok(await call(server, api.registrationToken.create, { token, body: { name, usage, capacity: 0 } }))
    .data;
}

/** A signed-in user with no permissions, for calling a service directly (not over HTTP). */
export function plainActor(who: Pick<Actor, 'userId' | 'username' | 'domainId' | 'domainName'>): Actor {
  return {
    ...who,
    sessionId: '',
    permissions: new Set(),
    mustChangePassword: false,
    directory: null,
    kind: 'session',
    systemScope: false,
  };
}

/** The second domain of the cross-domain cases, and its administrator. */
export const BRANCH = { domain: 'branch', username: 'branch-admin', password: 'Branch-Pass-1' } as const;

/**
 * `signedInServer`, and the domain `BRANCH` with its administrator signed in: `use` receives the
 * root administrator's token as `token` and the branch's id and token as `branch`.
 */
export function signedInWithBranch(
  engine: EngineName,
  use: (started: SignedInServer & { branch: { domainId: string; token: string } }) => unknown,
  o: SignedInOptions = {},
): void {
  signedInServer(
    engine,
    async (started) =>
      use({ ...started, branch: await domainWithAdmin(started.server, started.token, BRANCH) }),
    o,
  );
}
