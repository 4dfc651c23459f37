import type { KspModule, ModuleContext } from '../../platform/module.js';
import { createBackupKeyService } from './backup-key.service.js';
import { backupRoutes } from './backup.routes.js';
import { createBackupService, type BackupService } from './backup.service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** The "key rotation" backup the scheduler takes of the keys it is about to rotate. */
    rotationBackup: {
      take(input: { keyIds: string[]; actor: string; description: string }): Promise<{ id: string }>;
    };
  }
}

/** Settings › backup keys and backups: encrypted archives, restore (README.md). */
export const backupModule: KspModule = {
  name: 'backup',
  register(ctx) {
    const keys = createBackupKeyService({ db: ctx.db, clock: ctx.clock, keyring: ctx.keyring });
    const backups = createBackupService({
      db: ctx.db,
      clock: ctx.clock,
      keyring: ctx.keyring,
      keys,
      dataDir: ctx.config.dataDir,
      engine: ctx.engine,
      log: ctx.log,
      // Sessions, roles and users may all have changed: the node forgets what it cached.
      restored: () => ctx.gate.accessChanged(),
      hsm: () => ctx.use('hsmSecrets'),
    });
    ctx.provide('rotationBackup', { take: (input) => backups.takeRotation(input) });
    backupRoutes(ctx.app, ctx.gate, keys, backups);
    ctx.onClose(() => backups.drain());
    services.set(ctx, backups);
  },
  async start(ctx) {
    await services.get(ctx)?.failInterrupted();
  },
};

/** Each app's service, for its start hook (tests run several apps in one process). */
const services = new WeakMap<ModuleContext, BackupService>();
