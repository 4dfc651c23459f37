import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { createAuditWriter, type AuditWriter } from './audit.js';
import type { Clock, SessionService } from './auth/session.service.js';
import type { KspConfig } from './config.js';
import type { CopyOut, DatabaseConnection, Db, Engine, Executor } from './db/database.js';
import type { Journal } from './db/journal.js';
import type { Gatekeeper, Readiness } from './http/route.js';
import type { Jobs } from './jobs/jobs.js';
import type { Keyring } from './keyring/keyring.js';

/** Where sessions learn what a user (or an app secret's role) may do. */
export interface PermissionSource {
  ofUser(db: Executor, userId: string): Promise<Set<string>>;
  /** The permissions of one role, or null when it no longer exists. */
  ofRole(db: Executor, roleId: string): Promise<Set<string> | null>;
}

/**
 * The services modules offer one another, by name. The platform declares the slots it
 * needs filled; each module adds its own with declaration merging in its `<area>.module.ts`:
 *
 *     declare module '../../platform/module.js' {
 *       interface ModuleServices { users: UserService }
 *     }
 */
export interface ModuleServices {
  /** Whether calls are answered yet (initialized, activated, unsealed); the gate asks it. */
  readiness: () => Promise<Readiness>;
  /** What the session service reads permissions from. */
  permissions: PermissionSource;
}

export type ServiceName = keyof ModuleServices;

/** What a module receives to plug itself in. */
export interface ModuleContext {
  app: FastifyInstance;
  /** For `registerCall(ctx.app, ctx.gate, call, handler)`. */
  gate: Gatekeeper;
  db: Db;
  engine: Engine;
  /** PostgreSQL: streams a query's lines by COPY, for large exports (db/copy-out.ts); SQLite: null. */
  copyOut: CopyOut | null;
  /** How another connection reaches the same data (null: in memory). */
  connection: DatabaseConnection | null;
  clock: Clock;
  config: KspConfig;
  keyring: Keyring;
  journal: Journal;
  sessions: SessionService;
  audit: AuditWriter;
  /** Background work: `ctx.jobs.register({ name, every | cron, run })` (docs/jobs.md). */
  jobs: Jobs;
  log: FastifyBaseLogger;
  /** Offers a service to the modules listed after this one (and to start hooks). */
  provide<K extends ServiceName>(name: K, service: ModuleServices[K]): void;
  /** A service another module provided; throws if none has (yet). */
  use<K extends ServiceName>(name: K): ModuleServices[K];
  /** A service another module may provide (an optional collaborator): undefined when none has. */
  maybeUse<K extends ServiceName>(name: K): ModuleServices[K] | undefined;
  /** Runs at shutdown, after every module's `stop`, last registered first (resources made in `register`). */
  onClose(hook: () => void | Promise<void>): void;
}

/** One area of the server: a folder under `modules/` exporting one of these from `<area>.module.ts`. */
export interface KspModule {
  name: string;
  /** Builds the module's services, provides them, registers its calls and jobs. No I/O. */
  register(ctx: ModuleContext): void | Promise<void>;
  /** Start-up work once every module is registered (defaults, unseal), in module order. */
  start?(ctx: ModuleContext): Promise<void>;
  /** Shutdown work, in reverse module order, before the `onClose` hooks. */
  stop?(ctx: ModuleContext): Promise<void>;
}

export type PlatformParts = Omit<ModuleContext, 'provide' | 'use' | 'maybeUse' | 'onClose' | 'audit'>;

/**
 * The services modules have provided, typed by `ModuleServices`. `overrides` (tests only:
 * `AppOptions.services`) stand in for the named services: a module providing one of them is
 * ignored for that name.
 */
export function createServiceRegistry(overrides: Partial<ModuleServices> = {}) {
  const services = new Map<ServiceName, unknown>(Object.entries(overrides) as [ServiceName, unknown][]);
  const overridden = new Set(services.keys());
  // Arrow functions: the context hands them out detached (`provide: registry.provide`).
  return {
    provide: <K extends ServiceName>(name: K, service: ModuleServices[K]): void => {
      if (overridden.has(name)) return;
      if (services.has(name)) throw new Error(`Service '${name}' is provided twice`);
      services.set(name, service);
    },
    maybeUse: <K extends ServiceName>(name: K): ModuleServices[K] | undefined =>
      services.get(name) as ModuleServices[K] | undefined,
    use: <K extends ServiceName>(name: K): ModuleServices[K] => {
      if (!services.has(name)) {
        throw new Error(`Service '${name}' is not provided: list the module offering it earlier`);
      }
      return services.get(name) as ModuleServices[K];
    },
  };
}

export type ServiceRegistry = ReturnType<typeof createServiceRegistry>;

/**
 * Registers the modules in order and returns the hooks that start and stop them. The
 * registry is passed in because the platform itself (gate, sessions) reads services too.
 */
export async function registerModules(
  modules: readonly KspModule[],
  parts: PlatformParts,
  registry: ServiceRegistry,
): Promise<{ start(): Promise<void>; stop(): Promise<void> }> {
  const closers: (() => void | Promise<void>)[] = [];
  const ctx: ModuleContext = {
    ...parts,
    audit: createAuditWriter(parts.clock),
    provide: registry.provide,
    use: registry.use,
    maybeUse: registry.maybeUse,
    onClose: (hook) => closers.push(hook),
  };
  const names = new Set<string>();
  for (const module of modules) {
    if (names.has(module.name)) throw new Error(`Module '${module.name}' is listed twice`);
    names.add(module.name);
    await module.register(ctx);
  }
  return {
    async start() {
      for (const module of modules) await module.start?.(ctx);
    },
    async stop() {
      for (const module of [...modules].reverse()) await module.stop?.(ctx);
      for (const close of closers.reverse()) await close();
    },
  };
}
