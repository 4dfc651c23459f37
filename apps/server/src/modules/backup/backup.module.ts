import type { KspModule, ModuleContext } from '../../platform/module.js';
import { createBackupKeyService } from './backup-key.service.js';
import { rotationDescription } from './backup.description.js';
import { backupRoutes } from './backup.routes.js';
import { createBackupService, type BackupService } from './backup.service.js';
import { BACKUP_JOB, type BackupCheckpoint } from './backup.writer.js';

/**
 * How often the backup job looks for queued backups on a node that does not hold its lease
 * (the node a backup is asked of starts the job at once when it can take the lease).
 */
const ROUND_SECONDS = 15;

/** Settings › backup keys and backups: encrypted archives, restore (README.md). */
export const backupModule: KspModule = {
  name: 'backup',
  register(ctx) {
    const keys = createBackupKeyService({
      db: ctx.db,
      clock: ctx.clock,
      keyring: ctx.keyring,
      audit: ctx.audit,
    });
    const backups = createBackupService({
      db: ctx.db,
      clock: ctx.clock,
      keyring: ctx.keyring,
      keys,
      audit: ctx.audit,
      backupDir: ctx.config.backupDir,
      node: ctx.config.nodeName,
      jobs: ctx.jobs,
      engine: ctx.engine,
      log: ctx.log,
      // Sessions, roles and users may all have changed: the node forgets what it cached.
      restored: () => ctx.gate.accessChanged(),
      hsm: () => ctx.use('hsmSecrets'),
    });
    ctx.jobs.register<BackupCheckpoint>({
      name: BACKUP_JOB,
      every: ROUND_SECONDS,
      run: (run) => backups.runJob(run),
    });
    ctx.provide('rotationBackup', {
      take: ({ task, run, ...input }) =>
        backups.takeRotation({ ...input, description: rotationDescription(task, run) }),
    });
    backupRoutes(ctx.app, ctx.gate, keys, backups);
    services.set(ctx, backups);
  },
  async start(ctx) {
    await services.get(ctx)?.failInterrupted();
  },
};

/** Each app's service, for its start hook (tests run several apps in one process). */
const services = new WeakMap<ModuleContext, BackupService>();
