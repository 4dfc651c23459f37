import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import helmet from 'helmet';
import multipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { allCalls, Code, formatMessage, PRODUCT_VERSION, TOKEN_HEADER, VERSION_HEADER } from '@ksp/contracts';
import type { KspConfig } from './platform/config.js';
import { sql } from 'kysely';
import { migrate, type DatabaseHandle } from './platform/db/database.js';
import { createStorageHealth } from './platform/db/storage-health.js';
import { createSessionService, type Clock } from './platform/auth/session.service.js';
import { installErrorHandler } from './platform/http/error-handler.js';
import { requestLanguage } from './platform/http/language.js';
import { createGatekeeper } from './platform/http/gate.js';
import { bodyIsOptional } from './platform/http/route.js';
import { Keyring } from './platform/keyring/keyring.js';
import { createJournal } from './platform/db/journal.js';
import { createJobs } from './platform/jobs/jobs.js';
import {
  createServiceRegistry,
  registerModules,
  type KspModule,
  type ModuleServices,
} from './platform/module.js';
import { auditModule } from './modules/audit/audit.module.js';
import { configModule } from './modules/config/config.module.js';
import { dashboardModule } from './modules/dashboard/dashboard.module.js';
import { domainModule } from './modules/domain/domain.module.js';
import { keyModule } from './modules/key/key.module.js';
import { ldapModule } from './modules/ldap/ldap.module.js';
import { passwordPolicyModule } from './modules/password-policy/password-policy.module.js';
import { registrationTokenModule } from './modules/registration-token/registration-token.module.js';
import { roleModule } from './modules/role/role.module.js';
import { systemModule } from './modules/system/system.module.js';
import { userModule } from './modules/user/user.module.js';

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
  dashboardModule,
];

export interface AppOptions {
  config: KspConfig;
  database: DatabaseHandle;
  /** Injected so tests can move time forward (session expiry). */
  clock?: Clock;
  logger?: boolean;
  /** Where log lines go (default stdout); tests read them to check what an outage logs. */
  logStream?: { write(line: string): void };
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
  };
  /**
   * The one-time first-run code issued at this start (network address, not yet activated),
   * for main.ts to print; null when none is needed.
   */
  setupCode: string | null;
  /** Every route registered, with its declared access (for the route audit test). */
  routes: readonly { method: string; url: string; access: string | undefined }[];
}

/** Builds the whole server without listening: what main.ts runs and what tests inject into. */
export async function buildApp(options: AppOptions): Promise<KspServer> {
  const { config, database } = options;
  const clock = options.clock ?? (() => new Date());
  const https = config.tls
    ? { cert: readFileSync(config.tls.cert), key: readFileSync(config.tls.key) }
    : null;
  const app = Fastify({
    ...(https ? { https } : {}),
    logger:
      options.logger === false
        ? false
        : {
            level: config.logLevel,
            ...(options.logStream ? { stream: options.logStream } : {}),
            redact: {
              paths: ['req.headers.token', 'req.headers.cookie', 'req.headers.authorization'],
              censor: '[redacted]',
            },
          },
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
  }) as unknown as FastifyInstance;
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const routes: { method: string; url: string; access: string | undefined }[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat())
      routes.push({ method, url: route.url, access: route.config?.access });
    if (route.url.startsWith('/v1/') && !route.config?.access) {
      throw new Error(
        `Route ${route.method.toString()} ${route.url} declares no access (permission or 'public')`,
      );
    }
  });
  // Helmet's middleware is built once; every answer (API, console, docs) gets its headers.
  const securityHeaders = helmet({
    frameguard: false,
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: { policy: 'same-origin' },
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        // The UKEY bridge (tools/ukey-bridge) listens on the administrator's own loopback.
        connectSrc: ["'self'", 'http://127.0.0.1:*', 'http://localhost:*'],
        frameAncestors: config.frameAncestors,
        objectSrc: ["'none'"],
        upgradeInsecureRequests: null,
      },
    },
    strictTransportSecurity: config.tls ? { maxAge: 31_536_000 } : false,
  });
  app.addHook('onRequest', (req, reply, done) => {
    void reply.header(VERSION_HEADER, PRODUCT_VERSION);
    securityHeaders(req.raw, reply.raw, (err) => done(err as Error | undefined));
  });
  // API answers carry session-bound data (keys, users, tokens): no cache, shared or private,
  // may keep them. Error answers too, wherever they come from.
  app.addHook('onSend', (req, reply, payload, done) => {
    if (req.url.startsWith('/v1/') || reply.statusCode >= 400) void reply.header('cache-control', 'no-store');
    done(null, payload);
  });
  await app.register(multipart, { limits: { files: 1, fields: 10, fileSize: 1024 * 1024 } });
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'KSP API',
        version: PRODUCT_VERSION,
        description: 'Envelope { code, msg, data }; code 0 is success.',
      },
      components: { securitySchemes: { token: { type: 'apiKey', in: 'header', name: TOKEN_HEADER } } },
    },
    transform: jsonSchemaTransform,
    // A call whose body is optional (logout, refresh, ...) says so: the generator marks every body required.
    transformObject: (documentObject) => {
      const doc =
        'openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject;
      const paths = (doc.paths ?? {}) as Record<
        string,
        Record<string, { requestBody?: { required?: boolean } }>
      >;
      for (const def of allCalls) {
        const op = paths[def.path]?.[def.method.toLowerCase()];
        if (op?.requestBody && bodyIsOptional(def)) op.requestBody.required = false;
      }
      return doc;
    },
  });
  // An empty JSON body is no body: calls whose body is optional accept it, others say which field is missing.
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) {
      done(null, undefined);
      return;
    }
    // The default parser answers through `done`; it returns no promise to wait for.
    void defaultJson(req, body as string, done);
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  const { db } = database;
  await migrate(db);
  const registry = createServiceRegistry();
  const journal = createJournal(db, database.engine);
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
    { app, gate, db, engine: database.engine, clock, config, keyring, journal, sessions, jobs, log: app.log },
    registry,
  );
  await kit.start();
  jobs.start();

  installErrorHandler(app, createStorageHealth({ probe: () => sql`select 1`.execute(db), log: app.log }));
  const webDir = config.webDir ?? defaultWebDir;
  const hasWeb = existsSync(join(webDir, 'index.html'));
  if (hasWeb) {
    await app.register(fastifyStatic, { root: webDir, wildcard: false, index: ['index.html'] });
  }
  app.setNotFoundHandler((req, reply) => {
    const lang = requestLanguage(req);
    const path = req.url.split('?')[0] ?? '';
    if (hasWeb && req.method === 'GET' && !path.startsWith('/v1/') && !path.startsWith('/docs')) {
      // History fallback: the SPA's router owns every other path.
      return reply.type('text/html').header('cache-control', 'no-cache').sendFile('index.html');
    }
    return reply.status(404).send({
      code: Code.NOT_FOUND,
      msg: formatMessage('error.notFoundRoute', lang, { method: req.method, url: path }),
      data: null,
    });
  });
  app.addHook('onClose', async () => {
    await jobs.stop();
    await journal.flush();
    await kit.stop();
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
    },
    setupCode: registry.use('setupCode'),
    routes,
  };
}
