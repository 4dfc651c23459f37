import type { BackupScope } from '@ksp/contracts';
import { createAuditWriter, type AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db, Engine } from '../../platform/db/database.js';
import type { Jobs } from '../../platform/jobs/jobs.js';
import type { Keyring } from '../../platform/keyring/keyring.js';
import type { ModuleServices } from '../../platform/module.js';
import type { BackupKeyService } from './backup-key.service.js';
import { createBackupCatalogue } from './backup.catalogue.js';
import { archiveFiles } from './backup.files.js';
import { createBackupRestore } from './backup.restore.js';
import { createBackupWriter } from './backup.writer.js';

/**
 * Backups and restore (docs/modules.md#backup-keys-and-backups, README.md), behind one service:
 * the calls on backups (`backup.catalogue.ts`), the backup job that writes archives
 * (`backup.writer.ts`) and the restore engine (`backup.restore.ts`).
 */
export function createBackupService(deps: {
  db: Db;
  clock: Clock;
  keyring: Keyring;
  keys: BackupKeyService;
  /** The module's audit writer (default: one on `clock`). */
  audit?: AuditWriter;
  /** Where archives are written and read (KSP_BACKUP_DIR). */
  backupDir: string;
  /** This node's name, recorded on the archives it writes. */
  node: string;
  /** Backups are written by the jobs service's `backup` job (BACKUP_JOB), under its lease. */
  jobs: Jobs;
  engine: Engine;
  /** Called after a restore committed: caches of what it replaced are dropped. */
  restored: (scope: BackupScope) => void;
  log: { error(details: object, message: string): void };
  /** The bound HSM's sealing, for HSM-bound backups (modules/hsm). */
  hsm: () => ModuleServices['hsmSecrets'];
}) {
  const parts = {
    ...deps,
    audit: deps.audit ?? createAuditWriter(deps.clock),
    files: archiveFiles(deps.backupDir),
  };
  const writer = createBackupWriter(parts);
  return {
    ...createBackupCatalogue({ ...parts, writer }),
    runJob: writer.runJob,
    ...createBackupRestore(parts),
  };
}

export type BackupService = ReturnType<typeof createBackupService>;
