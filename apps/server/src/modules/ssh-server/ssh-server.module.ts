import { createDomainSealer } from '../../platform/keyring/domain-sealer.js';
import type { KspModule, ModuleServices } from '../../platform/module.js';
import { createRecordings } from './ssh-server.recording.js';
import { createRoleOptions } from './ssh-server.role-options.js';
import { sshServerRoutes } from './ssh-server.routes.js';
import { createSshServerService, type SshServerService } from './ssh-server.service.js';
import { createTerminals, terminalRoutes } from './ssh-server.terminal.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** Servers for other modules: a server of the caller's domain by id, 4040 otherwise. */
    servers: Pick<SshServerService, 'visible'>;
  }
}

/** The job that rotates the servers whose scheduled rotation is due (one node at a time, by its lease). */
export const SERVER_ROTATION_JOB = 'server.rotate';
/** Seconds between two looks for due rotations. */
export const SERVER_ROTATION_EVERY = 60;

/** Servers of the SMS sub-console: pinned host keys, connection test, password rotation (README.md). */
export const sshServerModule: KspModule = {
  name: 'ssh-server',
  register(ctx) {
    // The credential module is listed earlier; looked up at first use all the same.
    let credentials: ModuleServices['credentials'] | undefined;
    const servers = createSshServerService({
      db: ctx.db,
      clock: ctx.clock,
      audit: ctx.audit,
      credentials: () => (credentials ??= ctx.use('credentials')),
      license: () => ctx.maybeUse('license'),
      policy: ctx.config.ssh,
    });
    ctx.provide('servers', servers);
    // A ticket is bound to the session that asked for it: it dies with it.
    const terminals = createTerminals(
      servers,
      () => ctx.clock().getTime(),
      (id) => ctx.sessions.isAlive(id),
    );
    const recordings = createRecordings({
      db: ctx.db,
      sealer: createDomainSealer({ keyring: ctx.keyring }),
      clock: ctx.clock,
    });
    sshServerRoutes(ctx.app, ctx.gate, servers, terminals, recordings, createRoleOptions(ctx.db));
    terminalRoutes(ctx.app, servers, terminals, recordings);
    ctx.jobs.register({
      name: SERVER_ROTATION_JOB,
      every: SERVER_ROTATION_EVERY,
      run: async (run) => void (await servers.runScheduled(run)),
    });
  },
};
