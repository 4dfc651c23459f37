import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { KspConfig } from './platform/config.js';
import { sql } from 'kysely';
import { migrate, type DatabaseHandle } from './platform/db/database.js';
import { createStorageHealth } from './platform/db/storage-health.js';
import { createSessionService, type Clock } from './platform/auth/session.service.js';
import { installErrorHandler } from './platform/http/error-handler.js';
import { createGatekeeper } from './platform/http/gate.js';
import { createHttpServer, serveConsole, type HttpOptions, type RouteEntry } from './platform/http/server.js';
import { Keyring } from './platform/keyring/keyring.js';
import { createJournal } from './platform/db/journal.js';
import { createJobs, type Jobs } from './platform/jobs/jobs.js';
import {
  createServiceRegistry,
  registerModules,
  type KspModule,
  type ModuleServices,
} from './platform/module.js';
import { auditModule } from './modules/audit/audit.module.js';
import { certModule } from './modules/cert/cert.module.js';
import { configModule } from './modules/config/config.module.js';
import { dashboardModule } from './modules/dashboard/dashboard.module.js';
import { domainModule } from './modules/domain/domain.module.js';
import { keyModule } from './modules/key/key.module.js';
import { ldapModule } from './modules/ldap/ldap.module.js';
import { quantumModule } from './modules/quantum/quantum.module.js';
import { logModule } from './modules/log/log.module.js';
import { clientLogModule } from './modules/client-log/client-log.module.js';
import { syslogModule } from './modules/syslog/syslog.module.js';
import { licenseModule } from './modules/license/license.module.js';
import { hsmModule } from './modules/hsm/hsm.module.js';
import { credentialModule } from './modules/credential/credential.module.js';
import { sshServerModule } from './modules/ssh-server/ssh-server.module.js';
import { clientModule } from './modules/client/client.module.js';
import { tdePolicyModule } from './modules/tde-policy/tde-policy.module.js';
import { tdeClientModule } from './modules/tde-client/tde-client.module.js';
import { schedulerModule } from './modules/scheduler/scheduler.module.js';
import { backupModule } from './modules/backup/backup.module.js';
import { alarmModule } from './modules/alarm/alarm.module.js';
import { passwordPolicyModule } from './modules/password-policy/password-policy.module.js';
import { registrationTokenModule } from './modules/registration-token/registration-token.module.js';
import { roleModule } from './modules/role/role.module.js';
import { systemModule } from './modules/system/system.module.js';
import { userModule } from './modules/user/user.module.js';
import { productModule } from './modules/product/product.module.js';
import { remoteAddModule } from './modules/remote-add/remote-add.module.js';
import { kmipModule } from './modules/kmip/kmip.module.js';
import { tdeDatabaseModule } from './modules/tde-database/tde-database.module.js';
import { kadpOpsModule } from './modules/kadp-ops/kadp-ops.module.js';

/**
 * Every area of the server, in order: a module may use the services of those before it (role
 * and ldap ask for the later user module's records at call time), and start hooks run in this
 * order (settings, default policy and built-in roles before unsealing).
 */
const modules: readonly KspModule[] = [
  auditModule,
  domainModule,
  configModule,
  passwordPolicyModule,
  roleModule,
  ldapModule,
  userModule,
  systemModule,
  keyModule,
  registrationTokenModule,
  certModule,
  quantumModule,
  logModule,
  clientLogModule,
  syslogModule,
  licenseModule,
  hsmModule,
  credentialModule,
  sshServerModule,
  clientModule,
  tdePolicyModule,
  tdeClientModule,
  schedulerModule,
  backupModule,
  alarmModule,
  dashboardModule,
  productModule,
  remoteAddModule,
  kadpOpsModule,
  kmipModule,
  tdeDatabaseModule,
];

export interface AppOptions extends HttpOptions {
  config: KspConfig;
  database: DatabaseHandle;
  /** Injected so tests can move time forward (session expiry). */
  clock?: Clock;
  /** Tests only: services standing in for what modules would provide (a recording backup, say). */
  services?: Partial<ModuleServices>;
}

const defaultWebDir = fileURLToPath(new URL('../../web/dist', import.meta.url));

export interface KspServer {
  app: FastifyInstance;
  /** The services, for main.ts, the CLI and test fixtures ("fixtures created through services"). */
  services: {
    system: ModuleServices['system'];
    users: ModuleServices['users'];
    sessions: ReturnType<typeof createSessionService>;
    keyring: Keyring;
    registrationTokens: ModuleServices['registrationTokens'];
    certs: ModuleServices['certs'];
    logs: ModuleServices['logs'];
    clientLogs: ModuleServices['clientLogs'];
    syslog: ModuleServices['syslog'];
    opCounter: ModuleServices['opCounter'];
    clusterNodes: ModuleServices['clusterNodes'];
    alarms: ModuleServices['alarms'];
    scheduler: ModuleServices['scheduler'];
    /** TDE / RDM policies compiled for agents, client profiles (modules/tde-policy). */
    tdePolicies: ModuleServices['tdePolicies'];
    /** An agent's configuration document (modules/tde-client), for the config channel's tests. */
    agentConfig: ModuleServices['agentConfig'];
    /** Clients (modules/client): tests see when an agent's config call is held. */
    clients: ModuleServices['clients'];
    /** Background jobs (tests run a round with `runDue` instead of waiting for the timer). */
    jobs: Jobs;
  };
  /**
   * The one-time first-run code issued at this start (network address, not yet activated),
   * for main.ts to print; null when none is needed.
   */
  setupCode: string | null;
  /** Every route registered, with its declared access (for the route audit test). */
  routes: readonly RouteEntry[];
}

/** Builds the whole server without listening: what main.ts runs and what tests inject into. */
export async function buildApp(options: AppOptions): Promise<KspServer> {
  const { config, database } = options;
  const clock = options.clock ?? (() => new Date());
  const { app, routes } = await createHttpServer(config, options);

  const { db } = database;
  await migrate(db);
  const registry = createServiceRegistry(options.services);
  const journal = createJournal(database, app.log);
  const sessions = createSessionService({
    db,
    settings: config.session,
    clock,
    // Read when a session is checked, so the module offering them may register later.
    permissionsOf: (executor, userId) => registry.use('permissions').ofUser(executor, userId),
    rolePermissions: (executor, roleId) => registry.use('permissions').ofRole(executor, roleId),
  });
  const keyring = new Keyring();
  const jobs = createJobs({ db, clock, node: config.nodeName, log: app.log });
  const gate = await createGatekeeper({
    app,
    loginRate: config.loginRate,
    readiness: () => registry.use('readiness')(),
    sessions,
    journal,
    clock,
  });
  const kit = await registerModules(
    modules,
    {
      app,
      gate,
      db,
      engine: database.engine,
      copyOut: database.copyOut ?? null,
      connection: database.connection,
      clock,
      config,
      keyring,
      journal,
      sessions,
      jobs,
      log: app.log,
    },
    registry,
  );
  await kit.start();
  jobs.start();

  installErrorHandler(app, createStorageHealth({ probe: () => sql`select 1`.execute(db), log: app.log }));
  await serveConsole(app, config.webDir ?? defaultWebDir);
  // Modules may register routes in scopes of their own (`app.register`): load them now, under
  // the error handler, so that every route exists once the server is built (serving the console
  // loads them too, but only when there is a console to serve).
  await app.after();
  app.addHook('onClose', async () => {
    await jobs.stop();
    await journal.flush();
    await kit.stop();
    sessions.close();
    keyring.close();
  });
  return {
    app,
    services: {
      system: registry.use('system'),
      users: registry.use('users'),
      sessions,
      keyring,
      registrationTokens: registry.use('registrationTokens'),
      certs: registry.use('certs'),
      logs: registry.use('logs'),
      clientLogs: registry.use('clientLogs'),
      syslog: registry.use('syslog'),
      opCounter: registry.use('opCounter'),
      clusterNodes: registry.use('clusterNodes'),
      alarms: registry.use('alarms'),
      scheduler: registry.use('scheduler'),
      tdePolicies: registry.use('tdePolicies'),
      agentConfig: registry.use('agentConfig'),
      clients: registry.use('clients'),
      jobs,
    },
    setupCode: registry.use('setupCode'),
    routes,
  };
}
